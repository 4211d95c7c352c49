package runner

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/secret"
	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// TestTokenCountsExact checks OSL against the server's own count when the
// server packs several tokens per chunk, sends a role-only first chunk,
// streams reasoning before content and reports usage in a trailing chunk.
func TestTokenCountsExact(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{TokensPerChunk: 3, OutputTokens: 20, ReasoningTokens: 7, ITL: 2 * time.Millisecond})
	cfg := testConfig(t, srv.URL())
	cfg.Streaming = true
	cfg.Concurrency = 4
	cfg.RequestCount = 12
	cfg.OSLMean = 20
	res := runOK(t, cfg)
	for _, r := range readRecords(t, cfg.ArtifactDir) {
		osl, _ := r.num("output_sequence_length")
		out, _ := r.num("output_token_count")
		reason, _ := r.num("reasoning_token_count")
		usage, _ := r.num("usage_completion_tokens")
		if osl != usage || out != 20-7 || reason != 7 {
			t.Fatalf("osl %v (usage %v) output %v reasoning %v; want 20 = 13 + 7", osl, usage, out, reason)
		}
		ttft, _ := r.num("time_to_first_token")
		ttfo, _ := r.num("time_to_first_output_token")
		if !(ttfo > ttft) {
			t.Fatalf("reasoning first: TTFO %v must come after TTFT %v", ttfo, ttft)
		}
		isl, _ := r.num("input_sequence_length")
		if isl != 32 {
			t.Fatalf("isl %v, want 32", isl)
		}
	}
	if got := res.Summary.Get("request_count").Avg; got != 12 {
		t.Fatalf("request_count %v", got)
	}
}

// TestServerFailuresAreRecords injects every fault the mock server has and
// checks that each becomes an error record while the run goes on.
func TestServerFailuresAreRecords(t *testing.T) {
	cases := []struct {
		name     string
		mock     mockserver.Config
		timeout  time.Duration
		wantType string
	}{
		{"http 500", mockserver.Config{ErrorRate: 1, ErrorStatus: 500}, 0, "Internal Server Error"},
		{"http 429", mockserver.Config{ErrorRate: 1, ErrorStatus: 429}, 0, "Too Many Requests"},
		{"reset mid-stream", mockserver.Config{ResetRate: 1, OutputTokens: 10}, 0, "Connection"},
		{"malformed chunk", mockserver.Config{MalformedRate: 1, OutputTokens: 10}, 0, "ResponseParseError"},
		{"stall past timeout", mockserver.Config{StallRate: 1, StallDuration: 5 * time.Second, OutputTokens: 10}, 300 * time.Millisecond, "TimeoutError"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := mocktest.Start(t, tc.mock)
			cfg := testConfig(t, srv.URL())
			cfg.Streaming = true
			cfg.Concurrency = 2
			cfg.RequestCount = 4
			if tc.timeout > 0 {
				cfg.RequestTimeout = tc.timeout
			}
			var stdout bytes.Buffer
			res, err := Run(context.Background(), cfg, Options{Stdout: &stdout})
			if !errors.Is(err, ErrAllFailed) {
				t.Fatalf("err = %v, want ErrAllFailed", err)
			}
			if res.Summary.Failed != 4 || len(res.Summary.Errors) == 0 {
				t.Fatalf("failed %d, errors %+v", res.Summary.Failed, res.Summary.Errors)
			}
			if typ := res.Summary.Errors[0].Error.Type; !strings.Contains(typ, tc.wantType) {
				t.Fatalf("error type %q, want %q (%s)", typ, tc.wantType, res.Summary.Errors[0].Error.Message)
			}
			if !strings.Contains(stdout.String(), "Error Summary") {
				t.Fatalf("console lacks the error summary:\n%s", stdout.String())
			}
			recs := readRecords(t, cfg.ArtifactDir)
			if len(recs) != 4 || recs[0].Error == nil {
				t.Fatalf("want 4 error records, got %d", len(recs))
			}
		})
	}
}

func TestPartialFailuresKeepGoing(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{ErrorRate: 0.5, Seed: 7})
	cfg := testConfig(t, srv.URL())
	cfg.Concurrency = 4
	cfg.RequestCount = 40
	res := runOK(t, cfg)
	s := res.Summary
	if s.Valid+s.Failed != 40 || s.Valid == 0 || s.Failed == 0 {
		t.Fatalf("valid %d failed %d", s.Valid, s.Failed)
	}
	if got := s.Get("request_count").Avg; int(got) != s.Valid {
		t.Fatalf("request_count %v, valid %d", got, s.Valid)
	}
}

func TestWarmupExcluded(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{})
	cfg := testConfig(t, srv.URL())
	cfg.Concurrency = 2
	cfg.RequestCount = 6
	cfg.WarmupRequestCount = 5
	res := runOK(t, cfg)
	if got := res.Summary.Get("request_count").Avg; got != 6 {
		t.Fatalf("request_count %v, want 6 (warmup excluded)", got)
	}
	for _, r := range readRecords(t, cfg.ArtifactDir) {
		if r.Metadata.Phase != "profiling" {
			t.Fatalf("warmup record in the export: %+v", r.Metadata)
		}
	}
}

