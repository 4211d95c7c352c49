package h1

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// rawServer is a TCP server whose handler writes raw bytes, for faults an
// http.Server will not produce. It runs one goroutine per connection and
// one accept loop; Cleanup closes every connection and waits for them.
type rawServer struct {
	ln       net.Listener
	accepted atomic.Int64
	wg       sync.WaitGroup
	mu       sync.Mutex
	conns    []net.Conn
}

// startRaw starts a raw server calling handle for each connection (handle
// need not close it).
func startRaw(t testing.TB, handle func(c net.Conn, br *bufio.Reader)) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{ln: ln}
	s.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.accepted.Add(1)
			s.mu.Lock()
			s.conns = append(s.conns, c)
			s.mu.Unlock()
			s.wg.Go(func() {
				defer c.Close()
				handle(c, bufio.NewReader(c))
			})
		}
	})
	t.Cleanup(func() {
		ln.Close()
		s.mu.Lock()
		for _, c := range s.conns {
			c.Close()
		}
		s.mu.Unlock()
		s.wg.Wait()
	})
	return s
}

func (s *rawServer) url() string { return "http://" + s.ln.Addr().String() }

// readRequest reads one request and its body from br; false when the
// client closed the connection.
func readRequest(br *bufio.Reader) (*http.Request, bool) {
	req, err := http.ReadRequest(br)
	if err != nil {
		return nil, false
	}
	io.Copy(io.Discard, req.Body)
	return req, true
}

// serveEach answers every request on the connection with resp, then
// closes the connection when closeAfter.
func serveEach(resp string, closeAfter bool) func(net.Conn, *bufio.Reader) {
	return func(c net.Conn, br *bufio.Reader) {
		for {
			if _, ok := readRequest(br); !ok {
				return
			}
			if _, err := io.WriteString(c, resp); err != nil || closeAfter {
				return
			}
		}
	}
}

// endless answers the first request with a chunked stream of one event
// every 2 ms until the client goes away.
func endless(c net.Conn, br *bufio.Reader) {
	if _, ok := readRequest(br); !ok {
		return
	}
	if _, err := io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"); err != nil {
		return
	}
	ev := "data: tick\n\n"
	for {
		if _, err := fmt.Fprintf(c, "%x\r\n%s\r\n", len(ev), ev); err != nil {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

const okResp = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

// connTrace records GotConn's information and the hooks called, in order.
type connTrace struct {
	mu    sync.Mutex
	info  httptrace.GotConnInfo
	hooks []string
}

func (ct *connTrace) add(name string) {
	ct.mu.Lock()
	ct.hooks = append(ct.hooks, name)
	ct.mu.Unlock()
}

// context returns ctx with every hook recording into ct.
func (ct *connTrace) context(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GetConn:              func(string) { ct.add("GetConn") },
		GotConn:              func(i httptrace.GotConnInfo) { ct.mu.Lock(); ct.info = i; ct.mu.Unlock(); ct.add("GotConn") },
		PutIdleConn:          func(err error) { ct.add(fmt.Sprintf("PutIdleConn(%v)", err)) },
		GotFirstResponseByte: func() { ct.add("GotFirstResponseByte") },
		DNSStart:             func(httptrace.DNSStartInfo) { ct.add("DNSStart") },
		DNSDone:              func(httptrace.DNSDoneInfo) { ct.add("DNSDone") },
		ConnectStart:         func(string, string) { ct.add("ConnectStart") },
		ConnectDone:          func(string, string, error) { ct.add("ConnectDone") },
		TLSHandshakeStart:    func() { ct.add("TLSHandshakeStart") },
		TLSHandshakeDone: func(_ tls.ConnectionState, err error) {
			ct.add(fmt.Sprintf("TLSHandshakeDone(%v)", err))
		},
		WroteHeaders: func() { ct.add("WroteHeaders") },
		WroteRequest: func(i httptrace.WroteRequestInfo) { ct.add(fmt.Sprintf("WroteRequest(%v)", i.Err)) },
	})
}

func (ct *connTrace) String() string {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	return strings.Join(ct.hooks, " ")
}

// get sends a GET to url through tr with ctx and reads the whole body.
func get(ctx context.Context, tr http.RoundTripper, url string) (*http.Response, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, "", err
	}
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp, string(data), err
}

// idleCount returns how many idle connections tr keeps.
func idleCount(tr *Transport) int {
	tr.idle.mu.Lock()
	defer tr.idle.mu.Unlock()
	n := 0
	for _, conns := range tr.idle.idle {
		n += len(conns)
	}
	return n
}

// waitIdleClosed waits until the server's close of every idle connection
// of tr has reached the client (the pool's look sees it), or fails after 5 s.
// Only for connections the pool can look into (plain TCP or TLS).
func waitIdleClosed(t *testing.T, tr *Transport) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		tr.idle.mu.Lock()
		open := 0
		for _, conns := range tr.idle.idle {
			for _, c := range conns {
				if c.reusable() {
					open++
				}
			}
		}
		tr.idle.mu.Unlock()
		if open == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d idle connections still look open 5 s after the server closed them", open)
		}
	}
}

// within fails the test if fn takes longer than d.
func within(t *testing.T, d time.Duration, what string, fn func()) {
	t.Helper()
	start := time.Now()
	fn()
	if el := time.Since(start); el > d {
		t.Errorf("%s took %v, want < %v", what, el, d)
	}
}

// openStreams starts n GET requests to url on tr, one goroutine each, and
// returns once every one has read its first byte and blocked in a second
// read; the reads end, and wait returns, when ctx ends.
func openStreams(t *testing.T, ctx context.Context, tr *Transport, url string, n int) (wait func()) {
	t.Helper()
	var wg, ready sync.WaitGroup
	ready.Add(n)
	for range n {
		wg.Go(func() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Error(err)
				ready.Done()
				return
			}
			defer resp.Body.Close()
			buf := make([]byte, 1)
			resp.Body.Read(buf)
			ready.Done()
			for { // blocks until ctx ends (io.Copy would hold a 32 KiB buffer)
				if _, err := resp.Body.Read(buf); err != nil {
					return
				}
			}
		})
	}
	ready.Wait()
	return wg.Wait
}
