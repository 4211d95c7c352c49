// Package h1 is a lean HTTP/1.1 client transport for many long-lived
// streams. Unlike net/http's Transport, which runs a read and a write
// goroutine per connection and keeps a reader and a writer buffer on each,
// it runs no goroutine of its own: a request is written and its response
// read on the caller's goroutine. Read and write buffers are pooled, and a
// connection holds a read buffer only while bytes it read wait to be
// consumed, so a stream waiting for its next event costs its goroutine and
// a few hundred bytes. Context cancellation sets the connection's deadline
// in the past (context.AfterFunc) instead of waiting on the context in a
// goroutine.
//
// It speaks HTTP/1.1 only, over TCP or TLS, without proxies, compression
// or connection limits: the caller bounds its concurrency itself.
package h1

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/textproto"
	"strings"
	"time"
)

// Defaults of the Transport's options.
const (
	// DefaultMaxIdleConnsPerHost is used when MaxIdleConnsPerHost is 0.
	DefaultMaxIdleConnsPerHost = 2
	// DefaultReadBufferSize is used when ReadBufferSize is 0.
	DefaultReadBufferSize = 4 << 10
	// DefaultWriteBufferSize is used when WriteBufferSize is 0.
	DefaultWriteBufferSize = 4 << 10
)

// Transport is an http.RoundTripper for http:// and https:// URLs over
// HTTP/1.1. RoundTrip runs on the caller's goroutine and returns when the
// response headers are read; the response body reads from the connection
// directly. Reading the body to its end returns the connection to the idle
// pool (when neither side asked to close it); closing the body before its
// end closes the connection, so an endless stream is never drained.
//
// Its options are read at each use and must not change once it serves
// requests. The zero Transport is ready to use; a Transport is safe for
// concurrent use and must not be copied after first use.
type Transport struct {
	// DialContext dials a TCP connection. nil uses a net.Dialer with a 30 s
	// timeout and 30 s TCP keep-alives. The request's context reaches it,
	// so httptrace's DNS and Connect hooks come from the dialer; for a
	// request traced by a Tracer (WithTracer) the context also carries a
	// ClientTrace forwarding those events to it.
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)

	// TLSClientConfig configures https connections (cloned per dial; its
	// NextProtos are replaced by "http/1.1"). nil uses the zero config.
	TLSClientConfig *tls.Config

	// TLSHandshakeTimeout bounds a TLS handshake; 0 means no bound other
	// than the request's context.
	TLSHandshakeTimeout time.Duration

	// DisableKeepAlives sends every request with "Connection: close" on a
	// new connection, closed when its response ends.
	DisableKeepAlives bool

	// MaxIdleConnsPerHost bounds the idle connections kept per scheme and
	// host; 0 means DefaultMaxIdleConnsPerHost, a negative value keeps
	// none. The number of connections in use is not bounded.
	MaxIdleConnsPerHost int

	// IdleConnTimeout is how long an idle connection may be reused; older
	// ones are closed when next looked at. 0 means no limit.
	IdleConnTimeout time.Duration

	// ReadBufferSize is the size of the buffer a connection reads into.
	// Buffers are pooled, and a connection holds one only while bytes it
	// read wait to be consumed: on plain TCP a stream waiting for data
	// holds none (see lazyReader). 0 means DefaultReadBufferSize.
	ReadBufferSize int

	// WriteBufferSize is the size of the buffer a request is written
	// through; buffers are pooled across requests and transports, so it
	// costs memory per concurrent write, not per connection. 0 means
	// DefaultWriteBufferSize.
	WriteBufferSize int

	idle pool
}

var _ http.RoundTripper = (*Transport)(nil)

var defaultDialer = &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}

// RoundTrip sends req and reads the response headers. It blocks until they
// arrive, the request fails or req's context ends; an error caused by the
// context wraps the context's error. It always closes req.Body, and never
// modifies req. The caller must read the response body to its end or close
// it.
//
// A request that fails on a reused connection before any response byte
// arrived returns the connection's error (io.EOF, ECONNRESET or EPIPE when
// the server had closed it); the request may be sent again.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	var x Exchange
	if err := t.Send(&x, req); err != nil {
		return nil, err
	}
	return x.Head()
}

