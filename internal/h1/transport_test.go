package h1

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// TestKeepAliveReuse: sequential requests, each body read to its end, go
// over one connection; the trace tells a new one from a reused one.
func TestKeepAliveReuse(t *testing.T) {
	for _, d := range dialers {
		t.Run(d.name, func(t *testing.T) {
			var mu sync.Mutex
			addrs := map[string]int{}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				addrs[r.RemoteAddr]++
				mu.Unlock()
				body, _ := io.ReadAll(r.Body)
				fmt.Fprintf(w, "%s %s %s", r.Method, r.Proto, body)
			}))
			defer srv.Close()
			tr := &Transport{DialContext: d.dial}
			defer tr.CloseIdleConnections()
			for i := range 4 {
				var ct connTrace
				req, _ := http.NewRequestWithContext(ct.context(context.Background()), http.MethodPost, srv.URL, strings.NewReader("hi"))
				resp, err := tr.RoundTrip(req)
				if err != nil {
					t.Fatal(err)
				}
				data, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || string(data) != "POST HTTP/1.1 hi" {
					t.Fatalf("request %d: %q, %v", i, data, err)
				}
				if ct.info.Reused != (i > 0) || ct.info.WasIdle != (i > 0) {
					t.Errorf("request %d: reused %v, was idle %v", i, ct.info.Reused, ct.info.WasIdle)
				}
				if idleCount(tr) != 1 {
					t.Errorf("request %d: %d idle connections, want 1", i, idleCount(tr))
				}
			}
			if len(addrs) != 1 {
				t.Errorf("requests came over %d connections, want 1: %v", len(addrs), addrs)
			}
		})
	}
}

