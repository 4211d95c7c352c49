package h1

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"testing"
)

// newPost returns a POST of body to url with headers h (added in order).
func newPost(t *testing.T, url, body string, h ...string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(h); i += 2 {
		req.Header.Add(h[i], h[i+1])
	}
	return req
}

// fastBytes writes req with writeRequest, reporting whether it took it.
func fastBytes(t *testing.T, req *http.Request) (string, bool) {
	t.Helper()
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	ok, err := writeRequest(w, req, contextTracer(req.Context()))
	if err != nil {
		t.Fatal(err)
	}
	w.Flush()
	if !ok && buf.Len() > 0 {
		t.Fatalf("declined after writing %q", buf.String())
	}
	return buf.String(), ok
}

// TestWriteRequestBytes checks the fast writer against a request written
// out by hand, and against net/http's Request.Write on the same requests
// (one with a body several times the 4 KiB write buffer).
func TestWriteRequestBytes(t *testing.T) {
	req := newPost(t, "http://127.0.0.1:8000/v1/chat/completions?x=1", `{"a":1}`,
		"User-Agent", "aiperf/1", "X-Request-ID", "r1", "Accept", "application/json", "Content-Type", "application/json",
		"X-Multi", "a", "X-Multi", "b")
	want := "POST /v1/chat/completions?x=1 HTTP/1.1\r\nHost: 127.0.0.1:8000\r\nUser-Agent: aiperf/1\r\nContent-Length: 7\r\n" +
		"Accept: application/json\r\nContent-Type: application/json\r\nX-Multi: a\r\nX-Multi: b\r\nX-Request-Id: r1\r\n\r\n{\"a\":1}"
	got, ok := fastBytes(t, req)
	if !ok || got != want {
		t.Fatalf("fast path %v, wrote\n%q\nwant\n%q", ok, got, want)
	}

	for _, tt := range []struct {
		name string
		req  func() *http.Request
	}{
		{"no user agent", func() *http.Request { return newPost(t, "http://h:1/p", "xy") }},
		{"empty user agent", func() *http.Request {
			r := newPost(t, "http://h:1/p", "xy")
			r.Header["User-Agent"] = nil
			return r
		}},
		{"https, default port, escaped path", func() *http.Request { return newPost(t, "https://h.example/a%20b/c?q=%2F", "z", "B", "2", "A", "1") }},
		{"ipv6", func() *http.Request { return newPost(t, "http://[::1]:9/x", "body", "Authorization", "Bearer k") }},
		{"host override", func() *http.Request {
			r := newPost(t, "http://127.0.0.1:9/x", "body")
			r.Host = "api.example:443"
			return r
		}},
		{"excluded keys in the map", func() *http.Request {
			r := newPost(t, "http://h/x", "body", "Trailer", "T", "Transfer-Encoding", "identity")
			r.Header["Content-Length"] = []string{"99"}
			r.Header["Host"] = []string{"other"}
			return r
		}},
		{"non-canonical key", func() *http.Request {
			r := newPost(t, "http://h/x", "body")
			r.Header["user-agent"] = []string{"lower"}
			return r
		}},
		{"body larger than the write buffer", func() *http.Request {
			return newPost(t, "http://h:1/p", strings.Repeat("0123456789", 1500), "X-A", "1")
		}},
		{"PUT, empty value", func() *http.Request {
			r := newPost(t, "http://h/x", "body", "X-Empty", "")
			r.Method = http.MethodPut
			return r
		}},
	} {
		fast, ok := fastBytes(t, tt.req())
		var buf bytes.Buffer
		if err := tt.req().Write(&buf); err != nil {
			t.Fatal(err)
		}
		if !ok || fast != buf.String() {
			t.Errorf("%s: fast path %v, wrote\n%q\nnet/http writes\n%q", tt.name, ok, fast, buf.String())
		}
	}
}

