package runner

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// testConfig is a small valid configuration against url, writing to a
// temporary directory.
func testConfig(t testing.TB, url string) *Config {
	cfg := Defaults()
	cfg.Models = []string{"mock-model"}
	cfg.URL = url
	cfg.UIType = "none"
	cfg.ArtifactDir = t.TempDir()
	cfg.ArtifactDirSet = true
	cfg.RandomSeed, cfg.RandomSeedSet = 42, true
	cfg.ISLMean = 32
	cfg.NumDatasetEntries = 10
	cfg.RequestTimeout = 30 * time.Second
	// Only the sources a test starts itself: nothing a developer runs on
	// the default DCGM ports is scraped.
	cfg.DCGMEndpoints = nil
	// A spool of its own: a run first recovers the dead runs it finds in
	// its spool directory, and the system one is shared by every test.
	cfg.SpoolDir = t.TempDir()
	return &cfg
}

// runOK runs cfg and fails the test on error.
func runOK(t *testing.T, cfg *Config) *Result {
	t.Helper()
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), cfg, Options{Version: "test"})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return res
}

// jsonRecord is the part of a profile_export.jsonl line the tests read.
type jsonRecord struct {
	Metadata struct {
		XRequestID     string `json:"x_request_id"`
		RequestStartNS int64  `json:"request_start_ns"`
		RequestEndNS   int64  `json:"request_end_ns"`
		CreditIssuedNS int64  `json:"credit_issued_ns"`
		Phase          string `json:"benchmark_phase"`
		WorkerID       string `json:"worker_id"`
		ConversationID string `json:"conversation_id"`
		XCorrelationID string `json:"x_correlation_id"`
		TurnIndex      int    `json:"turn_index"`
		SessionNum     int    `json:"session_num"`
		WasCancelled   bool   `json:"was_cancelled"`
		// CancellationNS is left out (nil) by schema 1.4 when unset.
		CancellationNS *int64 `json:"cancellation_time_ns"`
		// No request_num: schema 1.4 (the default) does not write it; see
		// requestNums.
	} `json:"metadata"`
	Metrics map[string]struct {
		Value json.RawMessage `json:"value"`
		Unit  string          `json:"unit"`
	} `json:"metrics"`
	Error *struct {
		Code       *int     `json:"code"`
		Type       string   `json:"type"`
		Message    string   `json:"message"`
		Cause      string   `json:"cause"`       // schema 1.4
		CauseChain []string `json:"cause_chain"` // schema 1.4
	} `json:"error"`
}

// num returns a scalar metric of the record, and whether it is present.
func (r *jsonRecord) num(tag string) (float64, bool) {
	m, ok := r.Metrics[tag]
	if !ok {
		return 0, false
	}
	var f float64
	if err := json.Unmarshal(m.Value, &f); err != nil {
		return 0, false
	}
	return f, true
}

// list returns a list metric of the record.
func (r *jsonRecord) list(tag string) []float64 {
	var l []float64
	if m, ok := r.Metrics[tag]; ok {
		_ = json.Unmarshal(m.Value, &l)
	}
	return l
}

// readRecords reads profile_export.jsonl from dir.
func readRecords(t *testing.T, dir string) []jsonRecord {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "profile_export.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []jsonRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var r jsonRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("bad jsonl line: %v\n%s", err, sc.Text())
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// requestNums maps each record's x_request_id to its request number (the
// order the run numbered its sends), read from profile_export_raw.jsonl,
// which runs with ExportLevel "raw" write under either schema: the 1.4
// records, like AIPerf 0.13's, carry no request_num.
func requestNums(t *testing.T, dir string) map[string]int {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "profile_export_raw.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var r struct {
			RequestNum *int   `json:"request_num"`
			XRequestID string `json:"x_request_id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil || r.RequestNum == nil {
			t.Fatalf("bad raw line (%v): %s", err, sc.Text())
		}
		out[r.XRequestID] = *r.RequestNum
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// ms converts a duration to float milliseconds.
func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// newTestLogger logs everything, at trace level, into w.
func newTestLogger(w *bytes.Buffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug - 4}))
}
