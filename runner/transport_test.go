package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// urlRecord is the part of a profile_export.jsonl line the multi-URL tests
// read: url_index is only written by runs with several --url.
type urlRecord struct {
	Metadata struct {
		XRequestID     string `json:"x_request_id"`
		XCorrelationID string `json:"x_correlation_id"`
		SessionNum     int    `json:"session_num"`
		TurnIndex      int    `json:"turn_index"`
		URLIndex       *int   `json:"url_index"`
	} `json:"metadata"`
	Error *struct {
		Type string `json:"type"`
	} `json:"error"`
}

func readURLRecords(t *testing.T, dir string) []urlRecord {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "profile_export.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []urlRecord
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r urlRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("bad line %v: %s", err, line)
		}
		out = append(out, r)
	}
	return out
}

// readURLSummary returns the summary JSON's url_summary.
func readURLSummary(t *testing.T, dir string) []URLCount {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "profile_export_aiperf.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		URLs []URLCount `json:"url_summary"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return s.URLs
}

// TestMultiURLRoundRobin: at concurrency 1, requests alternate exactly
// between two servers; each server saw exactly the requests whose records
// name it, and the summary counts them.
func TestMultiURLRoundRobin(t *testing.T) {
	a := mocktest.Start(t, mockserver.Config{OutputTokens: 3, RecordTimelines: true})
	b := mocktest.Start(t, mockserver.Config{OutputTokens: 3, RecordTimelines: true})
	cfg := testConfig(t, a.URL())
	cfg.URLs = []string{a.URL(), b.URL()}
	cfg.Streaming = true
	cfg.Concurrency = 1
	cfg.RequestCount = 10
	var console bytes.Buffer
	res, err := Run(context.Background(), cfg, Options{Version: "test", Stdout: &console})
	if err != nil || res.Summary.Valid != 10 {
		t.Fatalf("run: %v", err)
	}
	if !strings.Contains(console.String(), "Requests per URL") ||
		!strings.Contains(console.String(), "[1] "+b.URL()+"/v1/chat/completions: 5 requests, 0 errors") {
		t.Errorf("console lacks the per-URL counts:\n%s", console.String())
	}
	// One request per session, one at a time: session_num is the send
	// order, and the URL alternates with it.
	servers := []*mockserver.Server{a, b}
	recs := readURLRecords(t, cfg.ArtifactDir)
	seen := map[int]bool{}
	for _, r := range recs {
		m := r.Metadata
		seen[m.SessionNum] = true
		if m.URLIndex == nil || *m.URLIndex != m.SessionNum%2 {
			t.Fatalf("session %d: url_index %v, want %d", m.SessionNum, m.URLIndex, m.SessionNum%2)
		}
		if _, ok := servers[*m.URLIndex].Timeline(m.XRequestID); !ok {
			t.Errorf("session %d: server %d never saw it", m.SessionNum, *m.URLIndex)
		}
	}
	if len(recs) != 10 || len(seen) != 10 {
		t.Fatalf("%d records of %d sessions, want 10 of 10", len(recs), len(seen))
	}
	if na, nb := len(a.Timelines()), len(b.Timelines()); na != 5 || nb != 5 {
		t.Fatalf("servers saw %d and %d requests, want 5 and 5", na, nb)
	}
	got := readURLSummary(t, cfg.ArtifactDir)
	if len(got) != 2 || got[0].Requests != 5 || got[1].Requests != 5 || got[0].Errors+got[1].Errors != 0 ||
		got[0].URL != a.URL()+"/v1/chat/completions" || got[1].Index != 1 {
		t.Fatalf("url_summary %+v", got)
	}
}

// TestMultiURLSessionsSticky: every turn of a multi-turn session goes to
// the server its first turn went to, as the servers themselves saw it, and
// sessions alternate between the servers.
func TestMultiURLSessionsSticky(t *testing.T) {
	a := mocktest.Start(t, mockserver.Config{OutputTokens: 2, RecordTimelines: true})
	b := mocktest.Start(t, mockserver.Config{OutputTokens: 2, RecordTimelines: true})
	cfg := testConfig(t, a.URL())
	cfg.URLs = []string{a.URL(), b.URL()}
	cfg.Concurrency = 3
	cfg.NumSessions = 8
	cfg.SessionTurnsMean = 3
	runOK(t, cfg)
	server := map[string]int{} // correlation id -> server index
	for i, s := range []*mockserver.Server{a, b} {
		for _, tl := range s.Timelines() {
			if prev, ok := server[tl.CorrelationID]; ok && prev != i {
				t.Fatalf("session %s reached both servers", tl.CorrelationID)
			}
			server[tl.CorrelationID] = i
		}
	}
	if len(server) != 8 {
		t.Fatalf("%d sessions seen, want 8", len(server))
	}
	perServer := [2]int{}
	for _, i := range server {
		perServer[i]++
	}
	if perServer != [2]int{4, 4} {
		t.Fatalf("sessions per server %v, want 4 and 4", perServer)
	}
	recs := readURLRecords(t, cfg.ArtifactDir)
	if len(recs) != 24 {
		t.Fatalf("%d records, want 24", len(recs))
	}
	for _, r := range recs {
		if *r.Metadata.URLIndex != server[r.Metadata.XCorrelationID] {
			t.Fatalf("record says url %d, the servers say %d", *r.Metadata.URLIndex, server[r.Metadata.XCorrelationID])
		}
	}
}

