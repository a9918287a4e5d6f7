// policyc ordinary sample: an everyday small Go package (functional options, generics, context).
// Written by hand for policyc as ordinary application code; compiler/ordinary.py turns it
// into Read, Write and Edit events at the path below code/go/ to measure rule breadth.

// Package retry runs an operation again when it fails with a temporary error.
package retry

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"
)

// Permanent wraps an error that should not be retried.
type Permanent struct{ Err error }

func (p Permanent) Error() string { return p.Err.Error() }
func (p Permanent) Unwrap() error { return p.Err }

type config struct {
	attempts int
	base     time.Duration
	max      time.Duration
}

// Option changes how Do retries.
type Option func(*config)

// Attempts sets how many times the operation runs at most.
func Attempts(n int) Option { return func(c *config) { c.attempts = n } }

// Backoff sets the first delay and the longest delay between attempts.
func Backoff(base, max time.Duration) Option {
	return func(c *config) { c.base, c.max = base, max }
}

// Do runs op until it succeeds, returns a Permanent error, runs out of attempts,
// or ctx is done. Delays grow exponentially with jitter.
func Do[T any](ctx context.Context, op func(context.Context) (T, error), options ...Option) (T, error) {
	cfg := config{attempts: 3, base: 100 * time.Millisecond, max: 2 * time.Second}
	for _, option := range options {
		option(&cfg)
	}

	var zero T
	var err error
	delay := cfg.base
	for attempt := 1; attempt <= cfg.attempts; attempt++ {
		var value T
		value, err = op(ctx)
		if err == nil {
			return value, nil
		}
		var permanent Permanent
		if errors.As(err, &permanent) {
			return zero, permanent.Err
		}
		if attempt == cfg.attempts {
			break
		}
		jitter := time.Duration(rand.Int64N(int64(delay) / 2))
		select {
		case <-ctx.Done():
			return zero, errors.Join(err, ctx.Err())
		case <-time.After(delay + jitter):
		}
		delay = min(delay*2, cfg.max)
	}
	return zero, err
}