// TestWriteRequestDeclines checks that requests net/http writes with a
// change or an extra header go to net/http, before a byte is written.
func TestWriteRequestDeclines(t *testing.T) {
	trace := &httptrace.ClientTrace{WroteHeaderField: func(string, []string) {}}
	for _, tt := range []struct {
		name string
		req  func() *http.Request
	}{
		{"no body", func() *http.Request { r, _ := http.NewRequest("GET", "http://h/x", nil); return r }},
		{"empty body", func() *http.Request { return newPost(t, "http://h/x", "") }},
		{"unknown length", func() *http.Request {
			r := newPost(t, "http://h/x", "ab")
			r.ContentLength = -1
			return r
		}},
		{"chunked", func() *http.Request {
			r := newPost(t, "http://h/x", "ab")
			r.TransferEncoding = []string{"chunked"}
			return r
		}},
		{"close", func() *http.Request {
			r := newPost(t, "http://h/x", "ab")
			r.Close = true
			return r
		}},
		{"trailer", func() *http.Request {
			r := newPost(t, "http://h/x", "ab")
			r.Trailer = http.Header{"T": nil}
			return r
		}},
		{"newline in a value", func() *http.Request { return newPost(t, "http://h/x", "ab", "X-A", "a\nb") }},
		{"space around a value", func() *http.Request {
			r := newPost(t, "http://h/x", "ab")
			r.Header["X-A"] = []string{" a"}
			return r
		}},
		{"user agent with a tab", func() *http.Request {
			r := newPost(t, "http://h/x", "ab")
			r.Header["User-Agent"] = []string{"ua\t"}
			return r
		}},
		{"invalid key", func() *http.Request {
			r := newPost(t, "http://h/x", "ab")
			r.Header["X A"] = []string{"v"}
			return r
		}},
		{"unicode host", func() *http.Request { return newPost(t, "http://bücher.example/x", "ab") }},
		{"zone", func() *http.Request { return newPost(t, "http://[fe80::1%25en0]:8080/x", "ab") }},
		{"CONNECT", func() *http.Request {
			r := newPost(t, "http://h/x", "ab")
			r.Method = http.MethodConnect
			return r
		}},
		{"header field hook", func() *http.Request {
			return newPost(t, "http://h/x", "ab").WithContext(httptrace.WithClientTrace(context.Background(), trace))
		}},
	} {
		if got, ok := fastBytes(t, tt.req()); ok {
			t.Errorf("%s: took the fast path, wrote %q", tt.name, got)
		}
	}
}

// TestWriteRequestHooksAndBody checks the hooks' order, that the body is
// closed, and net/http's error for a body shorter or longer than its
// ContentLength (only ContentLength bytes are sent).
func TestWriteRequestHooksAndBody(t *testing.T) {
	var events []string
	trace := &httptrace.ClientTrace{
		WroteHeaders: func() { events = append(events, "headers") },
		WroteRequest: func(info httptrace.WroteRequestInfo) { events = append(events, "request", errString(info.Err)) },
	}
	for _, tt := range []struct {
		body    string
		length  int64
		wantErr string
		sent    string
	}{
		{"abc", 3, "", "abc"},
		{"abc", 5, "http: ContentLength=5 with Body length 3", "abc"},
		{"abcdef", 4, "http: ContentLength=4 with Body length 6", "abcd"},
	} {
		events = nil
		body := &closeCounter{Reader: strings.NewReader(tt.body)}
		req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), "POST", "http://h/x", body)
		req.ContentLength = tt.length
		var buf bytes.Buffer
		w := bufio.NewWriter(&buf)
		ok, err := writeRequest(w, req, contextTracer(req.Context()))
		w.Flush()
		if !ok || errString(err) != tt.wantErr {
			t.Errorf("length %d: fast %v, error %v, want %q", tt.length, ok, err, tt.wantErr)
		}
		if _, sent, _ := strings.Cut(buf.String(), "\r\n\r\n"); sent != tt.sent {
			t.Errorf("length %d: sent body %q, want %q", tt.length, sent, tt.sent)
		}
		if want := "headers request " + tt.wantErr; strings.Join(events, " ") != want {
			t.Errorf("length %d: hooks %q, want %q", tt.length, strings.Join(events, " "), want)
		}
		if body.closed != 1 {
			t.Errorf("length %d: body closed %d times", tt.length, body.closed)
		}
	}
}

type closeCounter struct {
	io.Reader
	closed int
}

func (c *closeCounter) Close() error { c.closed++; return nil }

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
