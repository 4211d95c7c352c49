package h1

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"testing"
	"time"
)

// A parked stream's reader calls WouldBlock, and when it reports true a
// fresh goroutine calls Wait and then reads on. These tests drive a raw
// server byte by byte, so that each test knows what the client's socket
// holds when it looks.

const (
	// parkLong bounds every wait for something that must happen: reaching
	// it means Wait hung.
	parkLong = 5 * time.Second
	// parkQuiet is how long a Wait with nothing to wake it must stay
	// blocked.
	parkQuiet = 50 * time.Millisecond

	// parkFirst is a chunked stream's head and first chunk, "first".
	parkFirst = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nfirst\r\n"
)

// parker is what the runner looks for on an Exchange and a response body.
type parker interface {
	WouldBlock() bool
	Wait()
}

var _ parker = (*Exchange)(nil)
var _ parker = (*body)(nil)

// parkServer starts a raw server that reads one request on each
// connection, writes pre at once when not empty, and hands the connection
// to the test, which writes the rest of the response when it chooses; the
// handler then reads until the connection closes. Connections past the
// first n are not handed over.
func parkServer(t *testing.T, pre string, n int) (*rawServer, <-chan net.Conn) {
	t.Helper()
	conns := make(chan net.Conn, n)
	srv := startRaw(t, func(c net.Conn, br *bufio.Reader) {
		if _, ok := readRequest(br); !ok {
			return
		}
		if pre != "" {
			if _, err := io.WriteString(c, pre); err != nil {
				return
			}
		}
		select {
		case conns <- c:
		default:
		}
		io.Copy(io.Discard, br)
	})
	return srv, conns
}

// serverConn returns the server's side of the next connection whose
// request arrived.
func serverConn(t *testing.T, conns <-chan net.Conn) net.Conn {
	t.Helper()
	select {
	case c := <-conns:
		return c
	case <-time.After(parkLong):
		t.Fatal("the server got no request")
		return nil
	}
}

// serverWrite writes s on the server's side of a connection.
func serverWrite(t *testing.T, c net.Conn, s string) {
	t.Helper()
	if _, err := io.WriteString(c, s); err != nil {
		t.Fatalf("server write: %v", err)
	}
}

// parkSend sends a GET to url through tr with ctx.
func parkSend(t *testing.T, ctx context.Context, tr *Transport, url string) *Exchange {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	x, err := tr.Send(req)
	if err != nil {
		t.Fatalf("Send: %v", err)
	}
	return x
}

// parkStream sends a GET to a parkServer answering parkFirst, reads the
// head and the first chunk, and returns the body and the server's side of
// the connection. The client's socket then holds nothing.
func parkStream(t *testing.T, ctx context.Context, tr *Transport, url string, conns <-chan net.Conn) (*body, net.Conn) {
	t.Helper()
	resp, err := parkSend(t, ctx, tr, url).Head()
	if err != nil {
		t.Fatalf("Head: %v", err)
	}
	b, ok := resp.Body.(*body)
	if !ok {
		t.Fatalf("body is a %T", resp.Body)
	}
	t.Cleanup(func() { b.Close() })
	if got := readN(t, b, 5); got != "first" {
		t.Fatalf("first chunk %q, want %q", got, "first")
	}
	return b, serverConn(t, conns)
}

// readN reads exactly n bytes of b.
func readN(t *testing.T, b io.Reader, n int) string {
	t.Helper()
	p := make([]byte, n)
	if m, err := io.ReadFull(b, p); err != nil {
		t.Fatalf("read %q, then %v", p[:m], err)
	}
	return string(p)
}

// goWait calls wait on a fresh goroutine, as the runner does with a
// parked stream, and returns a channel closed when wait returns. The
// test's cleanup calls unblock, which must make wait return (closing the
// client's connection does), and waits for the goroutine.
func goWait(t *testing.T, wait, unblock func()) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		wait()
	}()
	t.Cleanup(func() {
		unblock()
		<-done
	})
	return done
}

// closer returns a function closing c's connection, to unblock a Wait.
func closer(c *conn) func() { return func() { c.nc.Close() } }

// stillBlocked fails if done closes within parkQuiet.
func stillBlocked(t *testing.T, done <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-done:
		t.Errorf("%s: Wait returned with nothing to read", what)
	case <-time.After(parkQuiet):
	}
}

// returned fails the test now unless done closes within parkLong.
func returned(t *testing.T, done <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(parkLong):
		t.Fatalf("%s: Wait still blocked after %v", what, parkLong)
	}
}

