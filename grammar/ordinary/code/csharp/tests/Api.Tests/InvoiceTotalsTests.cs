// policyc ordinary sample: an everyday xUnit test class.
// Written by hand for policyc as ordinary test code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/csharp/ to measure rule breadth.

using Billing.Domain;
using Xunit;

namespace Billing.Api.Tests;

public class InvoiceTotalsTests
{
    private static Invoice NewInvoice(decimal amount, bool paid = false, int dueInDays = 30) => new()
    {
        Id = Guid.NewGuid(),
        CustomerId = "c-1",
        Amount = amount,
        Currency = "EUR",
        DueDate = new DateOnly(2024, 6, 1).AddDays(dueInDays),
        Paid = paid,
    };

    [Fact]
    public void OutstandingIgnoresPaidInvoices()
    {
        var invoices = new[] { NewInvoice(100m), NewInvoice(50m, paid: true), NewInvoice(25.5m) };

        var outstanding = InvoiceTotals.Outstanding(invoices);

        Assert.Equal(125.5m, outstanding);
    }

    [Theory]
    [InlineData(-1, true)]
    [InlineData(0, false)]
    [InlineData(10, false)]
    public void OverdueWhenDueDateIsPast(int dueInDays, bool expected)
    {
        var invoice = NewInvoice(10m, dueInDays: dueInDays);

        var overdue = InvoiceTotals.IsOverdue(invoice, today: new DateOnly(2024, 6, 1));

        Assert.Equal(expected, overdue);
    }

    [Fact]
    public void EmptyListHasNothingOutstanding()
    {
        Assert.Equal(0m, InvoiceTotals.Outstanding(Array.Empty<Invoice>()));
    }

    [Fact]
    public void GroupsByCurrency()
    {
        var usd = NewInvoice(10m);
        usd.Currency = "USD";
        var invoices = new[] { NewInvoice(5m), NewInvoice(7m), usd };

        var totals = InvoiceTotals.ByCurrency(invoices);

        Assert.Equal(12m, totals["EUR"]);
        Assert.Equal(10m, totals["USD"]);
        Assert.Equal(2, totals.Count);
    }
}
