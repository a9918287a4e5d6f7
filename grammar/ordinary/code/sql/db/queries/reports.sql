-- policyc ordinary sample: everyday reporting queries (CTEs, window functions, joins).
-- Written by hand for policyc as ordinary query code; compiler/ordinary.py turns it into
-- Read, Write and Edit events at the path below code/sql/ to measure rule breadth.

-- name: monthly_revenue
WITH paid AS (
    SELECT date_trunc('month', placed_at) AS month,
           currency,
           total_cents
    FROM orders
    WHERE status IN ('paid', 'shipped')
      AND placed_at >= :since
)
SELECT month,
       currency,
       count(*)                AS orders,
       sum(total_cents) / 100.0 AS revenue
FROM paid
GROUP BY month, currency
ORDER BY month, currency;

-- name: top_products
SELECT oi.sku,
       sum(oi.quantity)                   AS units,
       sum(oi.quantity * oi.unit_cents)   AS revenue_cents,
       rank() OVER (ORDER BY sum(oi.quantity * oi.unit_cents) DESC) AS revenue_rank
FROM order_items oi
JOIN orders o ON o.id = oi.order_id
WHERE o.status <> 'cancelled'
  AND o.placed_at BETWEEN :start AND :end
GROUP BY oi.sku
ORDER BY revenue_cents DESC
LIMIT 20;

-- name: repeat_customers
SELECT customer_id,
       email,
       order_count,
       lifetime_cents / 100.0 AS lifetime_value
FROM customer_order_totals
WHERE order_count >= 2
ORDER BY lifetime_cents DESC;

-- name: orders_awaiting_shipment
SELECT o.id,
       c.email,
       o.placed_at,
       now() - o.placed_at AS waiting
FROM orders o
JOIN customers c ON c.id = o.customer_id
WHERE o.status = 'paid'
ORDER BY o.placed_at
LIMIT :limit OFFSET :offset;

-- name: cancel_stale_pending
UPDATE orders
SET status = 'cancelled'
WHERE status = 'pending'
  AND placed_at < now() - INTERVAL '7 days'
RETURNING id;
