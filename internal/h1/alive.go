package h1

import (
	"crypto/tls"
	"sync"
)

// reusable reports whether the idle connection c may carry a request: the
// server has neither closed nor reset it, nor sent bytes that no request
// asked for. It peeks at the socket with one system call, without waiting
// and without consuming.
//
// Servers close idle connections without warning, some (llama.cpp's among
// them) right after a response they announced as keep-alive; a request
// written to such a connection fails with io.EOF or ECONNRESET. net/http
// finds these out with a goroutine reading every idle connection; h1 runs
// none, so it looks when it takes one from the pool. A server that closes
// after the look still fails the request, which the caller may send again
// (see RoundTrip).
//
// Over TLS the bytes waiting are a close_notify alert in practice (session
// tickets arrive before the first response, which reads them), so they
// count as a close there too. Where the socket cannot be reached (a wrapped
// connection, or no Unix) c counts as reusable.
func (c *conn) reusable() bool {
	raw := c.lr.raw // plain TCP
	if tc, ok := c.nc.(*tls.Conn); ok {
		raw = rawConn(tc.NetConn())
	}
	if raw == nil {
		return true
	}
	p := peekers.Get().(*peeker)
	defer peekers.Put(p)
	if err := raw.Control(p.fn); err != nil {
		return false // closed here
	}
	return !p.data && !p.closed
}

// peeker runs peekFD as a RawConn.Control callback; pooled with its bound
// callback, so that a look allocates nothing.
type peeker struct {
	fn           func(fd uintptr)
	data, closed bool
}

var peekers = sync.Pool{New: func() any {
	p := &peeker{}
	p.fn = func(fd uintptr) { p.data, p.closed = peekFD(fd) }
	return p
}}