// TestExchangeWait: before the server answers, Head would block, and Wait
// blocks until the head arrives; Head then reads it. Where the transport
// cannot look at the socket (wrapped), WouldBlock is false and Wait
// returns at once, and Head just blocks.
func TestExchangeWait(t *testing.T) {
	for _, d := range dialers {
		t.Run(d.name, func(t *testing.T) {
			srv, conns := parkServer(t, "", 1)
			tr := &Transport{DialContext: d.dial}
			defer tr.CloseIdleConnections()
			x := parkSend(t, context.Background(), tr, srv.url())
			sc := serverConn(t, conns) // the request arrived; no answer yet
			if got := x.WouldBlock(); got != d.raw {
				t.Errorf("WouldBlock before the head: %v, want %v", got, d.raw)
			}
			done := goWait(t, x.Wait, closer(x.c))
			if d.raw {
				stillBlocked(t, done, "no head sent")
			} else {
				returned(t, done, "a connection it cannot look at")
			}
			serverWrite(t, sc, "HTTP/1.1 201 Created\r\nX-Park: yes\r\nContent-Length: 2\r\n\r\nok")
			returned(t, done, "head sent")
			if x.WouldBlock() {
				t.Error("WouldBlock after the head arrived: true")
			}
			resp, err := x.Head()
			if err != nil {
				t.Fatalf("Head: %v", err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != 201 || resp.Header.Get("X-Park") != "yes" {
				t.Errorf("status %d, X-Park %q; want 201, yes", resp.StatusCode, resp.Header.Get("X-Park"))
			}
			if data, err := io.ReadAll(resp.Body); err != nil || string(data) != "ok" {
				t.Errorf("body %q, %v; want ok", data, err)
			}
		})
	}
}

// TestExchangeHeadArrived: once the head is in the socket, WouldBlock is
// false however often it looks (it consumes nothing), Wait returns at
// once, and Head reads the head.
func TestExchangeHeadArrived(t *testing.T) {
	for _, d := range dialers {
		t.Run(d.name, func(t *testing.T) {
			srv, _ := parkServer(t, "HTTP/1.1 202 Accepted\r\nX-Park: early\r\nContent-Length: 0\r\n\r\n", 1)
			tr := &Transport{DialContext: d.dial}
			defer tr.CloseIdleConnections()
			x := parkSend(t, context.Background(), tr, srv.url())
			// Wait returns once the head is there (TestExchangeWait).
			returned(t, goWait(t, x.Wait, closer(x.c)), "head sent at once")
			for i := range 3 {
				if x.WouldBlock() {
					t.Fatalf("look %d: WouldBlock true with the head in the socket", i)
				}
			}
			returned(t, goWait(t, x.Wait, closer(x.c)), "a second Wait")
			resp, err := x.Head()
			if err != nil {
				t.Fatalf("Head: %v", err)
			}
			resp.Body.Close()
			if resp.StatusCode != 202 || resp.Header.Get("X-Park") != "early" {
				t.Errorf("status %d, X-Park %q; want 202, early", resp.StatusCode, resp.Header.Get("X-Park"))
			}
		})
	}
}

// TestBodyWait walks a chunked stream: with every byte read WouldBlock is
// true and Wait blocks until the next chunk, which the next Read returns;
// with bytes read but not consumed (two chunks came, part of one was read)
// it is false; at the end of the body it is false and Read keeps
// returning io.EOF.
func TestBodyWait(t *testing.T) {
	for _, d := range dialers {
		t.Run(d.name, func(t *testing.T) {
			srv, conns := parkServer(t, parkFirst, 1)
			tr := &Transport{DialContext: d.dial}
			defer tr.CloseIdleConnections()
			b, sc := parkStream(t, context.Background(), tr, srv.url(), conns)

			if got := b.WouldBlock(); got != d.raw {
				t.Errorf("WouldBlock after the first chunk: %v, want %v", got, d.raw)
			}
			done := goWait(t, b.Wait, closer(b.c))
			if d.raw {
				stillBlocked(t, done, "no second chunk sent")
			}
			serverWrite(t, sc, "6\r\nsecond\r\n3\r\nand\r\n")
			returned(t, done, "two chunks sent")
			if b.WouldBlock() {
				t.Error("WouldBlock with two chunks in the socket: true")
			}
			if got := readN(t, b, 3); got != "sec" {
				t.Fatalf("read %q, want sec", got)
			}
			if b.WouldBlock() {
				t.Errorf("WouldBlock with %d bytes read and not consumed: true", b.c.unread())
			}
			if got := readN(t, b, 6); got != "ondand" {
				t.Fatalf("read %q, want ondand", got)
			}
			if got := b.WouldBlock(); got != d.raw {
				t.Errorf("WouldBlock with both chunks consumed: %v, want %v", got, d.raw)
			}

			done = goWait(t, b.Wait, closer(b.c))
			if d.raw {
				stillBlocked(t, done, "no end sent")
			}
			serverWrite(t, sc, "0\r\n\r\n")
			returned(t, done, "end sent")
			p := make([]byte, 8)
			for i := range 2 {
				if n, err := b.Read(p); n != 0 || err != io.EOF {
					t.Errorf("read %d at the end: %d bytes, %v; want 0, EOF", i, n, err)
				}
				if b.WouldBlock() {
					t.Errorf("WouldBlock at the end (read %d): true", i)
				}
			}
		})
	}
}

// TestBodyWaitClosed: once the body is closed, WouldBlock is false, Wait
// returns at once and Read fails as after any Close.
func TestBodyWaitClosed(t *testing.T) {
	for _, d := range dialers {
		t.Run(d.name, func(t *testing.T) {
			srv, conns := parkServer(t, parkFirst, 1)
			tr := &Transport{DialContext: d.dial}
			defer tr.CloseIdleConnections()
			b, _ := parkStream(t, context.Background(), tr, srv.url(), conns)
			b.Close()
			if b.WouldBlock() {
				t.Error("WouldBlock after Close: true")
			}
			returned(t, goWait(t, b.Wait, closer(b.c)), "closed body")
			if _, err := b.Read(make([]byte, 8)); !errors.Is(err, errBodyClosed) {
				t.Errorf("read after Close: %v, want %v", err, errBodyClosed)
			}
		})
	}
}

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

// TestParkStack: a fresh goroutine waiting in Wait keeps the stack the
// runtime started it with (2 KiB: the test keeps the runtime's adaptive
// starting size, /gc/stack/starting-size, at its floor): 200 of them grow
// the heap's stacks by at most that plus 1 KiB each (measured: 1,966
// bytes). One whose Wait outgrew its stack measures 4 KiB or more each
// (the 4 KiB stack it grew into; its 2 KiB one goes to the next
// goroutine), which a bound of 4 KiB each would let through at
// times. Under the race detector frames and stack guards are larger than
// in a normal build, so the sizes tell nothing there.
func TestParkStack(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("stack sizes measured on linux only")
	}
	if raceBuild() {
		t.Skip("stack sizes differ under the race detector")
	}
	// A collection now, with few goroutines alive, sets the starting size
	// from small stacks (2 KiB in practice); none runs until the end to
	// change it.
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	const n = 200
	srv, conns := parkServer(t, parkFirst, n)
	tr := &Transport{}
	defer tr.CloseIdleConnections()
	bodies := make([]*body, n)
	servers := make([]net.Conn, n)
	for i := range n {
		bodies[i], servers[i] = parkStream(t, context.Background(), tr, srv.url(), conns)
		if !bodies[i].WouldBlock() {
			t.Fatalf("stream %d: WouldBlock after the first chunk: false", i)
		}
	}

	before, start := stackBytes()
	var wg sync.WaitGroup
	for _, b := range bodies {
		wg.Go(b.Wait)
	}
	all := make(chan struct{})
	go func() {
		wg.Wait()
		close(all)
	}()
	defer func() {
		for _, b := range bodies {
			b.Close() // wakes any Wait left
		}
		<-all
	}()
	if got := waitersParked(n); got != n {
		t.Fatalf("%d of %d goroutines parked in Wait after %v", got, n, parkLong)
	}
	during, start2 := stackBytes()
	limit := int64(max(start, start2, 2048)) + 1024
	if per := (int64(during) - int64(before)) / n; per > limit {
		t.Errorf("stacks grew %d -> %d bytes: %d per waiting goroutine, want <= %d (starting size %d, %d)",
			before, during, per, limit, start, start2)
	}

	for _, sc := range servers {
		serverWrite(t, sc, "0\r\n\r\n")
	}
	returned(t, all, "end sent to every stream")
	for i, b := range bodies {
		if n, err := b.Read(make([]byte, 8)); n != 0 || err != io.EOF {
			t.Errorf("stream %d at the end: %d bytes, %v; want 0, EOF", i, n, err)
		}
	}
}

// stackBytes returns the heap memory reserved for goroutine stacks and
// the size the runtime starts goroutines' stacks with.
func stackBytes() (reserved, start uint64) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/stacks:bytes"}, {Name: "/gc/stack/starting-size:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64(), s[1].Value.Uint64()
}

// raceBuild reports whether the test binary was built with -race.
func raceBuild() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

// waitersParked returns how many goroutines wait in the poller inside
// body.Wait, once that is want or after parkLong.
func waitersParked(want int) int {
	buf := make([]byte, 8<<20)
	got := 0
	for deadline := time.Now().Add(parkLong); ; time.Sleep(5 * time.Millisecond) {
		got = 0
		for g := range bytes.SplitSeq(buf[:runtime.Stack(buf, true)], []byte("\n\n")) {
			if bytes.Contains(g, []byte("[IO wait")) && bytes.Contains(g, []byte(".(*body).Wait(")) {
				got++
			}
		}
		if got == want || time.Now().After(deadline) {
			return got
		}
	}
}
