package h1

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
)

// errBodyClosed is what a read after Close returns.
var errBodyClosed = errors.New("h1: read on closed response body")

// States of a body.
const (
	bodyOpen   int32 = iota
	bodyDone         // read to its end; the connection was released
	bodyClosed       // closed or failed; the connection was closed
)

// body is a response body read straight from its connection. The first of
// its end, an error and Close decides the connection's fate: reading to the
// end releases it (to the idle pool when keep), an error or an early Close
// closes it.
type body struct {
	rc      io.ReadCloser // http.ReadResponse's body, reading c.br
	t       *Transport
	c       *conn
	ctx     context.Context
	keep    bool // both sides allow keep-alive
	chunked bool // Transfer-Encoding: chunked (see conn.drained)
	// waitRead is the connection's lazyReader.waitRead when the body was
	// read to its end, before the connection went to another request.
	waitRead bool
	state    atomic.Int32
}

// Read reads from the response. At the end it returns io.EOF; when the
// request's context ended, an error wrapping the context's error.
func (b *body) Read(p []byte) (int, error) {
	switch b.state.Load() {
	case bodyDone:
		return 0, io.EOF
	case bodyClosed:
		return 0, errBodyClosed
	}
	n, err := b.rc.Read(p)
	if err == nil {
		return n, nil
	}
	if err == io.EOF {
		b.waitRead = b.c.lr.waitRead
		if b.state.CompareAndSwap(bodyOpen, bodyDone) {
			// The tracer is looked up again rather than held (an
			// interface): a waiting stream's body stays at 64 bytes.
			b.t.release(b.c, b.keep, contextTracer(b.ctx))
		}
		return n, io.EOF
	}
	if !b.state.CompareAndSwap(bodyOpen, bodyClosed) {
		return n, errBodyClosed // Close ran meanwhile and closed the connection
	}
	b.c.unwatch()
	b.c.close()
	if cerr := b.ctx.Err(); cerr != nil {
		return n, fmt.Errorf("h1: reading body: %w", cerr)
	}
	return n, err
}

// Close closes the body. Before the end of the response it closes the
// connection, at once: the rest is never read. It may be called while a
// Read blocks on another goroutine, and more than once; it returns nil.
func (b *body) Close() error {
	if b.state.CompareAndSwap(bodyOpen, bodyClosed) {
		// A Read may be running: only the connection is closed here; its
		// read buffer is left to the garbage collector.
		b.c.nc.Close()
		if b.c.stop != nil {
			b.c.stop() // safe beside Read: Read no longer touches stop
		}
	}
	return nil
}