func TestRequestRateConstant(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{})
	cfg := testConfig(t, srv.URL())
	cfg.RequestRate = 100
	cfg.ArrivalPattern = "constant"
	cfg.RequestCount = 50
	res := runOK(t, cfg)
	if len(res.LatenessNS) != 50 {
		t.Fatalf("%d sends", len(res.LatenessNS))
	}
	recs := readRecords(t, cfg.ArtifactDir)
	var first, last int64 = 1 << 62, 0
	for _, r := range recs {
		first, last = min(first, r.Metadata.CreditIssuedNS), max(last, r.Metadata.CreditIssuedNS)
	}
	// 49 gaps of exactly 10 ms on the schedule.
	if span := time.Duration(last - first); span < 489*time.Millisecond || span > 491*time.Millisecond {
		t.Fatalf("schedule span %v, want 490ms", span)
	}
}

func TestDurationStopsAndGraceDropsStragglers(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{TTFT: 400 * time.Millisecond, OutputTokens: 1})
	cfg := testConfig(t, srv.URL())
	cfg.Concurrency = 2
	cfg.BenchmarkDuration = 500 * time.Millisecond
	cfg.GracePeriod, cfg.GracePeriodSet = 100*time.Millisecond, true
	start := time.Now()
	res := runOK(t, cfg)
	if el := time.Since(start); el > 3*time.Second {
		t.Fatalf("run took %v", el)
	}
	// Requests start at 0 and 400 ms; those from 400 ms end at 800 ms,
	// after duration+grace (600 ms), and are dropped.
	if got := res.Summary.Get("request_count").Avg; got != 2 || res.Dropped != 2 {
		t.Fatalf("request_count %v dropped %d, want 2 and 2", got, res.Dropped)
	}
}

func TestSecretsNeverStored(t *testing.T) {
	const key, hdr, extra = "sk-SECRET-KEY-123", "tok-HEADER-456", "pw-EXTRA-789"
	srv := mocktest.Start(t, mockserver.Config{})
	cfg := testConfig(t, srv.URL())
	cfg.APIKey = key
	cfg.Headers = []string{"X-Api-Key:" + hdr, "X-Tenant:blue"}
	cfg.ExtraInputs = []string{"user_token:" + extra}
	cfg.RequestCount = 3
	cfg.CLICommand = ShellQuote(append([]string{"aiperf"}, secret.Args([]string{"--api-key", key, "-H", "X-Api-Key:" + hdr})...))
	var stdout, logs bytes.Buffer
	if _, err := Run(context.Background(), cfg, Options{Stdout: &stdout, Logger: newTestLogger(&logs)}); err != nil {
		t.Fatal(err)
	}
	all := stdout.String() + logs.String()
	err := filepath.WalkDir(cfg.ArtifactDir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		all += string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{key, hdr, extra} {
		if strings.Contains(all, s) {
			t.Errorf("secret %q reached an artifact or the log", s)
		}
	}
	if !strings.Contains(all, "X-Tenant:blue") {
		t.Errorf("non-secret header should be kept in input_config")
	}
}

func TestArtifactNamesAndLevels(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{})
	for _, tc := range []struct {
		level, prefix string
		want, absent  []string
	}{
		{"records", "", []string{"profile_export.jsonl", "profile_export_aiperf.json", "profile_export_aiperf.csv", "inputs.json", "logs/aiperf.log"}, []string{"profile_export_raw.jsonl"}},
		{"summary", "", []string{"profile_export_aiperf.json", "profile_export_aiperf.csv", "inputs.json"}, []string{"profile_export.jsonl"}},
		{"raw", "", []string{"profile_export.jsonl", "profile_export_raw.jsonl"}, nil},
		{"records", "nightly", []string{"nightly.jsonl", "nightly.json", "nightly.csv", "inputs.json"}, []string{"profile_export.jsonl"}},
	} {
		cfg := testConfig(t, srv.URL())
		cfg.RequestCount = 2
		cfg.ExportLevel, cfg.ProfileExportPrefix = tc.level, tc.prefix
		runOK(t, cfg)
		for _, f := range tc.want {
			if _, err := os.Stat(filepath.Join(cfg.ArtifactDir, f)); err != nil {
				t.Errorf("%s/%s: %v", tc.level, f, err)
			}
		}
		for _, f := range tc.absent {
			if _, err := os.Stat(filepath.Join(cfg.ArtifactDir, f)); err == nil {
				t.Errorf("%s: %s should not exist", tc.level, f)
			}
		}
	}
}

