package h1

import (
	"context"
	"fmt"
	"os"
	"time"
)

// deadlineKey carries a request deadline in a context (WithDeadline).
type deadlineKey struct{}

// WithDeadline returns a copy of ctx under which this package's Transport
// fails a request still going on at d: dialing, writing, or reading the
// headers or the body, which then return an error wrapping
// os.ErrDeadlineExceeded. Unlike context.WithDeadline it derives no
// cancellable context and starts no timer: the transport sets d as the
// connection's deadline, which the runtime's network poller enforces, so
// 10,000 open streams cost no context tree of their own. ctx's own end
// still aborts the request. Other RoundTrippers ignore d.
func WithDeadline(ctx context.Context, d time.Time) context.Context {
	return context.WithValue(ctx, deadlineKey{}, d)
}

// requestDeadline returns the deadline WithDeadline put in ctx, or the zero
// time.
func requestDeadline(ctx context.Context) time.Time {
	d, _ := ctx.Value(deadlineKey{}).(time.Time)
	return d
}

// errDeadline is what a request whose deadline passed before it reached
// the connection returns.
var errDeadline = fmt.Errorf("h1: request deadline passed: %w", os.ErrDeadlineExceeded)

// earlier returns the earlier of a and b, a zero time meaning none.
func earlier(a, b time.Time) time.Time {
	switch {
	case a.IsZero():
		return b
	case b.IsZero() || a.Before(b):
		return a
	}
	return b
}
