# policyc ordinary sample: an everyday Ruby service object (keyword args, Struct, logging, mailers).
# Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
# into Read, Write and Edit events at the path below code/ruby/ to measure rule breadth.

class InvoiceReminder
  Result = Struct.new(:sent, :skipped, :failed, keyword_init: true) do
    def total
      sent + skipped + failed
    end
  end

  REMINDER_DAYS = [1, 7, 14].freeze

  def initialize(clock: Time.zone, mailer: InvoiceMailer, logger: Rails.logger)
    @clock = clock
    @mailer = mailer
    @logger = logger
  end

  def call(scope: Invoice.unpaid)
    result = Result.new(sent: 0, skipped: 0, failed: 0)

    scope.includes(:customer).find_each do |invoice|
      case remind(invoice)
      when :sent then result.sent += 1
      when :skipped then result.skipped += 1
      else result.failed += 1
      end
    end

    @logger.info("invoice reminders: #{result.to_h.to_json}")
    result
  end

  private

  def remind(invoice)
    return :skipped unless due_for_reminder?(invoice)
    return :skipped if invoice.customer.email.blank?

    @mailer.with(invoice: invoice).overdue.deliver_later
    invoice.update!(last_reminded_at: @clock.now)
    :sent
  rescue StandardError => e
    @logger.error("reminder for invoice #{invoice.id} failed: #{e.message}")
    :failed
  end

  def due_for_reminder?(invoice)
    days_overdue = (@clock.today - invoice.due_on).to_i
    return false unless REMINDER_DAYS.include?(days_overdue)

    invoice.last_reminded_at.nil? || invoice.last_reminded_at.to_date < @clock.today
  end
end
