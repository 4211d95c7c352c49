package runner

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync"
	"sync/atomic"

	"github.com/aiperf-go/aiperf/export"
	"github.com/aiperf-go/aiperf/internal/h1"
	"github.com/aiperf-go/aiperf/record"
)

// This file collects the HTTP trace of a request (record.HTTPTrace, the
// http_req_* metrics of reference §2.3) when --show-trace-timing or
// --export-http-trace is given, and in every --output-schema 1.4 run, as
// AIPerf 0.13 computes these metrics by default. The tracer is an
// h1.Tracer, one context value: the run's transport calls its methods, and
// builds the dialer's ClientTrace only when it dials; another transport
// gets a ClientTrace of closures per request (tracer.context). A request
// waiting for its response holds its tracer (288 bytes) and its
// connection's countingConn more than an untraced one, about 320 bytes
// (BenchmarkStreamHeap); a tracer is recycled after a request on a
// kept-alive connection, which then allocates only the record's copy of
// the trace more (BenchmarkSend). A connection read or write costs a few
// atomic additions; an SSE event nothing.

// traceHTTP reports whether a run with cfg collects HTTP traces and
// computes the http_req_* metrics.
func traceHTTP(cfg *Config) bool {
	return cfg.ShowTraceTiming || cfg.ExportHTTPTrace || cfg.OutputSchema == export.Schema14
}

// countsConns reports whether a connection dialed with ctx counts its
// bytes: it is dialed for a request a tracer traces (see newTransport).
func countsConns(ctx context.Context) bool {
	_, ok := h1.ContextTracer(ctx).(*tracer)
	return ok
}

// readsTracer reports whether rt reports a request's events to the
// h1.Tracer of its context: the run's own transport, alone or under the
// sticky sessions' routing.
func readsTracer(rt http.RoundTripper) bool {
	switch t := rt.(type) {
	case *h1.Transport:
		return true
	case *hookTransport:
		return readsTracer(t.base)
	}
	return false
}

// countingConn is a connection that adds the bytes and the reads and writes
// going through it to the tracer of the request it currently serves. An
// HTTP/1 connection serves one request at a time, and a request's bytes
// cross it between its GotConn and the end of its response, so each byte
// goes to the right request without any snapshot of the counters.
type countingConn struct {
	net.Conn
	owner atomic.Pointer[tracer]
}

var _ h1.ObservedConn = (*countingConn)(nil)

// Read reads from the connection and counts what it read.
func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.ObserveRead(n)
	}
	return n, err
}

// NetConn returns the counted connection: h1 reads a TCP one through its
// file descriptor, so that a waiting stream holds no read buffer, and
// reports each read to ObserveRead (h1.ObservedConn).
func (c *countingConn) NetConn() net.Conn { return c.Conn }

// ObserveRead counts one read of n bytes.
func (c *countingConn) ObserveRead(n int) {
	if tr := c.owner.Load(); tr != nil {
		tr.received.Add(int64(n))
		tr.reads.Add(1)
	}
}

// Write writes to the connection and counts what it wrote.
func (c *countingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if n > 0 {
		if tr := c.owner.Load(); tr != nil {
			tr.sent.Add(int64(n))
			tr.writes.Add(1)
		}
	}
	return n, err
}

// reuseWatch watches an untraced request for the one event send needs:
// whether its connection was reused (GotConn).
type reuseWatch struct {
	h1.NopTracer
	reused bool
}

// GotConn notes whether the connection was reused.
func (w *reuseWatch) GotConn(info httptrace.GotConnInfo) { w.reused = info.Reused }

// context returns ctx carrying w for a request sent through rt: an
// h1.Tracer for the run's transport, a ClientTrace for another.
func (w *reuseWatch) context(ctx context.Context, rt http.RoundTripper) context.Context {
	if readsTracer(rt) {
		return h1.WithTracer(ctx, w)
	}
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: w.GotConn})
}

