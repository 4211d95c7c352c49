package h1

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/textproto"
	"strings"
	"sync"
	"testing"
)

// eventLog records trace events in order, each as its name and, where the
// event carries one, its error or status code in parentheses.
type eventLog struct {
	mu     sync.Mutex
	events []string
	reused []bool // GotConn's Reused, per GotConn
}

func (l *eventLog) add(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, fmt.Sprintf(format, args...))
}

func (l *eventLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.events, " ")
}

// logTracer is a Tracer recording every event into its log.
type logTracer struct{ l *eventLog }

func (t logTracer) GetConn(string) { t.l.add("GetConn") }
func (t logTracer) GotConn(info httptrace.GotConnInfo) {
	t.l.mu.Lock()
	t.l.reused = append(t.l.reused, info.Reused)
	t.l.mu.Unlock()
	t.l.add("GotConn")
}
func (t logTracer) PutIdleConn(err error)                     { t.l.add("PutIdleConn(%v)", err) }
func (t logTracer) GotFirstResponseByte()                     { t.l.add("GotFirstResponseByte") }
func (t logTracer) Got100Continue()                           { t.l.add("Got100Continue") }
func (t logTracer) DNSStart(httptrace.DNSStartInfo)           { t.l.add("DNSStart") }
func (t logTracer) DNSDone(httptrace.DNSDoneInfo)             { t.l.add("DNSDone") }
func (t logTracer) ConnectStart(string, string)               { t.l.add("ConnectStart") }
func (t logTracer) ConnectDone(_, _ string, err error)        { t.l.add("ConnectDone(%v)", err) }
func (t logTracer) TLSHandshakeStart()                        { t.l.add("TLSHandshakeStart") }
func (t logTracer) WroteHeaders()                             { t.l.add("WroteHeaders") }
func (t logTracer) WroteRequest(i httptrace.WroteRequestInfo) { t.l.add("WroteRequest(%v)", i.Err) }
func (t logTracer) TLSHandshakeDone(_ tls.ConnectionState, err error) {
	t.l.add("TLSHandshakeDone(%v)", err)
}
func (t logTracer) Got1xxResponse(code int, _ textproto.MIMEHeader) error {
	t.l.add("Got1xxResponse(%d)", code)
	return nil
}

var _ Tracer = logTracer{}

// clientTraceOf returns a ClientTrace with every hook recording into l, as
// logTracer does.
func clientTraceOf(l *eventLog) *httptrace.ClientTrace {
	t := logTracer{l}
	return &httptrace.ClientTrace{
		GetConn: t.GetConn, GotConn: t.GotConn, PutIdleConn: t.PutIdleConn,
		GotFirstResponseByte: t.GotFirstResponseByte, Got100Continue: t.Got100Continue,
		Got1xxResponse: t.Got1xxResponse, DNSStart: t.DNSStart, DNSDone: t.DNSDone,
		ConnectStart: t.ConnectStart, ConnectDone: t.ConnectDone,
		TLSHandshakeStart: t.TLSHandshakeStart, TLSHandshakeDone: t.TLSHandshakeDone,
		WroteHeaders: t.WroteHeaders, WroteRequest: t.WroteRequest,
	}
}

// tracing is one way to trace a request: the context it gives l's events.
type tracing struct {
	name string
	ctx  func(context.Context, *eventLog) context.Context
}

var tracings = []tracing{
	{"Tracer", func(ctx context.Context, l *eventLog) context.Context { return WithTracer(ctx, logTracer{l}) }},
	{"ClientTrace", func(ctx context.Context, l *eventLog) context.Context {
		return httptrace.WithClientTrace(ctx, clientTraceOf(l))
	}},
}

// Event sequences, written out by hand from net/http's order: a request on
// a new connection, over TCP and over TLS, and on a reused one.
const (
	dialEvents  = "GetConn ConnectStart ConnectDone(<nil>) GotConn"
	tlsEvents   = "GetConn ConnectStart ConnectDone(<nil>) TLSHandshakeStart TLSHandshakeDone(<nil>) GotConn"
	reuseEvents = "GetConn GotConn"
	exchange    = " WroteHeaders WroteRequest(<nil>) GotFirstResponseByte PutIdleConn(<nil>)"
)

