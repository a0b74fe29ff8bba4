package framework

import (
	"context"
	"testing"
	"time"
)

// Eventually polls check until it returns nil or timeout passes, then fails
// the test with the last error.
func Eventually(t testing.TB, timeout time.Duration, check func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var last error
	for {
		if last = check(ctx); last == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("still failing after %s: %v", timeout, last)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// Consistently checks for the whole duration that check keeps returning nil.
func Consistently(t testing.TB, duration time.Duration, check func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), duration)
	defer cancel()
	for {
		if err := check(context.Background()); err != nil {
			t.Fatalf("stopped holding: %v", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(250 * time.Millisecond):
		}
	}
}
