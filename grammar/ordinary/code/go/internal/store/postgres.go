// policyc ordinary sample: an everyday Go data-access package (database/sql, context, transactions).
// Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/go/ to measure rule breadth.

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"example.com/catalog/internal/server"
)

// Postgres implements server.Store on a *sql.DB.
type Postgres struct {
	db      *sql.DB
	timeout time.Duration
}

// New returns a Postgres store; queries time out after timeout.
func New(db *sql.DB, timeout time.Duration) *Postgres {
	return &Postgres{db: db, timeout: timeout}
}

func (p *Postgres) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), p.timeout)
}

// ListItems returns up to limit items, newest first, skipping offset.
func (p *Postgres) ListItems(limit, offset int) ([]server.Item, error) {
	ctx, cancel := p.ctx()
	defer cancel()

	rows, err := p.db.QueryContext(ctx,
		`SELECT id, name, price_cents, created_at FROM items ORDER BY created_at DESC LIMIT $1 OFFSET $2`,
		limit, offset)
	if err != nil {
		return nil, fmt.Errorf("query items: %w", err)
	}
	defer rows.Close()

	var items []server.Item
	for rows.Next() {
		var item server.Item
		if err := rows.Scan(&item.ID, &item.Name, &item.Price, &item.CreatedAt); err != nil {
			return nil, fmt.Errorf("scan item: %w", err)
		}
		items = append(items, item)
	}
	return items, rows.Err()
}

// GetItem returns one item or server.ErrNotFound.
func (p *Postgres) GetItem(id int64) (server.Item, error) {
	ctx, cancel := p.ctx()
	defer cancel()

	var item server.Item
	err := p.db.QueryRowContext(ctx,
		`SELECT id, name, price_cents, created_at FROM items WHERE id = $1`, id).
		Scan(&item.ID, &item.Name, &item.Price, &item.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return server.Item{}, server.ErrNotFound
	}
	if err != nil {
		return server.Item{}, fmt.Errorf("get item %d: %w", id, err)
	}
	return item, nil
}

// Reprice changes the price of several items in one transaction.
func (p *Postgres) Reprice(prices map[int64]int64) error {
	ctx, cancel := p.ctx()
	defer cancel()

	tx, err := p.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer func() { _ = tx.Rollback() }()

	stmt, err := tx.PrepareContext(ctx, `UPDATE items SET price_cents = $1 WHERE id = $2`)
	if err != nil {
		return fmt.Errorf("prepare: %w", err)
	}
	defer stmt.Close()

	for id, price := range prices {
		result, err := stmt.ExecContext(ctx, price, id)
		if err != nil {
			return fmt.Errorf("reprice %d: %w", id, err)
		}
		if n, _ := result.RowsAffected(); n == 0 {
			return fmt.Errorf("reprice %d: %w", id, server.ErrNotFound)
		}
	}
	return tx.Commit()
}