// Exchange is a request written on its connection whose response head is
// still to be read (Transport.Send).
type Exchange struct {
	t     *Transport
	ctx   context.Context
	c     *conn
	req   *http.Request
	trace Tracer
}

// Send writes req on a connection and sets x to its exchange, whose Head
// reads the response's head: RoundTrip is Send then Head, with the same
// errors and contract, split so that a caller may wait for the response
// (WouldBlock, Wait) on a goroutine of its choice. The caller owns x (a
// request's state may hold it: nothing is allocated for it) and must call
// Head once, on one goroutine at a time with WouldBlock and Wait.
func (t *Transport) Send(x *Exchange, req *http.Request) error {
	scheme, addr, err := target(req)
	if err != nil {
		closeBody(req)
		return err
	}
	ctx := req.Context()
	if err := ctx.Err(); err != nil {
		closeBody(req)
		return fmt.Errorf("h1: %w", err)
	}
	deadline := requestDeadline(ctx)
	if !deadline.IsZero() && !time.Now().Before(deadline) {
		closeBody(req)
		return errDeadline
	}
	trace := contextTracer(ctx)
	if trace != nil {
		trace.GetConn(addr)
	}
	c, info, err := t.getConn(ctx, scheme, addr, trace, deadline)
	if err != nil {
		closeBody(req)
		return ctxErr(ctx, "dial", err)
	}
	if trace != nil {
		trace.GotConn(info)
	}
	if !deadline.IsZero() {
		c.deadline = deadline
		c.setDeadline(deadline)
	}
	*x = Exchange{t: t, ctx: ctx, c: c, req: req, trace: trace}
	if err := x.write(); err != nil {
		c.unwatch()
		c.close()
		return err
	}
	return nil
}

// Head reads the response's head, as RoundTrip does after writing the
// request: it blocks until the head arrives, the request fails or its
// context ends.
func (x *Exchange) Head() (*http.Response, error) {
	resp, err := x.readHead()
	if err != nil {
		x.c.unwatch()
		x.c.close()
		return nil, err
	}
	return resp, nil
}

// WouldBlock reports whether Head would wait for the connection (see
// body.WouldBlock). A body's ReadByWait tells whether the bytes read last,
// the head's among them, were read by the exchange's Wait.
func (x *Exchange) WouldBlock() bool { return x.c.wouldBlock(false) }

// Wait blocks until the connection has data, fails or passes its
// deadline, and reads what came (see body.Wait).
func (x *Exchange) Wait() (read bool) { return x.c.wait(false) }

// write writes the request on the exchange's connection. On error the
// caller closes it.
func (x *Exchange) write() error {
	t, c, req, trace := x.t, x.c, x.req, x.trace
	out := req
	if t.DisableKeepAlives && !req.Close {
		out = closing(req)
	}
	// Request.Write (and writeRequest, its fast path) calls the
	// WroteHeaders and WroteRequest hooks and closes the body.
	w := getWriter(c.nc, t.writeBufferSize())
	fast, err := writeRequest(w, out, trace)
	if !fast {
		err = withWriteTrace(out, trace).Write(w)
	}
	if err == nil {
		err = w.Flush()
	}
	putWriter(w)
	if err != nil {
		return ctxErr(x.ctx, "writing request", err)
	}
	return nil
}

