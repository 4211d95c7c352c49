package h1

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// TestWithDeadline: a request deadline set with WithDeadline fails a
// request to a silent server and a stalled body with os.ErrDeadlineExceeded
// when it passes, and closes their connections.
func TestWithDeadline(t *testing.T) {
	for _, d := range dialers {
		t.Run(d.name, func(t *testing.T) {
			silent := startRaw(t, func(c net.Conn, br *bufio.Reader) {
				readRequest(br)
				io.Copy(io.Discard, br)
			})
			tr := &Transport{DialContext: d.dial}
			within(t, time.Second, "request to a silent server", func() {
				ctx := WithDeadline(context.Background(), time.Now().Add(50*time.Millisecond))
				if _, _, err := get(ctx, tr, silent.url()); !errors.Is(err, os.ErrDeadlineExceeded) {
					t.Errorf("error %v, want os.ErrDeadlineExceeded", err)
				}
			})
			stalled := startRaw(t, func(c net.Conn, br *bufio.Reader) {
				readRequest(br)
				io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhalf")
				io.Copy(io.Discard, br)
			})
			within(t, time.Second, "a stalled body", func() {
				ctx := WithDeadline(context.Background(), time.Now().Add(50*time.Millisecond))
				_, data, err := get(ctx, tr, stalled.url())
				if !errors.Is(err, os.ErrDeadlineExceeded) || data != "half" {
					t.Errorf("body %q, error %v; want %q and os.ErrDeadlineExceeded", data, err, "half")
				}
			})
			if n := idleCount(tr); n != 0 {
				t.Errorf("%d idle connections after failed requests", n)
			}
		})
	}
}

// TestWithDeadlineCleared: a connection that served a request with a
// deadline goes back to the pool without it; the next request on it
// outlives the old deadline.
func TestWithDeadlineCleared(t *testing.T) {
	srv := startRaw(t, func(c net.Conn, br *bufio.Reader) {
		for i := 0; ; i++ {
			if _, ok := readRequest(br); !ok {
				return
			}
			if i > 0 {
				time.Sleep(80 * time.Millisecond) // past the first deadline
			}
			if _, err := io.WriteString(c, okResp); err != nil {
				return
			}
		}
	})
	tr := &Transport{}
	defer tr.CloseIdleConnections()
	ctx := WithDeadline(context.Background(), time.Now().Add(40*time.Millisecond))
	if _, data, err := get(ctx, tr, srv.url()); err != nil || data != "ok" {
		t.Fatalf("first request: %q, %v", data, err)
	}
	var ct connTrace
	if _, data, err := get(ct.context(context.Background()), tr, srv.url()); err != nil || data != "ok" || !ct.info.Reused {
		t.Errorf("second request: %q, %v, reused %v", data, err, ct.info.Reused)
	}
}

// TestWithDeadlineDial: the deadline bounds dialing, and a deadline
// already past fails the request before it dials.
func TestWithDeadlineDial(t *testing.T) {
	hang := func(ctx context.Context, network, addr string) (net.Conn, error) {
		<-ctx.Done()
		return nil, &net.OpError{Op: "dial", Net: network, Err: ctx.Err()}
	}
	tr := &Transport{DialContext: hang}
	within(t, time.Second, "a hanging dial", func() {
		ctx := WithDeadline(context.Background(), time.Now().Add(30*time.Millisecond))
		if _, _, err := get(ctx, tr, "http://192.0.2.1:9"); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("error %v, want os.ErrDeadlineExceeded", err)
		}
	})
	srv := startRaw(t, serveEach(okResp, false))
	ctx := WithDeadline(context.Background(), time.Now().Add(-time.Second))
	if _, _, err := get(ctx, &Transport{}, srv.url()); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("past deadline: error %v, want os.ErrDeadlineExceeded", err)
	}
	if n := srv.accepted.Load(); n != 0 {
		t.Errorf("%d connections dialed for a request past its deadline", n)
	}
}
