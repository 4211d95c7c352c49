package h1

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http/httptrace"
	"os"
	"sync"
	"time"
)

// aLongTimeAgo is a deadline in the past: it fails a connection's pending
// and future reads and writes at once.
var aLongTimeAgo = time.Unix(1, 0)

// lineBufferSize is the size of a connection's bufio.Reader, through
// which http.ReadResponse reads header and chunk-size lines (longer header
// lines are read in pieces; a longer chunk-size line is an error). It reads
// from the connection's lazyReader, which holds the read buffer proper.
const lineBufferSize = 256

// conn is one connection, used by one request at a time or kept idle.
type conn struct {
	nc  net.Conn      // what DialContext returned, or a *tls.Conn over it
	lr  *lazyReader   // reads nc
	br  *bufio.Reader // reads lr
	key string        // the idle pool's key: scheme and host:port

	idleAt time.Time // when it was put in the idle pool

	// deadline is the current request's (WithDeadline), set as nc's
	// deadline; zero when none.
	deadline time.Time

	// stop ends the watch of the current request's context; nil when not
	// watching. Only the goroutine using the conn touches it.
	stop func() bool

	// mu orders the context's abort against deadline changes, so that an
	// abort is never undone, and against the TLS handshake's change of nc.
	mu      sync.Mutex
	aborted bool
}

// watch makes the end of ctx abort c's reads and writes, until unwatch.
// It starts no goroutine: context.AfterFunc runs abort only if ctx ends.
func (c *conn) watch(ctx context.Context) {
	if ctx.Done() == nil {
		return
	}
	c.stop = context.AfterFunc(ctx, c.abort)
}

// unwatch stops watching the context; it reports false if the context
// ended meanwhile (the connection was aborted, or is being: it must not
// be reused).
func (c *conn) unwatch() bool {
	if c.stop == nil {
		return true
	}
	ok := c.stop()
	c.stop = nil
	return ok
}

// abort sets c's deadline in the past: blocked and later reads and writes
// fail with os.ErrDeadlineExceeded.
func (c *conn) abort() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.aborted = true
	c.nc.SetDeadline(aLongTimeAgo)
}

// setDeadline sets c's deadline unless the context aborted c.
func (c *conn) setDeadline(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.aborted {
		c.nc.SetDeadline(t)
	}
}

// close closes the connection and recycles its read buffer. Only the
// goroutine reading c may call it (body.Close, which may run beside a
// Read, closes c.nc alone).
func (c *conn) close() {
	c.nc.Close()
	if c.lr != nil {
		c.lr.release()
	}
}

// unread reports how many bytes were read from the connection and not
// consumed.
func (c *conn) unread() int {
	return c.br.Buffered() + c.lr.buffered()
}

// getConn returns an idle connection to addr or dials one, watching ctx
// either way, and the GotConn hook's information about it. A dial ends at
// deadline, when not zero.
func (t *Transport) getConn(ctx context.Context, scheme, addr string, trace Tracer, deadline time.Time) (*conn, httptrace.GotConnInfo, error) {
	key := scheme + "://" + addr
	if !t.DisableKeepAlives {
		if c, idle := t.getIdle(key); c != nil {
			c.watch(ctx)
			return c, httptrace.GotConnInfo{Conn: c.nc, Reused: true, WasIdle: true, IdleTime: idle}, nil
		}
	}
	c, err := t.dial(ctx, scheme, addr, trace, deadline)
	if err != nil {
		return nil, httptrace.GotConnInfo{}, err
	}
	c.key = key
	return c, httptrace.GotConnInfo{Conn: c.nc}, nil
}

// dial opens a new connection to addr, with a TLS handshake for https,
// watching ctx from the moment the TCP connection exists. Both end at
// deadline, when not zero. The dialer reports its events to trace
// (withDialTrace).
func (t *Transport) dial(ctx context.Context, scheme, addr string, trace Tracer, deadline time.Time) (*conn, error) {
	dial := t.DialContext
	if dial == nil {
		dial = defaultDialer.DialContext
	}
	dctx := withDialTrace(ctx, trace)
	if !deadline.IsZero() {
		var cancel context.CancelFunc
		dctx, cancel = context.WithDeadline(dctx, deadline)
		defer cancel()
	}
	nc, err := dial(dctx, "tcp", addr)
	if err != nil {
		if dctx.Err() != nil && ctx.Err() == nil {
			return nil, fmt.Errorf("%w (%w)", err, os.ErrDeadlineExceeded)
		}
		return nil, err
	}
	c := &conn{nc: nc}
	c.watch(ctx)
	if scheme == "https" {
		if err := t.handshake(c, addr, trace, deadline); err != nil {
			c.unwatch()
			c.nc.Close()
			return nil, err
		}
	}
	c.lr = newLazyReader(c.nc, t.readBufferSize())
	c.br = bufio.NewReaderSize(c.lr, lineBufferSize)
	return c, nil
}

// handshake replaces c.nc by a TLS client connection over it and runs the
// handshake on the caller's goroutine (tls.Conn.HandshakeContext would
// start one to watch the context; the connection's watch does that here).
func (t *Transport) handshake(c *conn, addr string, trace Tracer, deadline time.Time) error {
	var cfg *tls.Config
	if t.TLSClientConfig != nil {
		cfg = t.TLSClientConfig.Clone()
	} else {
		cfg = &tls.Config{}
	}
	if cfg.ServerName == "" {
		host, _, _ := net.SplitHostPort(addr)
		cfg.ServerName = host
	}
	cfg.NextProtos = []string{"http/1.1"}
	tc := tls.Client(c.nc, cfg)
	if trace != nil {
		trace.TLSHandshakeStart()
	}
	if t.TLSHandshakeTimeout > 0 {
		deadline = earlier(deadline, time.Now().Add(t.TLSHandshakeTimeout))
	}
	if !deadline.IsZero() {
		c.setDeadline(deadline)
	}
	err := tc.Handshake()
	if !deadline.IsZero() {
		c.setDeadline(time.Time{}) // RoundTrip sets the request's
	}
	if err == nil {
		if p := tc.ConnectionState().NegotiatedProtocol; p != "" && p != "http/1.1" {
			err = fmt.Errorf("server negotiated protocol %q", p)
		}
	}
	if trace != nil {
		trace.TLSHandshakeDone(tc.ConnectionState(), err)
	}
	if err != nil {
		return fmt.Errorf("tls handshake: %w", err)
	}
	c.mu.Lock() // abort may read c.nc meanwhile
	c.nc = tc
	c.mu.Unlock()
	return nil
}

// Write buffers are pooled by size, across transports: a transport per
// session (sticky sessions) must not hold buffers of its own.
var writers sync.Map // size → *sync.Pool of *bufio.Writer

func poolOf(m *sync.Map, size int) *sync.Pool {
	if p, ok := m.Load(size); ok {
		return p.(*sync.Pool)
	}
	p, _ := m.LoadOrStore(size, &sync.Pool{})
	return p.(*sync.Pool)
}

// getWriter returns a write buffer of size bytes over nc.
func getWriter(nc net.Conn, size int) *bufio.Writer {
	if bw, ok := poolOf(&writers, size).Get().(*bufio.Writer); ok {
		bw.Reset(nc)
		return bw
	}
	return bufio.NewWriterSize(nc, size)
}

// putWriter returns bw to its pool; the caller no longer uses it.
func putWriter(bw *bufio.Writer) {
	size := bw.Size()
	bw.Reset(nil)
	poolOf(&writers, size).Put(bw)
}
