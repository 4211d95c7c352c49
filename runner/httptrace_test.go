package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/endpoint"
	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
	"github.com/aiperf-go/aiperf/record"
)

// newTraceSender builds a tracing chat sender the way Run does, with its
// own transport.
func newTraceSender(t testing.TB, baseURL string, streaming bool) *sender {
	t.Helper()
	ep, err := endpoint.Lookup("chat")
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, baseURL)
	cfg.Streaming = streaming
	tr := newTransport(8)
	t.Cleanup(tr.CloseIdleConnections)
	return &sender{
		client: &http.Client{Transport: tr}, urls: []string{baseURL + ep.Path}, ep: ep,
		header: staticHeaders(cfg, ep, "test"), clock: record.NewClock(),
		timeout: 30 * time.Second, trace: true,
	}
}

// sendChat sends one chat request of 4 output tokens and returns its record.
func sendChat(s *sender, id string, streaming bool) *record.Record {
	payload := fmt.Sprintf(`{"model":"mock-model","messages":[{"role":"user","content":"hello there"}],"max_tokens":4,"stream":%v}`, streaming)
	rec := &record.Record{XRequestID: id, XCorrelationID: "c-" + id, Phase: record.PhaseProfiling, InputTokens: -1}
	s.send(context.Background(), rec, []byte(payload))
	return rec
}

// traceValues returns rec's http_req_* values (display units) by tag.
func traceValues(rec *record.Record) map[string]float64 {
	cfg := &metrics.Config{Streaming: rec.Streaming, HTTPTrace: true}
	out := map[string]float64{}
	for _, v := range metrics.Compute(cfg, rec) {
		if strings.HasPrefix(v.Tag, "http_req_") {
			out[v.Tag] = v.Value
		}
	}
	return out
}

// checkExchange checks the invariants of a successful traced request:
// every phase present, sending + waiting + receiving = duration within
// 1 µs (0.001 ms), and the causal order of the trace.
func checkExchange(t *testing.T, rec *record.Record) map[string]float64 {
	t.Helper()
	if rec.Error != nil {
		t.Fatalf("request failed: %+v", *rec.Error)
	}
	tr := rec.HTTPTrace
	if tr == nil {
		t.Fatal("no HTTP trace")
	}
	v := traceValues(rec)
	if len(v) != 14 {
		t.Errorf("%d trace metrics, want 14: %v", len(v), v)
	}
	if d := v["http_req_sending"] + v["http_req_waiting"] + v["http_req_receiving"] - v["http_req_duration"]; math.Abs(d) > 1e-3 {
		t.Errorf("sending+waiting+receiving - duration = %g ms", d)
	}
	order := []int64{rec.StartNS, tr.GetConnNS, tr.GotConnNS, tr.WroteHeadersNS, tr.WroteRequestNS,
		tr.FirstByteNS, tr.HeadersNS, tr.BodyStartNS, tr.BodyEndNS}
	for i := 1; i < len(order); i++ {
		if order[i] < order[i-1] || order[i] == 0 {
			t.Errorf("trace out of order at %d: %v", i, order)
			break
		}
	}
	return v
}

