-- policyc ordinary sample: an everyday SQL migration (tables, constraints, indexes, a view).
-- Written by hand for policyc as ordinary schema code; compiler/ordinary.py turns it into
-- Read, Write and Edit events at the path below code/sql/ to measure rule breadth.

BEGIN;

CREATE TABLE customers (
    id          BIGSERIAL PRIMARY KEY,
    email       TEXT        NOT NULL UNIQUE,
    full_name   TEXT        NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE orders (
    id           BIGSERIAL PRIMARY KEY,
    customer_id  BIGINT      NOT NULL REFERENCES customers (id) ON DELETE RESTRICT,
    status       TEXT        NOT NULL DEFAULT 'pending'
                 CHECK (status IN ('pending', 'paid', 'shipped', 'cancelled')),
    total_cents  INTEGER     NOT NULL CHECK (total_cents >= 0),
    currency     CHAR(3)     NOT NULL DEFAULT 'EUR',
    placed_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE order_items (
    order_id     BIGINT  NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    line_no      INTEGER NOT NULL,
    sku          TEXT    NOT NULL,
    quantity     INTEGER NOT NULL CHECK (quantity > 0),
    unit_cents   INTEGER NOT NULL CHECK (unit_cents >= 0),
    PRIMARY KEY (order_id, line_no)
);

CREATE INDEX orders_customer_id_idx ON orders (customer_id);
CREATE INDEX orders_status_placed_at_idx ON orders (status, placed_at DESC);
CREATE INDEX order_items_sku_idx ON order_items (sku);

CREATE OR REPLACE FUNCTION touch_updated_at() RETURNS trigger AS $$
BEGIN
    NEW.updated_at = now();
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER orders_touch_updated_at
    BEFORE UPDATE ON orders
    FOR EACH ROW EXECUTE FUNCTION touch_updated_at();

CREATE VIEW customer_order_totals AS
SELECT c.id          AS customer_id,
       c.email,
       count(o.id)   AS order_count,
       coalesce(sum(o.total_cents), 0) AS lifetime_cents,
       max(o.placed_at) AS last_order_at
FROM customers c
LEFT JOIN orders o ON o.customer_id = c.id AND o.status <> 'cancelled'
GROUP BY c.id, c.email;

COMMIT;
