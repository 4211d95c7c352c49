package h1

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"
)

// TestParkWakes: Wait, before the head or in the middle of the body,
// returns when the peer closes the connection, the request's deadline
// passes or its context is cancelled; the next Head or Read then fails as
// it would have without Wait.
func TestParkWakes(t *testing.T) {
	for _, tc := range []struct {
		name string
		body bool // park in the body, after the first chunk; else before the head
		// how: "close" (the server closes), "deadline" (WithDeadline),
		// "cancel" (the context is cancelled)
		how   string
		check func(t *testing.T, err error)
	}{
		{"head/close", false, "close", func(t *testing.T, err error) {
			if !errors.Is(err, io.EOF) {
				t.Errorf("error %v, want io.EOF", err)
			}
		}},
		{"body/close", true, "close", func(t *testing.T, err error) {
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("error %v, want io.ErrUnexpectedEOF", err)
			}
		}},
		{"head/deadline", false, "deadline", func(t *testing.T, err error) {
			if !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Errorf("error %v, want os.ErrDeadlineExceeded", err)
			}
		}},
		{"body/deadline", true, "deadline", func(t *testing.T, err error) {
			if !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Errorf("error %v, want os.ErrDeadlineExceeded", err)
			}
		}},
		{"head/cancel", false, "cancel", func(t *testing.T, err error) { checkCtxErr(t, err, context.Canceled) }},
		{"body/cancel", true, "cancel", func(t *testing.T, err error) { checkCtxErr(t, err, context.Canceled) }},
	} {
		for _, d := range dialers {
			if !d.raw {
				continue // Wait returns at once there (TestExchangeWait)
			}
			t.Run(tc.name+"/"+d.name, func(t *testing.T) {
				t.Parallel()
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				if tc.how == "deadline" {
					// Long enough for the head and first chunk on a
					// busy machine; Wait then waits for the rest.
					ctx = WithDeadline(ctx, time.Now().Add(250*time.Millisecond))
				}
				pre := ""
				if tc.body {
					pre = parkFirst
				}
				srv, conns := parkServer(t, pre, 1)
				tr := &Transport{DialContext: d.dial}
				defer tr.CloseIdleConnections()

				var p parker
				var c *conn
				var sc net.Conn
				var x *Exchange
				var b *body
				if tc.body {
					b, sc = parkStream(t, ctx, tr, srv.url(), conns)
					p, c = b, b.c
				} else {
					x = parkSend(t, ctx, tr, srv.url())
					sc = serverConn(t, conns)
					p, c = x, x.c
				}
				if !p.WouldBlock() {
					t.Fatal("WouldBlock with nothing sent: false")
				}
				done := goWait(t, p.Wait, closer(c))
				switch tc.how {
				case "close":
					stillBlocked(t, done, "before the close")
					sc.Close()
				case "cancel":
					stillBlocked(t, done, "before the cancel")
					cancel()
				}
				returned(t, done, tc.how)
				if tc.how == "close" && p.WouldBlock() {
					t.Error("WouldBlock after the peer closed: true")
				}
				var err error
				if tc.body {
					_, err = b.Read(make([]byte, 8))
				} else {
					var resp *http.Response
					if resp, err = x.Head(); resp != nil {
						resp.Body.Close()
					}
				}
				tc.check(t, err)
			})
		}
	}
}

// TestParkNoLostWakeup: bytes that arrive after WouldBlock reported true
// and before Wait starts, or while it starts, wake Wait (the poller's
// readiness is reset when Wait begins; Wait must look at the socket after
// that).
func TestParkNoLostWakeup(t *testing.T) {
	for _, d := range dialers {
		if !d.raw {
			continue
		}
		t.Run(d.name, func(t *testing.T) {
			srv, conns := parkServer(t, "", 1)
			tr := &Transport{DialContext: d.dial}
			defer tr.CloseIdleConnections()
			x := parkSend(t, context.Background(), tr, srv.url())
			sc := serverConn(t, conns)
			if !x.WouldBlock() {
				t.Fatal("Exchange.WouldBlock with nothing sent: false")
			}
			serverWrite(t, sc, parkFirst) // written, hence on its way, before Wait
			returned(t, goWait(t, x.Wait, closer(x.c)), "head written before Wait")
			resp, err := x.Head()
			if err != nil {
				t.Fatalf("Head: %v", err)
			}
			b := resp.Body.(*body)
			defer b.Close()
			if got := readN(t, b, 5); got != "first" {
				t.Fatalf("first chunk %q", got)
			}

			const rounds = 40
			for i := range rounds {
				if !b.WouldBlock() {
					t.Fatalf("round %d: WouldBlock with every byte read: false", i)
				}
				chunk := "4\r\n" + string(rune('a'+i%26)) + "abc\r\n"
				var wg sync.WaitGroup
				if i%2 == 0 {
					serverWrite(t, sc, chunk) // before Wait starts
				} else {
					wg.Go(func() { io.WriteString(sc, chunk) }) // as Wait starts
				}
				returned(t, goWait(t, b.Wait, closer(b.c)), "chunk written after WouldBlock")
				wg.Wait()
				if got, want := readN(t, b, 4), chunk[3:7]; got != want {
					t.Fatalf("round %d: read %q, want %q", i, got, want)
				}
			}
		})
	}
}