// TestHTTPTraceStreaming sends three streamed requests one after the other
// through a counting proxy: the first dials, the others reuse its
// connection; waiting is the mock's TTFT; the bytes and the server's
// timeline match what the client recorded.
func TestHTTPTraceStreaming(t *testing.T) {
	const ttft = 20 * time.Millisecond
	srv := mocktest.Start(t, mockserver.Config{TTFT: ttft, ITL: 2 * time.Millisecond, TokensPerChunk: 1,
		NoRoleChunk: true, RecordTimelines: true})
	px := startProxy(t, srv.Addr())
	s := newTraceSender(t, px.url(), true)
	for i := range 3 {
		up, down := px.up.Load(), px.down.Load()
		id := fmt.Sprintf("r%d", i)
		rec := sendChat(s, id, true)
		v := checkExchange(t, rec)
		tr := rec.HTTPTrace
		if i == 0 {
			if tr.Reused || v["http_req_connection_reused"] != 0 || v["http_req_connecting"] <= 0 ||
				tr.ConnectStartNS == 0 || tr.ConnectDoneNS == 0 {
				t.Errorf("request 0 on a new connection: reused %v, connecting %v ms", tr.Reused, v["http_req_connecting"])
			}
		} else {
			for _, tag := range []string{"http_req_blocked", "http_req_dns_lookup", "http_req_connecting", "http_req_connection_overhead"} {
				if v[tag] != 0 {
					t.Errorf("request %d on a reused connection: %s = %v", i, tag, v[tag])
				}
			}
			if !tr.Reused || v["http_req_connection_reused"] != 1 {
				t.Errorf("request %d: connection not reused", i)
			}
		}
		// The server answers TTFT after the request arrived; the tolerance
		// allows a loaded 2-core machine running -race (the write's stamp
		// may come late when its goroutine is descheduled).
		if w := time.Duration(v["http_req_waiting"] * 1e6); w < ttft-5*time.Millisecond || w > ttft+60*time.Millisecond {
			t.Errorf("request %d: waiting %v, want about %v", i, w, ttft)
		}
		if !tr.Counted || tr.BytesReceived != px.down.Load()-down || tr.BytesSent != px.up.Load()-up {
			t.Errorf("request %d: counted %v, sent %d received %d; the proxy saw %d and %d",
				i, tr.Counted, tr.BytesSent, tr.BytesReceived, px.up.Load()-up, px.down.Load()-down)
		}
		if want := float64(tr.BytesReceived) / 1024; v["http_req_data_received"] != want {
			t.Errorf("data_received %v KB, want %v", v["http_req_data_received"], want)
		}
		if tr.ChunksSent < 1 || tr.ChunksReceived < 1 || tr.ChunksReceived > tr.BytesReceived {
			t.Errorf("chunks sent %d, received %d", tr.ChunksSent, tr.ChunksReceived)
		}
		// The client read each write after the server made it.
		tl, ok := srv.Timeline(id)
		if !ok || len(tl.Events) == 0 {
			t.Fatalf("no server timeline for %s", id)
		}
		at := func(e mockserver.Event) int64 { return int64(e.At.Sub(s.clock.Origin())) }
		if first, last := at(tl.Events[0]), at(tl.Events[len(tl.Events)-1]); tr.BodyStartNS < first || tr.BodyEndNS < last {
			t.Errorf("body read %d..%d before the server wrote it %d..%d", tr.BodyStartNS, tr.BodyEndNS, first, last)
		}
		if arr := int64(tl.Arrival.Sub(s.clock.Origin())); arr < tr.GotConnNS {
			t.Errorf("server saw the request at %d, before the client had a connection at %d", arr, tr.GotConnNS)
		}
	}
	if n := px.accepted.Load(); n != 1 {
		t.Errorf("%d connections, want 1", n)
	}
}

// TestHTTPTraceNonStreaming: a JSON response is traced too, its bytes
// (headers and body) counted exactly.
func TestHTTPTraceNonStreaming(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{TTFT: 5 * time.Millisecond})
	px := startProxy(t, srv.Addr())
	s := newTraceSender(t, px.url(), false)
	rec := sendChat(s, "n0", false)
	checkExchange(t, rec)
	if tr := rec.HTTPTrace; tr.BytesReceived != px.down.Load() || tr.BytesSent != px.up.Load() {
		t.Errorf("sent %d received %d; the proxy saw %d and %d", tr.BytesSent, tr.BytesReceived, px.up.Load(), px.down.Load())
	}
}

// TestHTTPTraceConcurrent sends requests from several goroutines over a
// shared pool (run with -race): every byte is attributed to exactly one
// request, and every request's phases add up.
func TestHTTPTraceConcurrent(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{TTFT: time.Millisecond, ITL: 100 * time.Microsecond, TokensPerChunk: 1})
	px := startProxy(t, srv.Addr())
	s := newTraceSender(t, px.url(), true)
	const workers, each = 6, 5
	recs := make([]*record.Record, workers*each)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				recs[w*each+i] = sendChat(s, fmt.Sprintf("w%d-%d", w, i), true)
			}
		})
	}
	wg.Wait()
	var sent, received int64
	for _, rec := range recs {
		checkExchange(t, rec)
		sent += rec.HTTPTrace.BytesSent
		received += rec.HTTPTrace.BytesReceived
	}
	if sent != px.up.Load() || received != px.down.Load() {
		t.Errorf("records sent %d received %d; the proxy saw %d and %d", sent, received, px.up.Load(), px.down.Load())
	}
}

