package h1

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestTraceOrder: the httptrace hooks come in net/http's order, the dial's
// from the dialer itself, and a reused connection has no dial hooks.
func TestTraceOrder(t *testing.T) {
	srv := startRaw(t, serveEach(okResp, false))
	tr := &Transport{}
	defer tr.CloseIdleConnections()
	for i, want := range []string{
		"GetConn ConnectStart ConnectDone GotConn WroteHeaders WroteRequest(<nil>) GotFirstResponseByte PutIdleConn(<nil>)",
		"GetConn GotConn WroteHeaders WroteRequest(<nil>) GotFirstResponseByte PutIdleConn(<nil>)",
	} {
		var ct connTrace
		if _, _, err := get(ct.context(context.Background()), tr, srv.url()); err != nil {
			t.Fatal(err)
		}
		if got := ct.String(); got != want {
			t.Errorf("request %d hooks:\n got %s\nwant %s", i, got, want)
		}
	}
}

// TestTraceDNS: a host name is looked up through the dialer, before the
// connection.
func TestTraceDNS(t *testing.T) {
	if _, err := net.LookupHost("localhost"); err != nil {
		t.Skip("localhost does not resolve here")
	}
	srv := startRaw(t, serveEach(okResp, false))
	_, port, _ := net.SplitHostPort(srv.ln.Addr().String())
	var ct connTrace
	tr := &Transport{}
	defer tr.CloseIdleConnections()
	if _, _, err := get(ct.context(context.Background()), tr, "http://localhost:"+port); err != nil {
		t.Fatal(err)
	}
	hooks := strings.Fields(ct.String())
	dns, done, got := slices.Index(hooks, "DNSStart"), slices.Index(hooks, "DNSDone"), slices.Index(hooks, "GotConn")
	if dns < 0 || done < dns || got < done || !slices.Contains(hooks, "ConnectStart") {
		t.Errorf("hooks %v", hooks)
	}
}

// TestTLS: https goes over HTTP/1.1 with the given TLS config, the
// handshake is traced on the new connection only, and the connection is
// reused.
func TestTLS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS == nil || r.ProtoMajor != 1 || r.ProtoMinor != 1 {
			http.Error(w, "want HTTP/1.1 over TLS, got "+r.Proto, http.StatusBadRequest)
			return
		}
		io.WriteString(w, "secure")
	}))
	defer srv.Close()
	tr := &Transport{TLSClientConfig: srv.Client().Transport.(*http.Transport).TLSClientConfig, TLSHandshakeTimeout: 5 * time.Second}
	defer tr.CloseIdleConnections()
	for i := range 2 {
		var ct connTrace
		resp, data, err := get(ct.context(context.Background()), tr, srv.URL)
		if err != nil || data != "secure" || resp.TLS == nil {
			t.Fatalf("request %d: %q, %v", i, data, err)
		}
		handshake := strings.Contains(ct.String(), "TLSHandshakeStart TLSHandshakeDone(<nil>) GotConn")
		if handshake != (i == 0) || ct.info.Reused != (i == 1) {
			t.Errorf("request %d: hooks %s, reused %v", i, ct.String(), ct.info.Reused)
		}
	}
	// Without the test server's root, the certificate is refused.
	if _, _, err := get(context.Background(), &Transport{}, srv.URL); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("unverified server: %v", err)
	}
}

// TestTLSHandshakeTimeout: a server that never answers the handshake fails
// it after TLSHandshakeTimeout.
func TestTLSHandshakeTimeout(t *testing.T) {
	srv := startRaw(t, func(c net.Conn, br *bufio.Reader) { io.Copy(io.Discard, br) })
	tr := &Transport{TLSHandshakeTimeout: 50 * time.Millisecond}
	within(t, time.Second, "a stalled handshake", func() {
		_, _, err := get(context.Background(), tr, "https://"+srv.ln.Addr().String())
		if !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("error %v, want a timeout", err)
		}
	})
	// The context ends the handshake too, as its own error.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	within(t, time.Second, "a handshake past the context's deadline", func() {
		_, _, err := get(ctx, &Transport{}, "https://"+srv.ln.Addr().String())
		checkCtxErr(t, err, context.DeadlineExceeded)
	})
}