// tracer collects one request's trace; its methods are the hooks, each
// stamping the event it is named after (h1.Tracer). The run's transport
// (h1) calls them on the sending goroutine, but an injected one may call
// them on its own goroutines, even after the request ended (net/http lets
// a dial finish for the pool's sake), and so may the dialer's Happy
// Eyeballs race for the connect attempt that lost: mu guards t against
// that, and done turns the hooks off once send has taken the trace. Every
// time comes from the run's clock.
type tracer struct {
	h1.NopTracer // PutIdleConn, Got100Continue and Got1xxResponse

	clock *record.Clock

	mu   sync.Mutex
	done bool
	t    record.HTTPTrace
	conn *countingConn // the request's connection when the runner dialed it

	// Bytes and connection reads/writes, added by countingConn.
	sent, received, writes, reads atomic.Int64

	// body wraps the response body; headersNS is when client.Do returned.
	// Only the sending goroutine touches them.
	body      tracedBody
	headersNS int64
}

var _ h1.Tracer = (*tracer)(nil)

// tracers holds tracers for reuse (see finish), which a 1.4 run (traced
// throughout) would otherwise allocate for every request.
var tracers = sync.Pool{New: func() any { return new(tracer) }}

// newTracer returns a tracer whose hooks stamp times with clock.
func newTracer(clock *record.Clock) *tracer {
	tr := tracers.Get().(*tracer)
	tr.clock, tr.body.clock = clock, clock
	return tr
}

// context returns ctx carrying the tracer for a request sent through rt,
// and asking for counted connections (countsConns): one value for the
// run's transport; another gets a ClientTrace as well.
func (tr *tracer) context(ctx context.Context, rt http.RoundTripper) context.Context {
	ctx = h1.WithTracer(ctx, tr)
	if !readsTracer(rt) {
		ctx = httptrace.WithClientTrace(ctx, tr.clientTrace())
	}
	return ctx
}

// The hooks that stamp an event (h1.Tracer): the request's, on the
// sending goroutine, and the dial's (dial: true), which count only before
// the request has its connection (stamp).

// GetConn stamps the request asking for a connection.
func (tr *tracer) GetConn(string) { tr.stamp(&tr.t.GetConnNS, false) }

// DNSStart stamps the start of a dial's host name lookup.
func (tr *tracer) DNSStart(httptrace.DNSStartInfo) { tr.stamp(&tr.t.DNSStartNS, true) }

// DNSDone stamps the end of a successful lookup.
func (tr *tracer) DNSDone(info httptrace.DNSDoneInfo) {
	if info.Err == nil {
		tr.stamp(&tr.t.DNSDoneNS, true)
	}
}

// ConnectStart stamps the first TCP connect attempt.
func (tr *tracer) ConnectStart(string, string) { tr.stamp(&tr.t.ConnectStartNS, true) }

// ConnectDone stamps the first successful connect attempt.
func (tr *tracer) ConnectDone(_, _ string, err error) {
	if err == nil {
		tr.stamp(&tr.t.ConnectDoneNS, true)
	}
}

// TLSHandshakeStart stamps the start of the TLS handshake.
func (tr *tracer) TLSHandshakeStart() { tr.stamp(&tr.t.TLSStartNS, true) }

// TLSHandshakeDone stamps the end of a successful handshake.
func (tr *tracer) TLSHandshakeDone(_ tls.ConnectionState, err error) {
	if err == nil {
		tr.stamp(&tr.t.TLSDoneNS, true)
	}
}

// WroteHeaders stamps the request's headers written.
func (tr *tracer) WroteHeaders() { tr.stamp(&tr.t.WroteHeadersNS, false) }

// WroteRequest stamps the whole request written, unless writing failed.
func (tr *tracer) WroteRequest(info httptrace.WroteRequestInfo) {
	if info.Err == nil {
		tr.stamp(&tr.t.WroteRequestNS, false)
	}
}

// GotFirstResponseByte stamps the first byte of the response.
func (tr *tracer) GotFirstResponseByte() { tr.stamp(&tr.t.FirstByteNS, false) }

// clientTrace returns the hooks as an httptrace.ClientTrace, for a
// transport other than the run's own (tracer.context): 11 closures, built
// per request.
func (tr *tracer) clientTrace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		GetConn:              tr.GetConn,
		GotConn:              tr.GotConn,
		DNSStart:             tr.DNSStart,
		DNSDone:              tr.DNSDone,
		ConnectStart:         tr.ConnectStart,
		ConnectDone:          tr.ConnectDone,
		TLSHandshakeStart:    tr.TLSHandshakeStart,
		TLSHandshakeDone:     tr.TLSHandshakeDone,
		WroteHeaders:         tr.WroteHeaders,
		WroteRequest:         tr.WroteRequest,
		GotFirstResponseByte: tr.GotFirstResponseByte,
	}
}

