package h1

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
)

// Tracer receives the events of a request's trip through the Transport:
// each method is called where, and with what, the httptrace.ClientTrace
// hook of the same name would be, on the goroutine calling RoundTrip or
// reading the body (PutIdleConn), except the dial's DNS and Connect events,
// which net.Dialer reports on goroutines of its own, possibly after the
// dial returned (the losing attempt of a Happy Eyeballs race).
//
// Unlike a ClientTrace, a Tracer is one value in the request's context
// (WithTracer): a traced request costs no closures and no nettrace; h1
// hands the dialer a ClientTrace forwarding to the Tracer only when it
// dials, once per connection. Embed NopTracer to implement only some
// methods.
type Tracer interface {
	// GetConn: before a connection to hostPort is looked for.
	GetConn(hostPort string)
	// GotConn: the request has its connection, idle or new.
	GotConn(info httptrace.GotConnInfo)
	// PutIdleConn: the connection went back to the idle pool (nil) or
	// could not (why); not called when it is closed instead.
	PutIdleConn(err error)
	// GotFirstResponseByte: the first byte of the response arrived.
	GotFirstResponseByte()
	// Got100Continue: the server answered "100 Continue".
	Got100Continue()
	// Got1xxResponse: an informational response before the final one; a
	// non-nil error aborts the request with it.
	Got1xxResponse(code int, header textproto.MIMEHeader) error
	// DNSStart and DNSDone bound a dial's host name lookup.
	DNSStart(info httptrace.DNSStartInfo)
	DNSDone(info httptrace.DNSDoneInfo)
	// ConnectStart and ConnectDone bound each TCP connect attempt of a
	// dial.
	ConnectStart(network, addr string)
	ConnectDone(network, addr string, err error)
	// TLSHandshakeStart and TLSHandshakeDone bound an https dial's
	// handshake.
	TLSHandshakeStart()
	TLSHandshakeDone(state tls.ConnectionState, err error)
	// WroteHeaders: the request's headers are written (buffered).
	WroteHeaders()
	// WroteRequest: the whole request is written (buffered), or failed.
	WroteRequest(info httptrace.WroteRequestInfo)
}

// NopTracer is a Tracer whose methods do nothing; Got1xxResponse returns
// nil. Embed it to implement a Tracer's few methods of interest.
type NopTracer struct{}

// GetConn does nothing.
func (NopTracer) GetConn(string) {}

// GotConn does nothing.
func (NopTracer) GotConn(httptrace.GotConnInfo) {}

// PutIdleConn does nothing.
func (NopTracer) PutIdleConn(error) {}

// GotFirstResponseByte does nothing.
func (NopTracer) GotFirstResponseByte() {}

// Got100Continue does nothing.
func (NopTracer) Got100Continue() {}

// Got1xxResponse does nothing and returns nil.
func (NopTracer) Got1xxResponse(int, textproto.MIMEHeader) error { return nil }

// DNSStart does nothing.
func (NopTracer) DNSStart(httptrace.DNSStartInfo) {}

// DNSDone does nothing.
func (NopTracer) DNSDone(httptrace.DNSDoneInfo) {}

// ConnectStart does nothing.
func (NopTracer) ConnectStart(string, string) {}

// ConnectDone does nothing.
func (NopTracer) ConnectDone(string, string, error) {}

// TLSHandshakeStart does nothing.
func (NopTracer) TLSHandshakeStart() {}

// TLSHandshakeDone does nothing.
func (NopTracer) TLSHandshakeDone(tls.ConnectionState, error) {}

// WroteHeaders does nothing.
func (NopTracer) WroteHeaders() {}

// WroteRequest does nothing.
func (NopTracer) WroteRequest(httptrace.WroteRequestInfo) {}

var _ Tracer = NopTracer{}

// tracerKey is the context key of WithTracer.
type tracerKey struct{}

// WithTracer returns ctx carrying t: the Transport reports the events of
// requests with this context to t, and to no ClientTrace the context may
// carry as well (the dialer still reports its DNS and Connect events to
// both). Other RoundTrippers ignore t. A nil t returns ctx.
func WithTracer(ctx context.Context, t Tracer) context.Context {
	if t == nil {
		return ctx
	}
	return context.WithValue(ctx, tracerKey{}, t)
}

// ContextTracer returns the Tracer WithTracer put in ctx, or nil. A
// DialContext sees it in the context of the dials it makes for a traced
// request.
func ContextTracer(ctx context.Context) Tracer {
	t, _ := ctx.Value(tracerKey{}).(Tracer)
	return t
}

// contextTracer returns whom the Transport reports ctx's request's events
// to: its Tracer, else its httptrace.ClientTrace (as a clientTrace), else
// nil.
func contextTracer(ctx context.Context) Tracer {
	if t := ContextTracer(ctx); t != nil {
		return t
	}
	if ct := httptrace.ContextClientTrace(ctx); ct != nil {
		return clientTrace{ct}
	}
	return nil
}

// withDialTrace returns the context to dial with for a request traced by
// trace: the dialer reports DNS and Connect events through the context's
// ClientTrace, so a Tracer gets one forwarding to it. A ClientTrace already
// is the context's.
func withDialTrace(ctx context.Context, trace Tracer) context.Context {
	if trace == nil || fromContext(trace) {
		return ctx
	}
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		DNSStart:     trace.DNSStart,
		DNSDone:      trace.DNSDone,
		ConnectStart: trace.ConnectStart,
		ConnectDone:  trace.ConnectDone,
	})
}

// withWriteTrace returns req to write with Request.Write, which reports
// WroteHeaders and WroteRequest to the ClientTrace of req's context: for a
// Tracer, a copy of req whose context has a ClientTrace forwarding those
// to it, and nothing else (Request.Write reads its context for nothing
// but the trace).
func withWriteTrace(req *http.Request, trace Tracer) *http.Request {
	if trace == nil || fromContext(trace) {
		return req
	}
	return req.WithContext(httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
		WroteHeaders: trace.WroteHeaders,
		WroteRequest: trace.WroteRequest,
	}))
}
