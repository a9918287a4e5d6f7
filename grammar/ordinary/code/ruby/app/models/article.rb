# policyc ordinary sample: an everyday Rails model (associations, validations, scopes).
# Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
# into Read, Write and Edit events at the path below code/ruby/ to measure rule breadth.

class Article < ApplicationRecord
  STATUSES = %w[draft review published archived].freeze

  belongs_to :author, class_name: "User"
  has_many :comments, dependent: :destroy
  has_many :taggings, dependent: :destroy
  has_many :tags, through: :taggings

  validates :title, presence: true, length: { maximum: 140 }
  validates :slug, presence: true, uniqueness: true, format: { with: /\A[a-z0-9-]+\z/ }
  validates :status, inclusion: { in: STATUSES }

  before_validation :assign_slug, on: :create

  scope :published, -> { where(status: "published").where("published_at <= ?", Time.current) }
  scope :recent, -> { order(published_at: :desc) }
  scope :tagged, ->(name) { joins(:tags).where(tags: { name: name }) }

  def publish!(at: Time.current)
    update!(status: "published", published_at: at)
  end

  def published?
    status == "published" && published_at.present? && published_at <= Time.current
  end

  def reading_time
    words = body.to_s.split.size
    [(words / 200.0).ceil, 1].max
  end

  def excerpt(length: 160)
    text = ActionController::Base.helpers.strip_tags(body.to_s).squish
    text.truncate(length, separator: " ")
  end

  def to_param
    slug
  end

  private

  def assign_slug
    return if slug.present? || title.blank?

    base = title.parameterize
    candidate = base
    suffix = 2
    while Article.exists?(slug: candidate)
      candidate = "#{base}-#{suffix}"
      suffix += 1
    end
    self.slug = candidate
  end
end