// TestHTTPTraceDNS: a host name is looked up once, on the new connection.
func TestHTTPTraceDNS(t *testing.T) {
	if _, err := net.LookupHost("localhost"); err != nil {
		t.Skip("localhost does not resolve here")
	}
	srv := mocktest.Start(t, mockserver.Config{})
	_, port, _ := net.SplitHostPort(srv.Addr())
	s := newTraceSender(t, "http://localhost:"+port, true)
	first := checkExchange(t, sendChat(s, "d0", true))
	if first["http_req_dns_lookup"] <= 0 {
		t.Errorf("dns_lookup %v ms on a new connection to localhost", first["http_req_dns_lookup"])
	}
	if second := checkExchange(t, sendChat(s, "d1", true)); second["http_req_dns_lookup"] != 0 {
		t.Errorf("dns_lookup %v ms on a reused connection", second["http_req_dns_lookup"])
	}
}

// TestHTTPTraceStaleRetry: with tracing on, a request first tried on a
// kept-alive connection the server had dropped is retried, and its trace
// is the second attempt's, on a new connection.
func TestHTTPTraceStaleRetry(t *testing.T) {
	var served sync.Map
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		conn := r.Context().Value(connKey{}).(net.Conn)
		if _, again := served.LoadOrStore(conn, true); again {
			c, _, _ := w.(http.Hijacker).Hijack()
			c.Close()
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, chunk+"data: [DONE]\n\n")
	}))
	srv.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context { return context.WithValue(ctx, connKey{}, c) }
	srv.Start()
	t.Cleanup(srv.Close)
	s := newTraceSender(t, srv.URL, true)
	checkExchange(t, sendChat(s, "s0", true))
	rec := sendChat(s, "s1", true)
	v := checkExchange(t, rec)
	if rec.HTTPTrace.Reused || v["http_req_connecting"] <= 0 {
		t.Errorf("retried request: reused %v, connecting %v ms", rec.HTTPTrace.Reused, v["http_req_connecting"])
	}
}

// TestHTTPTraceOff: without tracing no record carries a trace.
func TestHTTPTraceOff(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{})
	s := newTraceSender(t, srv.URL(), true)
	s.trace = false
	if rec := sendChat(s, "o0", true); rec.Error != nil || rec.HTTPTrace != nil {
		t.Errorf("error %v, trace %v", rec.Error, rec.HTTPTrace)
	}
}

