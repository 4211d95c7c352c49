package h1

import (
	"crypto/tls"
	"net/http/httptrace"
	"net/textproto"
)

// clientTrace is a Tracer calling the hooks of an httptrace.ClientTrace
// (nil ones are skipped): the Transport serves the contexts of
// httptrace.WithClientTrace through it. A struct of one pointer, it goes
// into a Tracer without an allocation. The dialer and Request.Write find
// the ClientTrace in the context themselves, so the Transport wraps
// neither a dial's context nor a written request's for it (withDialTrace,
// withWriteTrace), and a WroteHeaderField hook sends the request through
// Request.Write (writeRequest).
type clientTrace struct{ ct *httptrace.ClientTrace }

var _ Tracer = clientTrace{}

func (c clientTrace) GetConn(hostPort string) {
	if f := c.ct.GetConn; f != nil {
		f(hostPort)
	}
}

func (c clientTrace) GotConn(info httptrace.GotConnInfo) {
	if f := c.ct.GotConn; f != nil {
		f(info)
	}
}

func (c clientTrace) PutIdleConn(err error) {
	if f := c.ct.PutIdleConn; f != nil {
		f(err)
	}
}

func (c clientTrace) GotFirstResponseByte() {
	if f := c.ct.GotFirstResponseByte; f != nil {
		f()
	}
}

func (c clientTrace) Got100Continue() {
	if f := c.ct.Got100Continue; f != nil {
		f()
	}
}

func (c clientTrace) Got1xxResponse(code int, header textproto.MIMEHeader) error {
	if f := c.ct.Got1xxResponse; f != nil {
		return f(code, header)
	}
	return nil
}

func (c clientTrace) DNSStart(info httptrace.DNSStartInfo) {
	if f := c.ct.DNSStart; f != nil {
		f(info)
	}
}

func (c clientTrace) DNSDone(info httptrace.DNSDoneInfo) {
	if f := c.ct.DNSDone; f != nil {
		f(info)
	}
}

func (c clientTrace) ConnectStart(network, addr string) {
	if f := c.ct.ConnectStart; f != nil {
		f(network, addr)
	}
}

func (c clientTrace) ConnectDone(network, addr string, err error) {
	if f := c.ct.ConnectDone; f != nil {
		f(network, addr, err)
	}
}

func (c clientTrace) TLSHandshakeStart() {
	if f := c.ct.TLSHandshakeStart; f != nil {
		f()
	}
}

func (c clientTrace) TLSHandshakeDone(state tls.ConnectionState, err error) {
	if f := c.ct.TLSHandshakeDone; f != nil {
		f(state, err)
	}
}

func (c clientTrace) WroteHeaders() {
	if f := c.ct.WroteHeaders; f != nil {
		f()
	}
}

func (c clientTrace) WroteRequest(info httptrace.WroteRequestInfo) {
	if f := c.ct.WroteRequest; f != nil {
		f(info)
	}
}

// fromContext reports whether trace is a ClientTrace of the request's
// context, which the dialer and Request.Write call themselves.
func fromContext(trace Tracer) bool {
	_, ok := trace.(clientTrace)
	return ok
}

// wantsHeaderFields reports whether trace is a ClientTrace with a
// WroteHeaderField hook, which only Request.Write calls.
func wantsHeaderFields(trace Tracer) bool {
	c, ok := trace.(clientTrace)
	return ok && c.ct.WroteHeaderField != nil
}