// TestTracerEvents: a request traced by a Tracer gets the events a
// ClientTrace gets, in the same order: the dial's (from the dialer, in the
// dial's context) and the handshake's on a new connection only, for GET
// (written by net/http) and POST (writeRequest), over http and https.
func TestTracerEvents(t *testing.T) {
	raw := startRaw(t, serveEach(okResp, false))
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		io.WriteString(w, "ok")
	}))
	defer tlsSrv.Close()
	tlsConfig := tlsSrv.Client().Transport.(*http.Transport).TLSClientConfig
	for _, tc := range tracings {
		for _, target := range []struct {
			url, first string
		}{{raw.url(), dialEvents}, {tlsSrv.URL, tlsEvents}} {
			for _, method := range []string{http.MethodGet, http.MethodPost} {
				var dialTracer Tracer
				tr := &Transport{TLSClientConfig: tlsConfig, DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
					dialTracer = ContextTracer(ctx)
					return defaultDialer.DialContext(ctx, network, addr)
				}}
				for i, want := range []string{target.first + exchange, reuseEvents + exchange} {
					l := &eventLog{}
					if err := send(tc.ctx(context.Background(), l), tr, method, target.url); err != nil {
						t.Fatalf("%s %s %s request %d: %v", tc.name, method, target.url, i, err)
					}
					if got := l.String(); got != want || len(l.reused) != 1 || l.reused[0] != (i == 1) {
						t.Errorf("%s %s %s request %d: reused %v, events\n got %s\nwant %s", tc.name, method, target.url, i, l.reused, got, want)
					}
				}
				if _, ok := dialTracer.(logTracer); ok != (tc.name == "Tracer") {
					t.Errorf("%s: the dial's context has Tracer %v", tc.name, dialTracer)
				}
				tr.CloseIdleConnections()
			}
		}
	}
}

// TestTracerInformational: 1xx responses before the final one are
// reported after the first byte, "100 Continue" by both its hooks.
func TestTracerInformational(t *testing.T) {
	srv := startRaw(t, serveEach("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"+okResp, false))
	want := dialEvents + " WroteHeaders WroteRequest(<nil>) GotFirstResponseByte" +
		" Got100Continue Got1xxResponse(100) Got1xxResponse(103) PutIdleConn(<nil>)"
	for _, tc := range tracings {
		tr := &Transport{}
		l := &eventLog{}
		if err := send(tc.ctx(context.Background(), l), tr, http.MethodPost, srv.url()); err != nil {
			t.Fatal(err)
		}
		if got := l.String(); got != want {
			t.Errorf("%s events\n got %s\nwant %s", tc.name, got, want)
		}
		tr.CloseIdleConnections()
	}
}

// TestTracerDNS: a host name's lookup is reported to a Tracer, before the
// connection.
func TestTracerDNS(t *testing.T) {
	if _, err := net.LookupHost("localhost"); err != nil {
		t.Skip("localhost does not resolve here")
	}
	srv := startRaw(t, serveEach(okResp, false))
	_, port, _ := net.SplitHostPort(srv.ln.Addr().String())
	for _, tc := range tracings {
		tr := &Transport{}
		l := &eventLog{}
		if err := send(tc.ctx(context.Background(), l), tr, http.MethodGet, "http://localhost:"+port); err != nil {
			t.Fatal(err)
		}
		// localhost may resolve to ::1 first, where nothing listens: any
		// failed connect attempts come between the lookup and the
		// successful one.
		got := l.String()
		if !strings.HasPrefix(got, "GetConn DNSStart DNSDone ConnectStart") ||
			!strings.HasSuffix(got, "ConnectDone(<nil>) GotConn"+exchange) {
			t.Errorf("%s events: %s", tc.name, got)
		}
		tr.CloseIdleConnections()
	}
}

// TestContextTracer: WithTracer puts a Tracer in a context and
// ContextTracer gives it back; a ClientTrace is none; a nil Tracer leaves
// the context as it is.
func TestContextTracer(t *testing.T) {
	l := &eventLog{}
	if got := ContextTracer(WithTracer(context.Background(), logTracer{l})); got != (logTracer{l}) {
		t.Errorf("ContextTracer = %v", got)
	}
	if got := ContextTracer(httptrace.WithClientTrace(context.Background(), clientTraceOf(l))); got != nil {
		t.Errorf("ContextTracer of a ClientTrace = %v, want nil", got)
	}
	if ctx := context.Background(); WithTracer(ctx, nil) != ctx {
		t.Error("WithTracer(ctx, nil) is not ctx")
	}
}

// send sends a request of method (a POST with a 2-byte body) to url
// through tr with ctx and reads the whole response.
func send(ctx context.Context, tr *Transport, method, url string) error {
	var body io.Reader
	if method == http.MethodPost {
		body = strings.NewReader("hi")
	}
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return err
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}