// TestBodies reads each kind of response body, then sends a second
// request: it reuses the connection exactly when the first response
// allowed it.
func TestBodies(t *testing.T) {
	for _, d := range dialers {
		t.Run(d.name, func(t *testing.T) {
			for _, tc := range []struct {
				name, resp, method, want string
				reuse                    bool
			}{
				{"content-length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", "GET", "hello", true},
				{"chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nhel\r\n2\r\nlo\r\n0\r\n\r\n", "GET", "hello", true},
				{"chunked with trailer", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nX-T: 1\r\n\r\n", "GET", "hello", true},
				{"empty", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", "GET", "", true},
				{"no content", "HTTP/1.1 204 No Content\r\n\r\n", "GET", "", true},
				{"head", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", "HEAD", "", true},
				{"error status", "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 4\r\n\r\nbusy", "GET", "busy", true},
				{"1xx first", "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", "GET", "ok", true},
				{"connection close", "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok", "GET", "ok", false},
				{"http/1.0", "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", "GET", "ok", false},
			} {
				t.Run(tc.name, func(t *testing.T) {
					srv := startRaw(t, serveEach(tc.resp, false))
					tr := &Transport{DialContext: d.dial}
					defer tr.CloseIdleConnections()
					for i := range 2 {
						var ct connTrace
						req, _ := http.NewRequestWithContext(ct.context(context.Background()), tc.method, srv.url(), nil)
						resp, err := tr.RoundTrip(req)
						if err != nil {
							t.Fatalf("request %d: %v", i, err)
						}
						data, err := io.ReadAll(resp.Body)
						resp.Body.Close()
						if err != nil || string(data) != tc.want {
							t.Fatalf("request %d: body %q, %v; want %q", i, data, err, tc.want)
						}
						if i == 1 && ct.info.Reused != tc.reuse {
							t.Errorf("second request reused %v, want %v", ct.info.Reused, tc.reuse)
						}
					}
					want := int64(2)
					if tc.reuse {
						want = 1
					}
					if n := srv.accepted.Load(); n != want {
						t.Errorf("%d connections, want %d", n, want)
					}
				})
			}
		})
	}
}

// TestCloseDelimited reads a body that ends when the server closes the
// connection; the connection is not kept.
func TestCloseDelimited(t *testing.T) {
	srv := startRaw(t, serveEach("HTTP/1.1 200 OK\r\n\r\nuntil the end", true))
	tr := &Transport{}
	for i := range 2 {
		resp, data, err := get(context.Background(), tr, srv.url())
		if err != nil || data != "until the end" || !resp.Close {
			t.Fatalf("request %d: %q, close %v, %v", i, data, resp != nil && resp.Close, err)
		}
	}
	if n := srv.accepted.Load(); n != 2 || idleCount(tr) != 0 {
		t.Errorf("%d connections (want 2), %d idle (want 0)", n, idleCount(tr))
	}
}

// TestNoKeepAlive: DisableKeepAlives, req.Close and a "Connection: close"
// request header each send "Connection: close" and use a new connection
// per request.
func TestNoKeepAlive(t *testing.T) {
	for _, tc := range []struct {
		name string
		tr   *Transport
		req  func(*http.Request)
	}{
		{"DisableKeepAlives", &Transport{DisableKeepAlives: true}, func(*http.Request) {}},
		{"req.Close", &Transport{}, func(r *http.Request) { r.Close = true }},
		{"header", &Transport{}, func(r *http.Request) { r.Header.Set("Connection", "close") }},
		{"no idle kept", &Transport{MaxIdleConnsPerHost: -1}, func(*http.Request) {}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var conn []string
			srv := startRaw(t, func(c net.Conn, br *bufio.Reader) {
				for {
					req, ok := readRequest(br)
					if !ok {
						return
					}
					mu.Lock()
					conn = append(conn, req.Header.Get("Connection"))
					mu.Unlock()
					io.WriteString(c, okResp) // keep-alive, as far as the server goes
				}
			})
			for range 2 {
				req, _ := http.NewRequest(http.MethodGet, srv.url(), nil)
				tc.req(req)
				resp, err := tc.tr.RoundTrip(req)
				if err != nil {
					t.Fatal(err)
				}
				io.ReadAll(resp.Body)
				resp.Body.Close()
				if req.Close != (tc.name == "req.Close") {
					t.Error("RoundTrip modified the request")
				}
			}
			if n := srv.accepted.Load(); n != 2 || idleCount(tc.tr) != 0 {
				t.Errorf("%d connections (want 2), %d idle", n, idleCount(tc.tr))
			}
			mu.Lock()
			defer mu.Unlock()
			if tc.name != "no idle kept" && (len(conn) != 2 || conn[0] != "close" || conn[1] != "close") {
				t.Errorf("Connection headers %q, want close twice", conn)
			}
		})
	}
}

// TestBadRequests: requests the transport cannot send fail at once, and
// their bodies are closed.
func TestBadRequests(t *testing.T) {
	for _, url := range []string{"ftp://example.com/x", "http:///nohost"} {
		body := &closeRecorder{Reader: strings.NewReader("x")}
		req, err := http.NewRequest(http.MethodPost, url, body)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := (&Transport{}).RoundTrip(req); err == nil || !body.closed {
			t.Errorf("%s: error %v, body closed %v", url, err, body.closed)
		}
	}
}

type closeRecorder struct {
	io.Reader
	closed bool
}

func (c *closeRecorder) Close() error { c.closed = true; return nil }

// TestMaxIdlePerHost: of three connections released together, one is kept
// with MaxIdleConnsPerHost 1; the others are closed, PutIdleConn saying
// why.
func TestMaxIdlePerHost(t *testing.T) {
	srv := startRaw(t, serveEach(okResp, false))
	tr := &Transport{MaxIdleConnsPerHost: 1}
	defer tr.CloseIdleConnections()
	var bodies []io.ReadCloser
	var traces []*connTrace
	for range 3 {
		ct := &connTrace{}
		req, _ := http.NewRequestWithContext(ct.context(context.Background()), http.MethodGet, srv.url(), nil)
		resp, err := tr.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		bodies, traces = append(bodies, resp.Body), append(traces, ct)
	}
	for _, b := range bodies {
		io.ReadAll(b)
		b.Close()
	}
	if n := idleCount(tr); n != 1 {
		t.Errorf("%d idle, want 1", n)
	}
	for i, ct := range traces {
		want := "PutIdleConn(<nil>)"
		if i > 0 {
			want = "PutIdleConn(" + errTooManyIdle.Error() + ")"
		}
		if s := ct.String(); !strings.HasSuffix(s, want) {
			t.Errorf("request %d hooks %q, want them to end with %s", i, s, want)
		}
	}
	tr.CloseIdleConnections()
	if n := idleCount(tr); n != 0 {
		t.Errorf("%d idle after CloseIdleConnections", n)
	}
}