func TestDefaultArtifactDir(t *testing.T) {
	cfg := Defaults()
	cfg.Models = []string{"Qwen/Qwen3-0.6B"}
	cfg.Concurrency = 2
	if got, want := ArtifactDir(&cfg), filepath.Join("artifacts", "Qwen_Qwen3-0.6B-openai-chat-concurrency2"); got != want {
		t.Fatalf("got %s want %s", got, want)
	}
	cfg.RequestRate = 5
	if got, want := ArtifactDir(&cfg), filepath.Join("artifacts", "Qwen_Qwen3-0.6B-openai-chat-concurrency2-request_rate5.0"); got != want {
		t.Fatalf("got %s want %s", got, want)
	}
	cfg.Concurrency = 0
	if got, want := ArtifactDir(&cfg), filepath.Join("artifacts", "Qwen_Qwen3-0.6B-openai-chat-request_rate5.0"); got != want {
		t.Fatalf("got %s want %s", got, want)
	}
}

// TestEndpointsEndToEnd: each endpoint's run has the metrics its
// responses allow. An embeddings run has no generated text: AIPerf 0.13
// (the default 1.4 layout) still writes an output_sequence_length of 0 (it
// tokenizes the response as ""), 0.8 (1.0) none (docs/metrics.md, "Values
// that follow 0.13").
func TestEndpointsEndToEnd(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{OutputTokens: 5})
	for _, tc := range []struct {
		typ       string
		streaming bool
		schema    string
		has, lack []string
		zeroOSL   bool // output_sequence_length is 0 (has and lack name other tags)
	}{
		{"chat", false, "", []string{"request_latency", "output_sequence_length", "e2e_output_token_throughput"}, []string{"time_to_first_token"}, false},
		{"chat", true, "", []string{"time_to_first_token", "inter_token_latency"}, nil, false},
		{"completions", true, "", []string{"time_to_first_token", "output_sequence_length"}, nil, false},
		{"completions", false, "", []string{"request_latency", "output_sequence_length"}, []string{"time_to_first_token"}, false},
		{"embeddings", false, "", []string{"request_latency", "input_sequence_length"}, []string{"time_to_first_token"}, true},
		{"embeddings", false, "1.0", []string{"request_latency", "input_sequence_length"}, []string{"output_sequence_length", "time_to_first_token"}, false},
	} {
		cfg := testConfig(t, srv.URL())
		cfg.EndpointType, cfg.Streaming = tc.typ, tc.streaming
		cfg.RequestCount = 3
		if tc.schema != "" {
			cfg.OutputSchema = tc.schema
		}
		res := runOK(t, cfg)
		if res.Summary.Valid != 3 {
			t.Fatalf("%s streaming=%v: %d valid, errors %+v", tc.typ, tc.streaming, res.Summary.Valid, res.Summary.Errors)
		}
		for _, tag := range tc.has {
			if res.Summary.Get(tag) == nil {
				t.Errorf("%s streaming=%v schema=%s: no %s", tc.typ, tc.streaming, schemaName(tc.schema), tag)
			}
		}
		for _, tag := range tc.lack {
			if res.Summary.Get(tag) != nil {
				t.Errorf("%s streaming=%v schema=%s: unexpected %s", tc.typ, tc.streaming, schemaName(tc.schema), tag)
			}
		}
		if tc.zeroOSL {
			checkZeroOSL(t, res, cfg.ArtifactDir, true, 3)
		}
	}
}

func TestInterruptWritesPartialResults(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{TTFT: 20 * time.Millisecond, OutputTokens: 2})
	cfg := testConfig(t, srv.URL())
	cfg.Concurrency = 2
	cfg.RequestCount = 100000
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	res, err := Run(ctx, cfg, Options{})
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err %v, want ErrInterrupted", err)
	}
	n := res.Summary.Valid
	if n < 5 || n > 60 {
		t.Fatalf("%d requests completed in 500 ms at 2 x 20 ms", n)
	}
	// The requests in flight at the interrupt are recorded as cancelled.
	if got := len(readRecords(t, cfg.ArtifactDir)); got != n+res.Cancelled {
		t.Fatalf("%d records written, %d completed + %d cancelled", got, n, res.Cancelled)
	}
	if _, err := os.Stat(filepath.Join(cfg.ArtifactDir, "profile_export_aiperf.json")); err != nil {
		t.Fatal(err)
	}
}

// TestInputsReadyBeforeTheFirstRequest: Options.InputsReady is called once
// per run, after the inputs are built and before any request reaches the
// server.
func TestInputsReadyBeforeTheFirstRequest(t *testing.T) {
	mock, err := mockserver.New(mockserver.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer mock.Close()
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost { // not the /metrics scrapes
			requests.Add(1)
		}
		mock.Handler().ServeHTTP(w, r)
	}))
	defer srv.Close()
	cfg := testConfig(t, srv.URL)
	cfg.RequestCount = 4
	calls, seen := 0, int64(-1)
	if _, err := Run(context.Background(), cfg, Options{InputsReady: func() { calls++; seen = requests.Load() }}); err != nil {
		t.Fatal(err)
	}
	if calls != 1 || seen != 0 || requests.Load() != 4 {
		t.Fatalf("InputsReady called %d times, after %d requests (of %d); want once, before any", calls, seen, requests.Load())
	}
}
