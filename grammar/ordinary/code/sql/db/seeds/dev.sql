-- policyc ordinary sample: everyday development seed data (inserts, upserts, sequences).
-- Written by hand for policyc as ordinary data scripts; compiler/ordinary.py turns it into
-- Read, Write and Edit events at the path below code/sql/ to measure rule breadth.

INSERT INTO customers (email, full_name)
VALUES
    ('ada@example.com', 'Ada Lovelace'),
    ('grace@example.com', 'Grace Hopper'),
    ('alan@example.com', 'Alan Turing'),
    ('katherine@example.com', 'Katherine Johnson')
ON CONFLICT (email) DO UPDATE SET full_name = EXCLUDED.full_name;

INSERT INTO orders (customer_id, status, total_cents, currency, placed_at)
SELECT c.id, v.status, v.total_cents, 'EUR', now() - v.age
FROM (
    VALUES
        ('ada@example.com', 'paid', 4599, INTERVAL '2 days'),
        ('ada@example.com', 'shipped', 1299, INTERVAL '20 days'),
        ('grace@example.com', 'pending', 8900, INTERVAL '1 hour'),
        ('alan@example.com', 'cancelled', 2500, INTERVAL '9 days'),
        ('katherine@example.com', 'paid', 15000, INTERVAL '3 hours')
) AS v (email, status, total_cents, age)
JOIN customers c ON c.email = v.email;

INSERT INTO order_items (order_id, line_no, sku, quantity, unit_cents)
SELECT o.id, 1, 'MUG-BLUE', 2, 1299
FROM orders o
JOIN customers c ON c.id = o.customer_id
WHERE c.email = 'ada@example.com' AND o.status = 'shipped';

INSERT INTO order_items (order_id, line_no, sku, quantity, unit_cents)
SELECT o.id, n, sku, quantity, unit_cents
FROM orders o
JOIN customers c ON c.id = o.customer_id
CROSS JOIN (
    VALUES
        (1, 'LAMP-DESK', 1, 3500),
        (2, 'BULB-E27', 2, 550)
) AS items (n, sku, quantity, unit_cents)
WHERE c.email = 'ada@example.com' AND o.status = 'paid';

SELECT setval(pg_get_serial_sequence('orders', 'id'), coalesce(max(id), 1)) FROM orders;
