package h1

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
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
	Wait() bool
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
	x := new(Exchange)
	if err := tr.Send(x, req); err != nil {
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
func goWait(t *testing.T, wait func() bool, unblock func()) <-chan struct{} {
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

// Wait after the body reached its end (keep-alive: the connection went
// back to the idle pool) must return at once, as its doc says where
// WouldBlock reports false.
func TestBodyWaitAfterEnd(t *testing.T) {
	srv, conns := parkServer(t, parkFirst, 1)
	tr := &Transport{}
	defer tr.CloseIdleConnections()
	b, sc := parkStream(t, context.Background(), tr, srv.url(), conns)
	serverWrite(t, sc, "0\r\n\r\n")
	if n, err := io.ReadFull(b, make([]byte, 1)); n != 0 || err != io.EOF {
		t.Fatalf("%d, %v", n, err)
	}
	if b.WouldBlock() {
		t.Fatal("WouldBlock true at the end")
	}
	if n := idleCount(tr); n != 1 {
		t.Fatalf("idle %d", n)
	}
	done := goWait(t, b.Wait, closer(b.c))
	select {
	case <-done:
	case <-time.After(time.Second):
		t.Fatal("Wait after EOF blocks on the pooled idle connection")
	}
}

// A Wait after EOF must not sit on the pooled connection that the next
// request reuses (it would race with that request's own Wait).
func TestBodyWaitAfterEndLeavesTheConnection(t *testing.T) {
	srv, conns := parkServer(t, parkFirst, 2)
	tr := &Transport{}
	defer tr.CloseIdleConnections()
	b, sc := parkStream(t, context.Background(), tr, srv.url(), conns)
	serverWrite(t, sc, "0\r\n\r\n")
	io.ReadFull(b, make([]byte, 1))
	stray := goWait(t, b.Wait, closer(b.c))
	time.Sleep(20 * time.Millisecond)
	x := parkSend(t, context.Background(), tr, srv.url())
	if x.c != b.c {
		t.Fatal("not reused")
	}
	mine := goWait(t, x.Wait, closer(x.c))
	time.Sleep(20 * time.Millisecond)
	serverWrite(t, sc, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	returned(t, stray, "stray")
	returned(t, mine, "mine")
}

// TestBodyWaitChunkPastLineBuffer: a chunk of lineBufferSize bytes or more
// is read straight into the caller's buffer, and the chunked reader leaves
// the chunk's closing CRLF for its next Read. The stream still counts as
// waiting (the CRLF moves into the line buffer, the read buffer is free),
// Wait blocks until the next chunk, and reading goes on through the CRLF.
// A body that is not chunked has no such CRLF: two bytes left there are
// data.
func TestBodyWaitChunkPastLineBuffer(t *testing.T) {
	big := strings.Repeat("x", 2*lineBufferSize)
	srv, conns := parkServer(t, parkFirst, 1)
	tr := &Transport{}
	defer tr.CloseIdleConnections()
	b, sc := parkStream(t, context.Background(), tr, srv.url(), conns)
	serverWrite(t, sc, fmt.Sprintf("%x\r\n%s\r\n", len(big), big))
	// One Read of the whole chunk, as an SSE reader with room for it does.
	p := make([]byte, 4*lineBufferSize)
	n := 0
	for n < len(big) {
		m, err := b.Read(p[n:])
		if err != nil {
			t.Fatalf("after %d bytes: %v", n, err)
		}
		n += m
	}
	if string(p[:n]) != big {
		t.Fatalf("read %d bytes, not the chunk", n)
	}
	// The CRLF came with the chunk; the chunked reader has not taken it.
	if n := b.c.br.Buffered() + b.c.lr.buffered(); n != 2 {
		t.Fatalf("%d bytes wait to be read, want the chunk's CRLF", n)
	}
	if !b.WouldBlock() {
		t.Fatal("a stream with only its chunk's CRLF read does not count as waiting")
	}
	if b.c.lr.buf != nil {
		t.Error("the read buffer is held while the stream waits")
	}
	done := goWait(t, b.Wait, closer(b.c))
	stillBlocked(t, done, "after the chunk")
	serverWrite(t, sc, "4\r\nnext\r\n")
	returned(t, done, "next chunk")
	if got := readN(t, b, 4); got != "next" {
		t.Fatalf("next chunk %q", got)
	}

	// Not chunked: a CRLF left in the body is data to read.
	srv2, conns2 := parkServer(t, "HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\nfirst\r\n", 1)
	tr2 := &Transport{}
	defer tr2.CloseIdleConnections()
	resp, err := parkSend(t, context.Background(), tr2, srv2.url()).Head()
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	serverConn(t, conns2)
	if got := readN(t, resp.Body, 5); got != "first" {
		t.Fatalf("%q", got)
	}
	if resp.Body.(*body).WouldBlock() {
		t.Error("WouldBlock with two bytes of a fixed-length body to read")
	}
}

// TestWaitReads: Wait reads what came into the read buffer, from its own
// goroutine, and says so; ReadByWait stays true until the connection is
// read again, so that a reader knows whether the bytes it got are Wait's.
func TestWaitReads(t *testing.T) {
	srv, conns := parkServer(t, parkFirst, 1)
	tr := &Transport{}
	defer tr.CloseIdleConnections()
	b, sc := parkStream(t, context.Background(), tr, srv.url(), conns)
	var read bool
	done := goWait(t, func() bool { read = b.Wait(); return read }, closer(b.c))
	serverWrite(t, sc, "3\r\none\r\n")
	returned(t, done, "chunk")
	if !read || b.c.lr.buffered() == 0 || !b.ReadByWait() {
		t.Fatalf("Wait read %v, %d bytes buffered, ReadByWait %v; want true, some, true", read, b.c.lr.buffered(), b.ReadByWait())
	}
	if got := readN(t, b, 3); got != "one" || !b.ReadByWait() {
		t.Fatalf("read %q, ReadByWait %v after reading Wait's bytes", got, b.ReadByWait())
	}
	// The next chunk comes through an ordinary read.
	serverWrite(t, sc, "3\r\ntwo\r\n")
	if got := readN(t, b, 3); got != "two" || b.ReadByWait() {
		t.Fatalf("read %q, ReadByWait %v after a read of its own", got, b.ReadByWait())
	}
	// With bytes buffered, Wait reads nothing.
	serverWrite(t, sc, "5\r\nthree\r\n")
	for b.c.lr.buffered() == 0 && b.c.br.Buffered() == 0 {
		if _, err := b.c.br.Peek(1); err != nil {
			t.Fatal(err)
		}
	}
	if b.Wait() {
		t.Error("Wait read with bytes buffered")
	}
	if got := readN(t, b, 5); got != "three" {
		t.Fatalf("read %q", got)
	}
}

// TestReadByWaitAfterTheEnd: once a body was read to its end, ReadByWait
// answers for that end, not for the connection, which the next request
// reads by then.
func TestReadByWaitAfterTheEnd(t *testing.T) {
	srv, conns := parkServer(t, parkFirst, 1)
	tr := &Transport{}
	defer tr.CloseIdleConnections()
	b, sc := parkStream(t, context.Background(), tr, srv.url(), conns)
	done := goWait(t, b.Wait, closer(b.c))
	serverWrite(t, sc, "0\r\n\r\n")
	returned(t, done, "end")
	if n, err := io.ReadFull(b, make([]byte, 1)); n != 0 || err != io.EOF {
		t.Fatalf("%d, %v; want the end", n, err)
	}
	if !b.ReadByWait() {
		t.Fatal("the end, which Wait read, does not count as Wait's")
	}
	x := parkSend(t, context.Background(), tr, srv.url())
	if x.c != b.c {
		t.Fatal("the connection was not reused")
	}
	serverWrite(t, sc, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	resp, err := x.Head()
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if got := readN(t, resp.Body, 2); got != "ok" {
		t.Fatalf("%q", got)
	}
	if !b.ReadByWait() {
		t.Error("the next request's own read changed the ended body's answer")
	}
}
