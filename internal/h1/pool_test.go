package h1

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// isStale is the runner's test for a request to resend (runner.staleConn).
func isStale(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// TestStaleIdleConn: the server closes or resets a kept-alive connection
// after its response (as llama.cpp's does after a stream). On plain TCP
// (observed too) the pool sees it and the next request dials anew; on a
// wrapped connection, which it cannot look into, the next request fails
// with the connection's error and Reused set (the caller may resend it),
// and the one after dials anew.
func TestStaleIdleConn(t *testing.T) {
	for _, d := range dialers {
		t.Run(d.name, func(t *testing.T) {
			for _, tc := range []struct {
				name string
				end  func(c net.Conn)
			}{
				{"close", func(c net.Conn) { c.Close() }},
				{"reset", func(c net.Conn) { c.(*net.TCPConn).SetLinger(0); c.Close() }},
			} {
				t.Run(tc.name, func(t *testing.T) {
					closed := make(chan struct{}, 4)
					srv := startRaw(t, func(c net.Conn, br *bufio.Reader) {
						if _, ok := readRequest(br); ok {
							io.WriteString(c, okResp)
						}
						tc.end(c)
						closed <- struct{}{}
					})
					tr := &Transport{DialContext: d.dial}
					defer tr.CloseIdleConnections()
					if _, _, err := get(context.Background(), tr, srv.url()); err != nil {
						t.Fatal(err)
					}
					<-closed
					if d.raw {
						waitIdleClosed(t, tr)
					} else {
						time.Sleep(10 * time.Millisecond) // the FIN or RST reaches the client
					}
					var ct connTrace
					if !d.raw {
						_, _, err := get(ct.context(context.Background()), tr, srv.url())
						if err == nil || !isStale(err) || !ct.info.Reused {
							t.Fatalf("request on the stale connection: err %v (stale %v), reused %v", err, err != nil && isStale(err), ct.info.Reused)
						}
						ct = connTrace{}
					}
					if _, data, err := get(ct.context(context.Background()), tr, srv.url()); err != nil || data != "ok" || ct.info.Reused {
						t.Fatalf("request after: %q, %v, reused %v", data, err, ct.info.Reused)
					}
					if n := srv.accepted.Load(); n != 2 {
						t.Errorf("%d connections, want 2", n)
					}
				})
			}
		})
	}
}

// TestStaleIdleTLSConn: a TLS connection the server closed while idle
// (close_notify, then FIN) is not reused.
func TestStaleIdleTLSConn(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok")
	}))
	srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	srv.StartTLS()
	defer srv.Close()
	tr := &Transport{TLSClientConfig: srv.Client().Transport.(*http.Transport).TLSClientConfig}
	defer tr.CloseIdleConnections()
	if _, _, err := get(context.Background(), tr, srv.URL); err != nil {
		t.Fatal(err)
	}
	srv.CloseClientConnections()
	waitIdleClosed(t, tr)
	var ct connTrace
	if _, data, err := get(ct.context(context.Background()), tr, srv.URL); err != nil || data != "ok" || ct.info.Reused {
		t.Fatalf("request after the server closed: %q, %v, reused %v", data, err, ct.info.Reused)
	}
	if n := conns.Load(); n != 2 {
		t.Errorf("%d connections, want 2", n)
	}
}

// TestConnClosedAfterLook: a server that closes a kept-alive connection
// after reading the next request, too late for the pool to see, fails that
// request with the connection's error and Reused set: RoundTrip's contract
// for a request the caller may send again.
func TestConnClosedAfterLook(t *testing.T) {
	srv := startRaw(t, func(c net.Conn, br *bufio.Reader) {
		if _, ok := readRequest(br); ok {
			io.WriteString(c, okResp)
		}
		readRequest(br)
		c.Close()
	})
	tr := &Transport{}
	defer tr.CloseIdleConnections()
	if _, _, err := get(context.Background(), tr, srv.url()); err != nil {
		t.Fatal(err)
	}
	var ct connTrace
	_, _, err := get(ct.context(context.Background()), tr, srv.url())
	if err == nil || !isStale(err) || !ct.info.Reused {
		t.Fatalf("request on the connection closed after the look: err %v, reused %v", err, ct.info.Reused)
	}
}

// TestIdleConnTimeout: an idle connection older than IdleConnTimeout is
// closed, not reused, when the host is next asked for.
func TestIdleConnTimeout(t *testing.T) {
	gone := make(chan struct{}, 4)
	srv := startRaw(t, func(c net.Conn, br *bufio.Reader) {
		serveEach(okResp, false)(c, br)
		gone <- struct{}{} // the client closed the connection
	})
	tr := &Transport{IdleConnTimeout: 20 * time.Millisecond}
	defer tr.CloseIdleConnections()
	var ct connTrace
	if _, _, err := get(ct.context(context.Background()), tr, srv.url()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := get(ct.context(context.Background()), tr, srv.url()); err != nil || !ct.info.Reused {
		t.Fatalf("second request at once: %v, reused %v", err, ct.info.Reused)
	}
	time.Sleep(50 * time.Millisecond)
	if _, _, err := get(ct.context(context.Background()), tr, srv.url()); err != nil || ct.info.Reused {
		t.Fatalf("request after the idle timeout: %v, reused %v", err, ct.info.Reused)
	}
	select {
	case <-gone:
	case <-time.After(2 * time.Second):
		t.Error("the expired connection was not closed")
	}
	if n := srv.accepted.Load(); n != 2 {
		t.Errorf("%d connections, want 2", n)
	}
}

// TestUnexpectedIdleData: a connection with bytes beyond the response is
// not kept.
func TestUnexpectedIdleData(t *testing.T) {
	srv := startRaw(t, serveEach(okResp+"garbage", false))
	tr := &Transport{}
	var ct connTrace
	if _, _, err := get(ct.context(context.Background()), tr, srv.url()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond)
	if n := idleCount(tr); n != 0 {
		t.Errorf("%d idle connections, want 0 (trace %s)", n, ct.String())
	}
}