// TestHTTPTraceRun runs whole benchmarks: --show-trace-timing prints the
// HTTP Trace Timing table after the metrics table and puts the http_req_*
// metrics in the records and the summary; --export-http-trace adds
// trace_data to every record (raw ones too); a 1.0 run without them has
// none of them.
func TestHTTPTraceRun(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{TTFT: 2 * time.Millisecond, ITL: 200 * time.Microsecond})
	run := func(show, export bool) (string, []jsonRecord, []string, string) {
		cfg := testConfig(t, srv.URL())
		cfg.Streaming = true
		cfg.Concurrency, cfg.RequestCount = 2, 6
		cfg.ShowTraceTiming, cfg.ExportHTTPTrace = show, export
		cfg.OutputSchema = "1.0" // 1.4 traces every run (TestHTTPTraceSchema14)
		if export {
			cfg.ExportLevel = "raw"
		}
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		var stdout bytes.Buffer
		if _, err := Run(context.Background(), cfg, Options{Version: "test", Stdout: &stdout}); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(cfg.ArtifactDir, "profile_export.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		var traces []string
		for line := range strings.SplitSeq(strings.TrimSpace(string(data)), "\n") {
			var doc struct {
				TraceData json.RawMessage `json:"trace_data"`
			}
			if err := json.Unmarshal([]byte(line), &doc); err != nil {
				t.Fatal(err)
			}
			traces = append(traces, string(doc.TraceData))
		}
		summary, err := os.ReadFile(filepath.Join(cfg.ArtifactDir, "profile_export_aiperf.json"))
		if err != nil {
			t.Fatal(err)
		}
		if export {
			raw, err := os.ReadFile(filepath.Join(cfg.ArtifactDir, "profile_export_raw.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			for line := range strings.SplitSeq(strings.TrimSpace(string(raw)), "\n") {
				if !strings.Contains(line, `"trace_data":{"trace_type":"net/http",`) {
					t.Errorf("raw record without trace_data: %s", line)
				}
			}
		}
		return stdout.String(), readRecords(t, cfg.ArtifactDir), traces, string(summary)
	}

	out, recs, traces, summary := run(true, false)
	table, trace, found := strings.Cut(out, "NVIDIA AIPerf | HTTP Trace Timing")
	if !found {
		t.Fatalf("no HTTP Trace Timing table: run.go must set sender.trace and metrics.Config.HTTPTrace from traceHTTP(cfg)\n%s", out)
	}
	if !strings.Contains(table, "NVIDIA AIPerf | LLM Metrics") || strings.Contains(table, " HTTP ") {
		t.Errorf("the metrics table must come first, without HTTP rows:\n%s", table)
	}
	for _, row := range []string{"HTTP Blocked (ms)", "HTTP Waiting (TTFB) (ms)", "HTTP Data Received (KB)",
		"HTTP Connection Reused (ratio)", "HTTP Duration (excl. conn) (ms)", "HTTP Total Time (ms)"} {
		if !strings.Contains(trace, row) {
			t.Errorf("trace table has no %q row:\n%s", row, trace)
		}
	}
	for _, r := range recs {
		if _, ok := r.num("http_req_waiting"); !ok {
			t.Errorf("record %s has no http_req_waiting", r.Metadata.XRequestID)
		}
	}
	if traces[0] != "" || !strings.Contains(summary, `"http_req_duration": {`) {
		t.Errorf("--show-trace-timing alone: trace_data %q, summary has http_req_duration %v", traces[0], strings.Contains(summary, "http_req_duration"))
	}

	out, _, traces, _ = run(false, true)
	if strings.Contains(out, "HTTP Trace Timing") {
		t.Error("trace table printed without --show-trace-timing")
	}
	for i, tr := range traces {
		if !strings.HasPrefix(tr, `{"trace_type":"net/http","get_conn_ns":`) || !strings.Contains(tr, `"duration_ns":`) {
			t.Errorf("record %d trace_data %s", i, tr)
		}
	}

	out, recs, traces, summary = run(false, false)
	if strings.Contains(out, "HTTP Trace Timing") || strings.Contains(out, " HTTP ") ||
		strings.Contains(summary, "http_req_") || traces[0] != "" {
		t.Errorf("a 1.0 run shows HTTP trace metrics:\n%s", out)
	}
	for _, r := range recs {
		for tag := range r.Metrics {
			if strings.HasPrefix(tag, "http_req_") {
				t.Errorf("a 1.0 run's record has %s", tag)
			}
		}
	}
}

// BenchmarkSend measures the client's cost of one request, one at a time
// over a kept-alive connection, with HTTP tracing off and on (the mock
// server runs in another process).
func BenchmarkSend(b *testing.B) {
	url := startMockProcessTB(b, mockserver.Config{OutputTokens: 20, TokensPerChunk: 1, NoRoleChunk: true, EstimatePromptTokens: true})
	for _, streaming := range []bool{false, true} {
		for _, trace := range []bool{false, true} {
			b.Run(fmt.Sprintf("streaming=%v/trace=%v", streaming, trace), func(b *testing.B) {
				s := newTraceSender(b, url, streaming)
				s.trace = trace
				b.ReportAllocs()
				for b.Loop() {
					if rec := sendChat(s, "b", streaming); rec.Error != nil {
						b.Fatal(*rec.Error)
					}
				}
			})
		}
	}
}
