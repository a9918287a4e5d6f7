// policyc ordinary sample: an everyday ASP.NET Core controller (DI, async, validation).
// Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/csharp/ to measure rule breadth.

using System.ComponentModel.DataAnnotations;
using Microsoft.AspNetCore.Mvc;
using Microsoft.EntityFrameworkCore;

namespace Billing.Api.Controllers;

public sealed record CreateInvoiceRequest(
    [property: Required] string CustomerId,
    [property: Range(0.01, 1_000_000)] decimal Amount,
    string? Currency,
    DateOnly? DueDate);

public sealed record InvoiceDto(Guid Id, string CustomerId, decimal Amount, string Currency, DateOnly DueDate, bool Paid);

[ApiController]
[Route("api/[controller]")]
public class InvoicesController : ControllerBase
{
    private readonly BillingDbContext _db;
    private readonly ILogger<InvoicesController> _logger;
    private readonly TimeProvider _time;

    public InvoicesController(BillingDbContext db, ILogger<InvoicesController> logger, TimeProvider time)
    {
        _db = db;
        _logger = logger;
        _time = time;
    }

    [HttpGet]
    public async Task<ActionResult<IReadOnlyList<InvoiceDto>>> List(
        [FromQuery] string? customerId,
        [FromQuery] bool unpaidOnly = false,
        CancellationToken cancellationToken = default)
    {
        var query = _db.Invoices.AsNoTracking();
        if (!string.IsNullOrEmpty(customerId))
        {
            query = query.Where(invoice => invoice.CustomerId == customerId);
        }
        if (unpaidOnly)
        {
            query = query.Where(invoice => !invoice.Paid);
        }

        var invoices = await query
            .OrderBy(invoice => invoice.DueDate)
            .Select(invoice => ToDto(invoice))
            .ToListAsync(cancellationToken);
        return Ok(invoices);
    }

    [HttpGet("{id:guid}")]
    public async Task<ActionResult<InvoiceDto>> Get(Guid id, CancellationToken cancellationToken)
    {
        var invoice = await _db.Invoices.FindAsync([id], cancellationToken);
        return invoice is null ? NotFound() : Ok(ToDto(invoice));
    }

    [HttpPost]
    public async Task<ActionResult<InvoiceDto>> Create(CreateInvoiceRequest request, CancellationToken cancellationToken)
    {
        var today = DateOnly.FromDateTime(_time.GetUtcNow().UtcDateTime);
        var invoice = new Invoice
        {
            Id = Guid.NewGuid(),
            CustomerId = request.CustomerId,
            Amount = request.Amount,
            Currency = request.Currency ?? "EUR",
            DueDate = request.DueDate ?? today.AddDays(30),
        };
        _db.Invoices.Add(invoice);
        await _db.SaveChangesAsync(cancellationToken);
        _logger.LogInformation("Created invoice {InvoiceId} for {CustomerId}", invoice.Id, invoice.CustomerId);
        return CreatedAtAction(nameof(Get), new { id = invoice.Id }, ToDto(invoice));
    }

    [HttpPost("{id:guid}/pay")]
    public async Task<IActionResult> MarkPaid(Guid id, CancellationToken cancellationToken)
    {
        var invoice = await _db.Invoices.FindAsync([id], cancellationToken);
        if (invoice is null)
        {
            return NotFound();
        }
        invoice.Paid = true;
        await _db.SaveChangesAsync(cancellationToken);
        return NoContent();
    }

    private static InvoiceDto ToDto(Invoice invoice) =>
        new(invoice.Id, invoice.CustomerId, invoice.Amount, invoice.Currency, invoice.DueDate, invoice.Paid);
}