// readHead reads the response headers. On error the caller closes the
// connection.
func (x *Exchange) readHead() (*http.Response, error) {
	t, ctx, c, req, trace := x.t, x.ctx, x.c, x.req, x.trace
	if _, err := c.br.Peek(1); err != nil {
		return nil, ctxErr(ctx, "reading response", err)
	}
	if trace != nil {
		trace.GotFirstResponseByte()
	}
	var resp *http.Response
	var err error
	for {
		resp, err = http.ReadResponse(c.br, req)
		if err != nil {
			return nil, ctxErr(ctx, "reading response", err)
		}
		code := resp.StatusCode
		if code < 100 || code > 199 || code == http.StatusSwitchingProtocols {
			break
		}
		if trace != nil && code == http.StatusContinue {
			trace.Got100Continue()
		}
		if trace != nil {
			if err := trace.Got1xxResponse(code, textproto.MIMEHeader(resp.Header)); err != nil {
				return nil, err
			}
		}
	}

	if tc, ok := c.nc.(*tls.Conn); ok {
		resp.TLS = tlsState(tc)
	}
	keep := !t.DisableKeepAlives && !resp.Close && !wantsClose(req) &&
		resp.StatusCode != http.StatusSwitchingProtocols
	if resp.Body == http.NoBody {
		t.release(c, keep, trace)
		return resp, nil
	}
	chunked := len(resp.TransferEncoding) > 0 && resp.TransferEncoding[0] == "chunked"
	resp.Body = &body{rc: resp.Body, t: t, c: c, ctx: ctx, keep: keep, chunked: chunked}
	return resp, nil
}

// closing returns a copy of req marked Close (Request.Write then sends
// "Connection: close"). It and tlsState keep their large values out of
// exchange's frame, which every request's goroutine stack holds while it
// reads the response head (issue 19: a stream's stack stays 4 KiB).
//
//go:noinline
func closing(req *http.Request) *http.Request {
	r := *req
	r.Close = true
	return &r
}

// tlsState returns the connection state of tc.
//
//go:noinline
func tlsState(tc *tls.Conn) *tls.ConnectionState {
	st := tc.ConnectionState()
	return &st
}

// release ends c's use by a request whose response was read to its end:
// back to the idle pool if keep and the request's context did not fire,
// closed otherwise.
func (t *Transport) release(c *conn, keep bool, trace Tracer) {
	if !c.unwatch() || !keep {
		c.close()
		return
	}
	if !c.deadline.IsZero() {
		c.deadline = time.Time{}
		c.setDeadline(time.Time{})
	}
	err := t.putIdle(c)
	if trace != nil {
		trace.PutIdleConn(err)
	}
	if err != nil {
		c.close()
	}
}

// CloseIdleConnections closes the connections kept idle. Connections in
// use are not affected; they may become idle afterwards.
func (t *Transport) CloseIdleConnections() {
	t.idle.closeAll()
}

// target returns the scheme and the host:port req goes to.
func target(req *http.Request) (scheme, addr string, err error) {
	if req.URL == nil {
		return "", "", errors.New("h1: request has no URL")
	}
	scheme = req.URL.Scheme
	var port string
	switch scheme {
	case "http":
		port = "80"
	case "https":
		port = "443"
	default:
		return "", "", fmt.Errorf("h1: unsupported protocol scheme %q", scheme)
	}
	host := req.URL.Hostname()
	if host == "" {
		return "", "", fmt.Errorf("h1: no host in request URL %q", req.URL.Redacted())
	}
	if p := req.URL.Port(); p != "" {
		port = p
	}
	return scheme, net.JoinHostPort(host, port), nil
}

// wantsClose reports whether req asks the server to close the connection.
func wantsClose(req *http.Request) bool {
	if req.Close {
		return true
	}
	for _, v := range req.Header["Connection"] {
		for tok := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(tok), "close") {
				return true
			}
		}
	}
	return false
}

// closeBody closes req's body, as a RoundTripper must even on failure.
func closeBody(req *http.Request) {
	if req.Body != nil {
		req.Body.Close()
	}
}

// ctxErr returns the context's error when ctx ended (the connection's
// deadline, set in the past, caused err), or err with op for context.
func ctxErr(ctx context.Context, op string, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("h1: %s: %w", op, cerr)
	}
	return fmt.Errorf("h1: %s: %w", op, err)
}

func (t *Transport) readBufferSize() int {
	if t.ReadBufferSize > 0 {
		return t.ReadBufferSize
	}
	return DefaultReadBufferSize
}

func (t *Transport) writeBufferSize() int {
	if t.WriteBufferSize > 0 {
		return t.WriteBufferSize
	}
	return DefaultWriteBufferSize
}

func (t *Transport) maxIdle() int {
	if t.MaxIdleConnsPerHost == 0 {
		return DefaultMaxIdleConnsPerHost
	}
	return t.MaxIdleConnsPerHost
}
