package runner

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/aiperf-go/aiperf/endpoint"
	"github.com/aiperf-go/aiperf/record"
)

// testKey is a context key of the tests.
type testKey struct{}

// TestNewRequestFromTemplates checks the request built from the sender's
// templates field by field against values written here: method, URL,
// host, headers (user headers with two values, the ones aiperf owns, the
// request's ids under their canonical names), body and GetBody; that a
// request's headers can be changed without reaching the next request; and
// that a URL that does not parse fails as http.NewRequest fails.
func TestNewRequestFromTemplates(t *testing.T) {
	ep, err := endpoint.Lookup("chat")
	if err != nil {
		t.Fatal(err)
	}
	cfg := &Config{Headers: []string{"X-Team: a", "x-team: b", "Authorization: Bearer k"}}
	s := &sender{urls: []string{"http://127.0.0.1:9/v1/chat/completions", "http://h.example:8080/v1/x?q=1"},
		ep: ep, header: staticHeaders(cfg, ep, "test")}
	ctx := context.WithValue(context.Background(), testKey{}, 1)
	for i, want := range []struct{ url, host, path string }{
		{"http://127.0.0.1:9/v1/chat/completions", "127.0.0.1:9", "/v1/chat/completions"},
		{"http://h.example:8080/v1/x?q=1", "h.example:8080", "/v1/x"},
	} {
		rec := &record.Record{URLIndex: i, XRequestID: "r1", XCorrelationID: "c1"}
		req, err := s.newRequest(ctx, rec, s.urls[rec.URLIndex], []byte(`{"a":1}`))
		if err != nil {
			t.Fatal(err)
		}
		if req.Method != "POST" || req.URL.String() != want.url || req.Host != want.host || req.URL.Path != want.path ||
			req.ContentLength != 7 || req.Context() != ctx || req.Proto != "HTTP/1.1" {
			t.Errorf("url %d: got %s %s host %q len %d proto %s", i, req.Method, req.URL, req.Host, req.ContentLength, req.Proto)
		}
		wantHeader := http.Header{
			"X-Team":           {"a", "b"},
			"Authorization":    {"Bearer k"},
			"User-Agent":       {"aiperf/test"},
			"Content-Type":     {"application/json"},
			"Accept":           {"application/json"},
			"X-Request-Id":     {"r1"},
			"X-Correlation-Id": {"c1"},
		}
		if !reflect.DeepEqual(req.Header, wantHeader) {
			t.Errorf("url %d: header %v, want %v", i, req.Header, wantHeader)
		}
		for j := 0; j < 2; j++ { // the body, then GetBody twice
			var body io.ReadCloser = req.Body
			if j > 0 {
				if body, err = req.GetBody(); err != nil {
					t.Fatal(err)
				}
			}
			if b, _ := io.ReadAll(body); string(b) != `{"a":1}` {
				t.Errorf("url %d: body %d is %q", i, j, b)
			}
		}
		req.Header.Add("X-Team", "c")
		req.Header.Set("Accept", "x")
	}
	req, _ := s.newRequest(ctx, &record.Record{XRequestID: "r2", XCorrelationID: "c2"}, s.urls[0], nil)
	if got := req.Header["X-Team"]; !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("a changed request's header reached the next: X-Team %v", got)
	}
	if got := req.Header.Get("Accept") + req.Header.Get("X-Request-ID"); got != "application/jsonr2" {
		t.Errorf("next request: Accept+X-Request-ID %q", got)
	}
	if req.Body != http.NoBody || req.ContentLength != 0 {
		t.Errorf("empty payload: body %v, length %d", req.Body, req.ContentLength)
	}

	bad := &sender{urls: []string{"http://[::1"}, ep: ep, header: http.Header{}}
	_, err = bad.newRequest(ctx, &record.Record{}, bad.urls[0], nil)
	_, want := http.NewRequest("POST", "http://[::1", nil)
	if err == nil || want == nil || err.Error() != want.Error() {
		t.Errorf("bad URL: error %v, want %v", err, want)
	}
}

// TestSendHeadersOnTheWire sends requests from several goroutines through
// one sender and checks what the server received: each request its own
// ids, the static headers, the body.
func TestSendHeadersOnTheWire(t *testing.T) {
	var mu sync.Mutex
	got := map[string]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got[r.Header.Get("X-Request-ID")] = strings.Join([]string{r.Header.Get("X-Correlation-ID"),
			r.Header.Get("User-Agent"), r.Header.Get("Content-Type"), r.Header.Get("Accept"), string(b)}, "|")
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"x"}}]}`)
	}))
	defer srv.Close()
	ep, err := endpoint.Lookup("chat")
	if err != nil {
		t.Fatal(err)
	}
	tr := newTransport(8)
	defer tr.CloseIdleConnections()
	s := &sender{client: &http.Client{Transport: tr}, urls: []string{srv.URL + ep.Path}, ep: ep,
		header: staticHeaders(&Config{}, ep, "v1"), clock: record.NewClock(), connDeadline: true}
	var wg sync.WaitGroup
	for _, id := range []string{"a", "b", "c", "d", "e", "f"} {
		wg.Go(func() {
			rec := &record.Record{XRequestID: id, XCorrelationID: "corr-" + id}
			s.send(context.Background(), rec, []byte(`{"n":"`+id+`"}`))
			if rec.Error != nil {
				t.Errorf("%s: %v", id, rec.Error)
			}
		})
	}
	wg.Wait()
	for _, id := range []string{"a", "b", "c", "d", "e", "f"} {
		if want := "corr-" + id + `|aiperf/v1|application/json|application/json|{"n":"` + id + `"}`; got[id] != want {
			t.Errorf("request %s: server got %q, want %q", id, got[id], want)
		}
	}
}

// TestWorkerID checks the worker names against fmt's "worker_%08x" of
// slot × 0x9E3779B1 (mod 2^32), computed by hand.
func TestWorkerID(t *testing.T) {
	for slot, want := range map[int]string{0: "worker_00000000", 1: "worker_9e3779b1", 2: "worker_3c6ef362", 7: "worker_538453d7"} {
		if got := workerID(slot); got != want {
			t.Errorf("workerID(%d) = %s, want %s", slot, got, want)
		}
	}
}

// TestIsEventStream checks the media type test, with and without the
// quick answer for content types that do not name event-stream.
func TestIsEventStream(t *testing.T) {
	for ct, want := range map[string]bool{
		"text/event-stream":                  true,
		"Text/Event-Stream; charset=utf-8":   true,
		" TEXT/EVENT-STREAM ":                true,
		"application/json":                   false,
		"application/json; charset=utf-8":    false,
		"":                                   false,
		"application/json; x=event-stream":   false,
		"text/event-streams":                 false,
		"application/vnd.amazon.eventstream": false,
		"event-stream":                       false,
	} {
		if got := isEventStream(ct); got != want {
			t.Errorf("isEventStream(%q) = %v, want %v", ct, got, want)
		}
	}
	for _, tt := range []struct {
		s    string
		want bool
	}{{"xx-EVENT-stream", true}, {"event-strea", false}, {"Event-Stream", true}, {"", false}} {
		if got := containsFold(tt.s, "event-stream"); got != tt.want {
			t.Errorf("containsFold(%q) = %v", tt.s, got)
		}
	}
}
