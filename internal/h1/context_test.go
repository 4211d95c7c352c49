package h1

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"testing"
	"time"
)

// checkCtxErr fails unless err is want, and not the deadline error the
// transport used to abort the connection.
func checkCtxErr(t *testing.T, err, want error) {
	t.Helper()
	if !errors.Is(err, want) || errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("error %v, want %v (and not os.ErrDeadlineExceeded)", err, want)
	}
}

// TestCancelMidStream: cancelling the context while the body streams ends
// the blocked Read at once with context.Canceled, and the connection is not
// reused.
func TestCancelMidStream(t *testing.T) {
	for _, d := range dialers {
		t.Run(d.name, func(t *testing.T) {
			srv := startRaw(t, endless)
			tr := &Transport{DialContext: d.dial}
			defer tr.CloseIdleConnections()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.url(), nil)
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			buf := make([]byte, 64)
			if _, err := resp.Body.Read(buf); err != nil {
				t.Fatal(err)
			}
			time.AfterFunc(20*time.Millisecond, cancel)
			within(t, time.Second, "reading after cancel", func() {
				_, err = io.Copy(io.Discard, resp.Body)
			})
			checkCtxErr(t, err, context.Canceled)
			if n := idleCount(tr); n != 0 {
				t.Errorf("%d idle connections after a cancelled stream", n)
			}
		})
	}
}

// TestContextDeadline: a server that never answers fails the request with
// context.DeadlineExceeded when the context's deadline passes, both before
// the headers and in the middle of the body.
func TestContextDeadline(t *testing.T) {
	for _, d := range dialers {
		t.Run(d.name, func(t *testing.T) {
			silent := startRaw(t, func(c net.Conn, br *bufio.Reader) {
				readRequest(br)
				io.Copy(io.Discard, br) // until the client goes away
			})
			tr := &Transport{DialContext: d.dial}
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			within(t, time.Second, "request to a silent server", func() {
				_, _, err := get(ctx, tr, silent.url())
				checkCtxErr(t, err, context.DeadlineExceeded)
			})

			stalled := startRaw(t, func(c net.Conn, br *bufio.Reader) {
				readRequest(br)
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhalf")
				io.Copy(io.Discard, br)
			})
			ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			within(t, time.Second, "a stalled body", func() {
				_, data, err := get(ctx, tr, stalled.url())
				checkCtxErr(t, err, context.DeadlineExceeded)
				if data != "half" {
					t.Errorf("body %q before the deadline, want %q", data, "half")
				}
			})
			if n := idleCount(tr); n != 0 {
				t.Errorf("%d idle connections after failed requests", n)
			}
		})
	}
}

// TestCancelledBeforeStart: a request whose context already ended fails
// without dialing.
func TestCancelledBeforeStart(t *testing.T) {
	srv := startRaw(t, serveEach(okResp, false))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := get(ctx, &Transport{}, srv.url())
	checkCtxErr(t, err, context.Canceled)
	if n := srv.accepted.Load(); n != 0 {
		t.Errorf("%d connections dialed", n)
	}
}

// TestCancelAfterEnd: cancelling a request's context after its body was
// read to the end leaves the pooled connection usable (the watch was
// stopped).
func TestCancelAfterEnd(t *testing.T) {
	srv := startRaw(t, serveEach(okResp, false))
	tr := &Transport{}
	defer tr.CloseIdleConnections()
	ctx, cancel := context.WithCancel(context.Background())
	if _, _, err := get(ctx, tr, srv.url()); err != nil {
		t.Fatal(err)
	}
	cancel()
	time.Sleep(5 * time.Millisecond)
	var ct connTrace
	if _, data, err := get(ct.context(context.Background()), tr, srv.url()); err != nil || data != "ok" || !ct.info.Reused {
		t.Errorf("next request: %q, %v, reused %v", data, err, ct.info.Reused)
	}
}

// TestEarlyClose: closing the body of an endless stream returns at once
// (nothing is drained), further reads fail, and the connection is closed.
func TestEarlyClose(t *testing.T) {
	for _, d := range dialers {
		t.Run(d.name, func(t *testing.T) {
			srv := startRaw(t, endless)
			tr := &Transport{DialContext: d.dial}
			defer tr.CloseIdleConnections()
			req, _ := http.NewRequest(http.MethodGet, srv.url(), nil)
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 16)
			if _, err := resp.Body.Read(buf); err != nil {
				t.Fatal(err)
			}
			within(t, 100*time.Millisecond, "Close", func() { resp.Body.Close() })
			if _, err := resp.Body.Read(buf); !errors.Is(err, errBodyClosed) {
				t.Errorf("read after Close: %v", err)
			}
			if n := idleCount(tr); n != 0 {
				t.Errorf("%d idle connections", n)
			}
		})
	}
}

// TestCloseDuringRead: Close from another goroutine ends a Read blocked on
// the connection.
func TestCloseDuringRead(t *testing.T) {
	for _, d := range dialers {
		t.Run(d.name, func(t *testing.T) {
			srv := startRaw(t, func(c net.Conn, br *bufio.Reader) {
				readRequest(br)
				io.WriteString(c, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
				io.Copy(io.Discard, br)
			})
			req, _ := http.NewRequest(http.MethodGet, srv.url(), nil)
			resp, err := (&Transport{DialContext: d.dial}).RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			time.AfterFunc(20*time.Millisecond, func() { resp.Body.Close() })
			within(t, time.Second, "a read ended by Close", func() {
				if _, err := resp.Body.Read(make([]byte, 16)); err == nil {
					t.Error("read succeeded")
				}
			})
		})
	}
}
