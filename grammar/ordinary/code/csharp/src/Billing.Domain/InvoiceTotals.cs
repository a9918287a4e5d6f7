// policyc ordinary sample: an everyday C# static helper class (LINQ, records, nullable types).
// Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/csharp/ to measure rule breadth.

namespace Billing.Domain;

public class Invoice
{
    public Guid Id { get; init; }
    public required string CustomerId { get; init; }
    public decimal Amount { get; set; }
    public string Currency { get; set; } = "EUR";
    public DateOnly DueDate { get; set; }
    public bool Paid { get; set; }
}

public sealed record AgingBucket(string Label, int FromDays, int? ToDays, decimal Total);

public static class InvoiceTotals
{
    private static readonly (string Label, int From, int? To)[] Buckets =
    [
        ("current", int.MinValue, 0),
        ("1-30 days", 1, 30),
        ("31-60 days", 31, 60),
        ("61-90 days", 61, 90),
        ("over 90 days", 91, null),
    ];

    public static decimal Outstanding(IEnumerable<Invoice> invoices) =>
        invoices.Where(invoice => !invoice.Paid).Sum(invoice => invoice.Amount);

    public static bool IsOverdue(Invoice invoice, DateOnly today) =>
        !invoice.Paid && invoice.DueDate < today;

    public static IReadOnlyDictionary<string, decimal> ByCurrency(IEnumerable<Invoice> invoices) =>
        invoices
            .GroupBy(invoice => invoice.Currency, StringComparer.OrdinalIgnoreCase)
            .ToDictionary(group => group.Key, group => group.Sum(invoice => invoice.Amount));

    public static IReadOnlyList<AgingBucket> Aging(IEnumerable<Invoice> invoices, DateOnly today)
    {
        ArgumentNullException.ThrowIfNull(invoices);

        var unpaid = invoices.Where(invoice => !invoice.Paid).ToList();
        var result = new List<AgingBucket>(Buckets.Length);
        foreach (var (label, from, to) in Buckets)
        {
            var total = unpaid
                .Where(invoice =>
                {
                    var days = today.DayNumber - invoice.DueDate.DayNumber;
                    return days >= from && (to is null || days <= to);
                })
                .Sum(invoice => invoice.Amount);
            result.Add(new AgingBucket(label, Math.Max(from, 0), to, total));
        }
        return result;
    }

    public static Invoice? OldestUnpaid(IEnumerable<Invoice> invoices) =>
        invoices.Where(invoice => !invoice.Paid).MinBy(invoice => invoice.DueDate);
}