// TestMultiURLOneFailing: a server that answers every request with 503
// gets error records for its share only, counted per URL in the summary.
func TestMultiURLOneFailing(t *testing.T) {
	good := mocktest.Start(t, mockserver.Config{OutputTokens: 2})
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "overloaded", http.StatusServiceUnavailable)
	}))
	t.Cleanup(bad.Close)
	cfg := testConfig(t, good.URL())
	cfg.URLs = []string{good.URL(), bad.URL}
	cfg.Concurrency = 2
	cfg.RequestCount = 12
	cfg.FailureWindow = 0
	res := runOK(t, cfg)
	if res.Summary.Valid != 6 || res.Summary.Failed != 6 {
		t.Fatalf("valid %d failed %d, want 6 and 6", res.Summary.Valid, res.Summary.Failed)
	}
	for _, r := range readURLRecords(t, cfg.ArtifactDir) {
		if failed := r.Error != nil; failed != (*r.Metadata.URLIndex == 1) {
			t.Fatalf("request %s on url %d: error %+v", r.Metadata.XRequestID, *r.Metadata.URLIndex, r.Error)
		}
	}
	got := readURLSummary(t, cfg.ArtifactDir)
	if len(got) != 2 || got[0] != (URLCount{0, good.URL() + "/v1/chat/completions", 6, 0}) || got[1].Requests != 6 || got[1].Errors != 6 {
		t.Fatalf("url_summary %+v", got)
	}
}

