package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// streamDouble is a fault-injection server that answers every request with
// the given raw SSE body (a test double, as the mock server cannot produce
// these malformed streams).
func streamDouble(t *testing.T, body string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

const chunk = `data: {"object":"chat.completion.chunk","choices":[{"delta":{"content":" the"}}]}` + "\n\n"

func TestMalformedStreamsAreErrorRecords(t *testing.T) {
	for _, tc := range []struct {
		name, body, wantType, wantMsg string
	}{
		{"truncated mid-event", chunk + `data: {"object":"chat.comp`, "IncompleteStream", "middle of an event"},
		{"event error", chunk + "event: error\ndata: overloaded\n\n", "StreamError", "overloaded"},
		{"error object", chunk + `data: {"object":"error","type":"BadRequestError","message":"context too long"}` + "\n\n", "BadRequestError", "context too long"},
		{"not json", chunk + "data: <html>\n\n", "ResponseParseError", "<html>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, streamDouble(t, tc.body))
			cfg.Streaming = true
			cfg.RequestCount = 2
			res, err := Run(context.Background(), cfg, Options{})
			if !errors.Is(err, ErrAllFailed) {
				t.Fatalf("err %v", err)
			}
			e := res.Summary.Errors[0]
			if e.Count != 2 || e.Error.Type != tc.wantType || !strings.Contains(e.Error.Message, tc.wantMsg) {
				t.Fatalf("error %+v", e)
			}
		})
	}
}

func TestCleanStreamWithoutDoneIsAccepted(t *testing.T) {
	cfg := testConfig(t, streamDouble(t, chunk+chunk))
	cfg.Streaming = true
	cfg.RequestCount = 2
	res := runOK(t, cfg)
	if res.Summary.Valid != 2 {
		t.Fatalf("valid %d, errors %+v", res.Summary.Valid, res.Summary.Errors)
	}
}

func TestGoodputEndToEnd(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{OutputTokens: 4})
	cfg := testConfig(t, srv.URL())
	cfg.Streaming = true
	cfg.RequestCount = 5
	// Every request passes a 10 s TTFT SLO; none passes 1 µs.
	for _, tc := range []struct {
		spec string
		want float64
	}{{"time_to_first_token:10000", 5}, {"time_to_first_token:0.001", 0}} {
		cfg.Goodput = tc.spec
		cfg.ArtifactDir = t.TempDir()
		res := runOK(t, cfg)
		if got := res.Summary.Get("good_request_count").Avg; got != tc.want {
			t.Fatalf("%s: good requests %v, want %v", tc.spec, got, tc.want)
		}
		if gp := res.Summary.Get("goodput"); gp == nil || !gp.Console {
			t.Fatalf("%s: goodput missing from the console rows", tc.spec)
		}
	}
}

// TestStaleKeepAliveRetried: a server that drops a kept-alive connection
// when the next request arrives on it (as llama.cpp's server does after a
// stream) costs no error record: the request goes again on a new
// connection. A failure on a fresh connection is not retried.
func TestStaleKeepAliveRetried(t *testing.T) {
	var served sync.Map // connection → requests answered on it
	var attempts atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.NotFound(w, r) // the run's telemetry (identity, /metrics)
			return
		}
		attempts.Add(1)
		conn := r.Context().Value(connKey{}).(net.Conn)
		if _, again := served.LoadOrStore(conn, true); again {
			c, _, _ := w.(http.Hijacker).Hijack()
			c.Close() // the request arrived on a connection this server had given up
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, chunk+"data: [DONE]\n\n")
	}))
	srv.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context { return context.WithValue(ctx, connKey{}, c) }
	srv.Start()
	t.Cleanup(srv.Close)

	cfg := testConfig(t, srv.URL)
	cfg.Streaming = true
	cfg.Concurrency, cfg.RequestCount = 1, 5
	runOK(t, cfg)
	for i, r := range readRecords(t, cfg.ArtifactDir) {
		if r.Error != nil {
			t.Errorf("request %d: %+v", i, *r.Error)
		}
	}
	if n := attempts.Load(); n != 9 {
		t.Errorf("%d attempts, want 9: 5 requests, 4 of them first tried on a dropped connection", n)
	}
}

// TestEveryIdleConnStale: a server that closes every connection right
// after its response, announced as keep-alive, leaves all the idle
// connections stale at once; no request fails for it, whether the pool
// looks into its connections (plain TCP) or cannot (traced requests read
// through a byte counter) and each stale one costs a failed attempt.
func TestEveryIdleConnStale(t *testing.T) {
	const body = chunk + "data: [DONE]\n\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		io.WriteString(w, body)
		w.(http.Flusher).Flush()
		c, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			c.Close()
		}
	}))
	t.Cleanup(srv.Close)
	for _, traced := range []bool{false, true} {
		cfg := testConfig(t, srv.URL)
		cfg.Streaming, cfg.ShowTraceTiming = true, traced
		cfg.Concurrency, cfg.RequestCount = 4, 40
		runOK(t, cfg)
		recs := readRecords(t, cfg.ArtifactDir)
		if len(recs) != 40 {
			t.Fatalf("traced %v: %d records, want 40", traced, len(recs))
		}
		for i, r := range recs {
			if r.Error != nil {
				t.Errorf("traced %v: request %d: %+v", traced, i, *r.Error)
			}
		}
	}
}

type connKey struct{}