// stamp sets *field to now unless it is set or the trace is taken. A dial
// event (dial) only counts before the request has its connection.
func (tr *tracer) stamp(field *int64, dial bool) {
	now := tr.clock.Now()
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.done || *field != 0 || (dial && tr.t.GotConnNS != 0) {
		return
	}
	*field = now
}

// GotConn stamps the connection, whether it was reused, and makes it count
// for this request when the runner dialed it (countingConn).
func (tr *tracer) GotConn(info httptrace.GotConnInfo) {
	now := tr.clock.Now()
	c, _ := info.Conn.(*countingConn)
	if nc, ok := info.Conn.(interface{ NetConn() net.Conn }); c == nil && ok {
		c, _ = nc.NetConn().(*countingConn) // https: the TLS conn wraps ours
	}
	if c != nil {
		c.owner.Store(tr)
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.done {
		return
	}
	tr.t.GotConnNS, tr.t.Reused, tr.conn = now, info.Reused, c
}

// reused reports whether the current attempt got a kept-alive connection.
func (tr *tracer) reused() bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.t.Reused
}

// reset forgets a failed attempt before the request is sent again.
func (tr *tracer) reset() {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.conn != nil {
		tr.conn.owner.CompareAndSwap(tr, nil)
	}
	tr.t, tr.conn = record.HTTPTrace{}, nil
	tr.sent.Store(0)
	tr.received.Store(0)
	tr.writes.Store(0)
	tr.reads.Store(0)
	tr.body = tracedBody{clock: tr.clock}
	tr.headersNS = 0
}

// gotHeaders stamps the end of the response headers (client.Do returned)
// and returns the body to read instead of r.
func (tr *tracer) gotHeaders(r io.Reader) io.Reader {
	if tr == nil {
		return r
	}
	tr.headersNS = tr.clock.Now()
	tr.body.r = r
	return &tr.body
}

// endBody stamps the end of the body if reading stopped before its end.
func (tr *tracer) endBody() {
	if tr != nil && tr.body.startNS != 0 && tr.body.endNS == 0 {
		tr.body.endNS = tr.clock.Now()
	}
}

// finish turns the hooks off and stores the trace in rec. It is safe to
// call more than once and on a nil tracer, but not after a call that
// recycled the tracer.
//
// A request that reused a connection the run's own transport dialed
// (tr.conn is set only for those) had all its hooks called before
// client.Do returned, on the sending goroutine, and dialed nothing whose
// hooks could come late: its tracer goes back to tracers, and rec gets a
// copy of the trace. Any other tracer is left to the collector, and rec
// shares its trace.
func (tr *tracer) finish(rec *record.Record) {
	if tr == nil {
		return
	}
	tr.endBody()
	tr.mu.Lock()
	if tr.done {
		tr.mu.Unlock()
		return
	}
	tr.done = true
	t := &tr.t
	t.HeadersNS, t.BodyStartNS, t.BodyEndNS = tr.headersNS, tr.body.startNS, tr.body.endNS
	if tr.conn != nil {
		t.Counted = true
		t.BytesSent, t.BytesReceived = tr.sent.Load(), tr.received.Load()
		t.ChunksSent, t.ChunksReceived = tr.writes.Load(), tr.reads.Load()
	}
	recycle := tr.conn != nil && t.Reused
	switch {
	case t.GetConnNS == 0: // the request never reached the transport
	case recycle:
		cp := *t
		rec.HTTPTrace = &cp
	default:
		// t is never written again (done), so the record may share it.
		rec.HTTPTrace = t
	}
	tr.mu.Unlock()
	if recycle {
		tr.reset() // also frees the connection
		tr.mu.Lock()
		tr.done, tr.clock, tr.body.clock = false, nil, nil
		tr.mu.Unlock()
		tracers.Put(tr)
	}
}

// tracedBody stamps the first and the last read of a response body.
type tracedBody struct {
	r              io.Reader
	clock          *record.Clock
	startNS, endNS int64
}

// Read reads from the body, stamping its first bytes and its end.
func (b *tracedBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if n > 0 && b.startNS == 0 {
		b.startNS = b.clock.Now()
	}
	if err != nil && b.endNS == 0 && b.startNS != 0 {
		b.endNS = b.clock.Now()
	}
	return n, err
}