// TestMultiURLReadinessChecksEvery: a second URL nobody listens on stops
// the run before any request, naming that server.
func TestMultiURLReadinessChecksEvery(t *testing.T) {
	a := mocktest.Start(t, mockserver.Config{RecordTimelines: true})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := ln.Addr().String()
	ln.Close()
	cfg := testConfig(t, a.URL())
	cfg.URLs = []string{a.URL(), dead}
	_, err = Run(context.Background(), cfg, Options{})
	if err == nil || !strings.Contains(err.Error(), "cannot reach the server at "+dead) {
		t.Fatalf("err %v", err)
	}
	if n := len(a.Timelines()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

// TestSingleURLWritesNoURLIndex: one --url keeps AIPerf's record and
// summary layout (no url_index, no url_summary).
func TestSingleURLWritesNoURLIndex(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{OutputTokens: 2})
	cfg := testConfig(t, srv.URL())
	cfg.RequestCount = 2
	runOK(t, cfg)
	for _, r := range readURLRecords(t, cfg.ArtifactDir) {
		if r.Metadata.URLIndex != nil {
			t.Fatal("url_index written for a single URL")
		}
	}
	if got := readURLSummary(t, cfg.ArtifactDir); got != nil {
		t.Fatalf("url_summary %+v", got)
	}
}

// startTLSMock starts a mock server over HTTPS with a fresh self-signed
// certificate and returns it with the path of its certificate (the CA).
func startTLSMock(t *testing.T, cfg mockserver.Config) (*mockserver.Server, string) {
	t.Helper()
	certPEM, keyPEM, err := mockserver.SelfSigned()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.TLS, err = mockserver.TLSConfig(certPEM, keyPEM); err != nil {
		t.Fatal(err)
	}
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	return mocktest.Start(t, cfg), ca
}

// TestTLSStreamingWithCACert: a streaming chat run over HTTPS trusting the
// mock's certificate with --ca-cert counts tokens exactly, with TTFT as
// close to the server's as over plain HTTP; the server's /metrics is
// scraped over HTTPS too.
func TestTLSStreamingWithCACert(t *testing.T) {
	const ttft = 20 * time.Millisecond
	srv, ca := startTLSMock(t, mockserver.Config{TTFT: ttft, ITL: time.Millisecond, OutputTokens: 12, TokensPerChunk: 1, NoRoleChunk: true})
	if !strings.HasPrefix(srv.URL(), "https://") {
		t.Fatalf("url %s", srv.URL())
	}
	cfg := testConfig(t, srv.URL())
	cfg.CACert = ca
	cfg.Streaming = true
	cfg.Concurrency = 2
	cfg.RequestCount = 6
	cfg.OSLMean = 12
	res := runOK(t, cfg)
	if res.Summary.Valid != 6 {
		t.Fatalf("%d valid", res.Summary.Valid)
	}
	for _, r := range readRecords(t, cfg.ArtifactDir) {
		osl, _ := r.num("output_sequence_length")
		usage, _ := r.num("usage_completion_tokens")
		isl, _ := r.num("input_sequence_length")
		if osl != 12 || usage != 12 || isl != 32 {
			t.Fatalf("osl %v usage %v isl %v; want 12, 12, 32", osl, usage, isl)
		}
		v, _ := r.num("time_to_first_token")
		if got := time.Duration(v * 1e6); got < ttft-5*time.Millisecond || got > ttft+60*time.Millisecond {
			t.Errorf("TTFT %v, want about %v", got, ttft)
		}
	}
	if _, err := os.Stat(filepath.Join(cfg.ArtifactDir, "server_metrics_export.json")); err != nil {
		t.Errorf("no server metrics over https: %v", err)
	}
}

// TestTLSUntrustedFailsUpFront: without the CA the readiness check's TLS
// handshake stops the run with one certificate error naming the fixes,
// before any request; --insecure (or AIPERF_HTTP_SSL_VERIFY=false) runs.
func TestTLSUntrustedFailsUpFront(t *testing.T) {
	srv, _ := startTLSMock(t, mockserver.Config{OutputTokens: 2, RecordTimelines: true})
	cfg := testConfig(t, srv.URL())
	_, err := Run(context.Background(), cfg, Options{})
	if err == nil || !strings.Contains(err.Error(), "certificate") || !strings.Contains(err.Error(), "--ca-cert") ||
		!strings.Contains(err.Error(), "--insecure") {
		t.Fatalf("err %v", err)
	}
	t.Log(err)
	if n := len(srv.Timelines()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}

	cfg = testConfig(t, srv.URL())
	cfg.Insecure = true
	cfg.Streaming = true
	cfg.RequestCount = 3
	if res := runOK(t, cfg); res.Summary.Valid != 3 {
		t.Fatalf("--insecure: %d valid", res.Summary.Valid)
	}
}

// TestTLSConfigProblems: a --ca-cert that is missing or holds no PEM, or
// given with --insecure, is a usage error naming the flag.
func TestTLSConfigProblems(t *testing.T) {
	notPEM := filepath.Join(t.TempDir(), "x.pem")
	if err := os.WriteFile(notPEM, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		caCert   string
		insecure bool
		want     string
	}{
		{"missing", filepath.Join(t.TempDir(), "none.pem"), false, "--ca-cert: open"},
		{"not pem", notPEM, false, "no PEM certificate found"},
		{"with insecure", notPEM, true, "--ca-cert and --insecure"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, "localhost:1")
			cfg.CACert, cfg.Insecure = tc.caCert, tc.insecure
			if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
}

// TestHTTPTraceTLSHandshake: over a real TLS connection the first
// request's trace has the handshake inside http_req_connecting, and a
// reused connection has none.
func TestHTTPTraceTLSHandshake(t *testing.T) {
	srv, ca := startTLSMock(t, mockserver.Config{OutputTokens: 4})
	s := newTraceSender(t, srv.URL(), true)
	cfg := testConfig(t, srv.URL())
	cfg.CACert = ca
	tc, err := tlsConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	tr := newTransport(8)
	tr.TLSClientConfig = tc
	t.Cleanup(tr.CloseIdleConnections)
	s.client = &http.Client{Transport: tr}
	for i := range 2 {
		rec := sendChat(s, "tls"+string(rune('a'+i)), true)
		v := checkExchange(t, rec)
		h := rec.HTTPTrace
		hs := h.TLSDoneNS - h.TLSStartNS
		if i == 0 {
			if h.TLSStartNS == 0 || hs <= 0 || h.TLSStartNS < h.ConnectDoneNS {
				t.Fatalf("first request: TLS %d..%d after connect %d", h.TLSStartNS, h.TLSDoneNS, h.ConnectDoneNS)
			}
			if conn := v["http_req_connecting"] * 1e6; conn < float64(hs) {
				t.Errorf("http_req_connecting %v ns < TLS handshake %d ns", conn, hs)
			}
		} else if h.TLSStartNS != 0 || !h.Reused || v["http_req_connecting"] != 0 {
			t.Errorf("reused connection: TLS start %d, reused %v, connecting %v", h.TLSStartNS, h.Reused, v["http_req_connecting"])
		}
	}
}
