package h1

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"runtime"
	"testing"
	"time"
)

// TestStreamsUseCallersGoroutines: N streams open at once cost N
// goroutines, the callers' own; the transport runs none (net/http's would
// run 2N more). The server runs exactly one goroutine per connection.
func TestStreamsUseCallersGoroutines(t *testing.T) {
	const n = 50
	srv := startRaw(t, endless)
	tr := &Transport{MaxIdleConnsPerHost: n}
	defer tr.CloseIdleConnections()
	base := settledGoroutines(-1)

	ctx, cancel := context.WithCancel(context.Background())
	wait := openStreams(t, ctx, tr, srv.url(), n)
	got := settledGoroutines(base+2*n) - base
	cancel()
	wait()
	if got != 2*n {
		t.Errorf("%d streams: %d more goroutines, want %d (one caller and one server goroutine each)\n%s", n, got, 2*n, stacks())
	}
}

// settledGoroutines returns runtime.NumGoroutine once it equals want, or
// its value after a second (or, for want -1, after 50 ms without change):
// goroutines of earlier tests may take a moment to exit.
func settledGoroutines(want int) int {
	deadline := time.Now().Add(time.Second)
	last := runtime.NumGoroutine()
	for time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		n := runtime.NumGoroutine()
		if n == want || (want < 0 && n == last) {
			return n
		}
		last = n
	}
	return last
}

func stacks() string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	// Keep the first line of each goroutine and its top frame.
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(buf))
	top := false
	for sc.Scan() {
		line := sc.Text()
		if bytes.HasPrefix([]byte(line), []byte("goroutine ")) {
			top = true
			continue
		}
		if top {
			out.WriteString(line + "\n")
			top = false
		}
	}
	return out.String()
}

// fakeConn serves canned bytes and swallows writes.
type fakeConn struct {
	r *bytes.Reader
}

func (c *fakeConn) Read(p []byte) (int, error)       { return c.r.Read(p) }
func (c *fakeConn) Write(p []byte) (int, error)      { return len(p), nil }
func (c *fakeConn) Close() error                     { return nil }
func (c *fakeConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (c *fakeConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (c *fakeConn) SetDeadline(time.Time) error      { return nil }
func (c *fakeConn) SetReadDeadline(time.Time) error  { return nil }
func (c *fakeConn) SetWriteDeadline(time.Time) error { return nil }

// FuzzResponse feeds arbitrary server bytes to a request: the transport
// returns an error or a response whose body reads to an end, and never
// panics or hangs, on a new connection or a pooled one.
func FuzzResponse(f *testing.F) {
	for _, s := range []string{
		okResp,
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nhel\r\n0\r\n\r\n",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx",
		"HTTP/1.1 200 OK\r\n\r\nclose-delimited",
		"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort",
		"HTTP/1.1 101 Switching Protocols\r\n\r\nraw",
		"garbage",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tr := &Transport{DialContext: func(context.Context, string, string) (net.Conn, error) {
			return &fakeConn{r: bytes.NewReader(data)}, nil
		}}
		req, _ := http.NewRequest(http.MethodGet, "http://fuzz.invalid/", nil)
		resp, err := tr.RoundTrip(req)
		if err != nil {
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		// A pooled connection serves the next request from what is left.
		if resp, err := tr.RoundTrip(req.Clone(context.Background())); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
}
