package runner

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// writeFile writes content to name in a temporary directory.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// serverBodies returns the request bodies the server received, by
// x_request_id.
func serverBodies(t *testing.T, srv *mockserver.Server) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	for id, tl := range srv.Timelines() {
		var body map[string]any
		if err := json.Unmarshal(tl.Body, &body); err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		out[id] = body
	}
	return out
}

// TestSingleTurnFile: each row of a single_turn file is sent as written: its
// text, its output length, its extra fields (over --extra-inputs), in file
// order.
func TestSingleTurnFile(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{RecordTimelines: true, OutputTokens: 3})
	cfg := testConfig(t, srv.URL())
	cfg.InputFile = writeFile(t, "prompts.jsonl", `{"text": "What is machine learning?", "output_length": 50}
{"texts": ["Tell me a joke", "about cats"], "extra": {"temperature": 0.2, "top_p": 0.5}}

{"text": "Last one", "model": "other-model"}
`)
	cfg.ExtraInputs = []string{"temperature:0.9", "seed:7"}
	cfg.RequestCount = 3
	cfg.Concurrency = 1
	runOK(t, cfg)

	recs := readRecords(t, cfg.ArtifactDir)
	// Records are written as their metrics are computed, on several
	// goroutines: order them as they were sent (one at a time, so by start).
	slices.SortFunc(recs, func(a, b jsonRecord) int { return cmp.Compare(a.Metadata.RequestStartNS, b.Metadata.RequestStartNS) })
	bodies := serverBodies(t, srv)
	if len(recs) != 3 || len(bodies) != 3 {
		t.Fatalf("%d records, %d requests, want 3", len(recs), len(bodies))
	}
	type want struct {
		content   any
		maxTokens any
		temp      float64
		model     string
	}
	wants := []want{
		{"What is machine learning?", 50.0, 0.9, "mock-model"},
		{[]any{map[string]any{"type": "text", "text": "Tell me a joke"}, map[string]any{"type": "text", "text": "about cats"}}, nil, 0.2, "mock-model"},
		{"Last one", nil, 0.9, "other-model"},
	}
	for i, r := range recs {
		b := bodies[r.Metadata.XRequestID]
		msgs := b["messages"].([]any)
		got := want{msgs[0].(map[string]any)["content"], b["max_completion_tokens"], b["temperature"].(float64), b["model"].(string)}
		w := wants[i]
		gj, _ := json.Marshal(got.content)
		wj, _ := json.Marshal(w.content)
		if string(gj) != string(wj) || got.maxTokens != w.maxTokens || got.temp != w.temp || got.model != w.model || b["seed"] != 7.0 {
			t.Errorf("request %d: %s max=%v temp=%v model=%v seed=%v, want %s max=%v temp=%v model=%v", i, gj, got.maxTokens, got.temp, got.model, b["seed"], wj, w.maxTokens, w.temp, w.model)
		}
	}
	if isl, _ := recs[0].num("input_sequence_length"); isl != 5 {
		t.Errorf("ISL of %q = %v, want 5 (builtin tokenizer)", "What is machine learning?", isl)
	}
}

// TestFixedScheduleTrace: a timestamped mooncake trace switches the run to
// fixed-schedule replay; each request arrives at its timestamp relative to
// the first, and every row is sent once.
func TestFixedScheduleTrace(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{RecordTimelines: true, OutputTokens: 2})
	cfg := testConfig(t, srv.URL())
	cfg.InputFile = writeFile(t, "trace.jsonl", `{"timestamp": 1000, "text_input": "first", "output_length": 2}
{"timestamp": 1060, "text_input": "second", "output_length": 2}
{"timestamp": 1060, "input_length": 20, "output_length": 2}
{"timestamp": 1200, "text_input": "last", "output_length": 2}
`)
	runOK(t, cfg)
	if s := (&Config{FixedSchedule: true}).Stimulus(); s != "fixed_schedule" {
		t.Errorf("stimulus %q, want fixed_schedule (AIPerf's directory name)", s)
	}
	recs := readRecords(t, cfg.ArtifactDir)
	if len(recs) != 4 {
		t.Fatalf("%d records, want one per row", len(recs))
	}
	var arrivals []time.Time
	for _, tl := range srv.Timelines() {
		arrivals = append(arrivals, tl.Arrival)
	}
	slices.SortFunc(arrivals, time.Time.Compare)
	// With a start offset of 0 the first row waits 1 s; offsets are
	// relative to the phase start, so compare the gaps.
	for i, want := range []time.Duration{0, 60 * time.Millisecond, 60 * time.Millisecond, 200 * time.Millisecond} {
		got := arrivals[i].Sub(arrivals[0])
		if d := (got - want).Abs(); d > 50*time.Millisecond { // loose: -race on a shared machine; exactness is a timing test
			t.Errorf("request %d arrived %v after the first, want %v", i, got, want)
		}
	}
}

// TestMalformedDatasetRefused: a bad line stops the run before any request
// or stored file, naming the file, line and field.
func TestMalformedDatasetRefused(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{RecordTimelines: true})
	cfg := testConfig(t, srv.URL())
	cfg.InputFile = writeFile(t, "bad.jsonl", "{\"text\": \"ok\"}\n{\"text\": 5}\n")
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), cfg, Options{Version: "test"})
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "bad.jsonl:2") || !strings.Contains(err.Error(), `"text"`) {
		t.Fatalf("error %v, want an InputError naming bad.jsonl:2 and field text", err)
	}
	if n := len(srv.Timelines()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
	if entries, _ := os.ReadDir(cfg.ArtifactDir); len(entries) != 0 {
		t.Errorf("artifact dir not empty: %v", entries)
	}
}

// TestInputsDeterministic: the same seed and inputs give a byte-identical
// inputs.json, with every synthetic feature on, and for a trace.
func TestInputsDeterministic(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{OutputTokens: 2})
	trace := writeFile(t, "trace.jsonl", `{"input_length": 30, "hash_ids": [1], "output_length": 3}
{"input_length": 60, "hash_ids": [1, 2], "output_length": 3}
{"input_length": 30, "output_length": 3}
`)
	for _, tc := range []struct {
		name string
		mod  func(*Config)
	}{
		{"synthetic", func(c *Config) {
			c.SessionTurnsMean, c.SessionTurnsStddev, c.SessionTurnDelayMean = 2, 1, 1
			c.NumPrefixPrompts, c.PrefixPromptLength = 3, 8
			c.SeqDist = "16,4:50;24,6:50"
			c.ImageWidthMean, c.ImageHeightMean = 4, 4
			c.AudioLengthMean = 0.01
		}},
		{"trace", func(c *Config) { c.InputFile, c.ISLBlockSize = trace, 32 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var inputs [2][]byte
			for i := range inputs {
				cfg := testConfig(t, srv.URL())
				cfg.RequestCount = 4
				tc.mod(cfg)
				runOK(t, cfg)
				b, err := os.ReadFile(filepath.Join(cfg.ArtifactDir, "inputs.json"))
				if err != nil {
					t.Fatal(err)
				}
				inputs[i] = b
			}
			if string(inputs[0]) != string(inputs[1]) {
				t.Fatal("inputs.json differs between two runs with the same seed")
			}
			if tc.name == "synthetic" && (!strings.Contains(string(inputs[0]), `"image_url"`) || !strings.Contains(string(inputs[0]), `"input_audio"`)) {
				t.Errorf("synthetic inputs lack image or audio parts:\n%.400s", inputs[0])
			}
		})
	}
}

// TestLargeDatasetsBuildBodiesAtSend: past the prebuild limit, bodies are
// built when sent (for a trace, from its lazy block prompts); the server
// receives the same bodies and inputs.json is the same.
func TestLargeDatasetsBuildBodiesAtSend(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{RecordTimelines: true, OutputTokens: 2})
	trace := writeFile(t, "trace.jsonl", `{"input_length": 30, "hash_ids": [1], "output_length": 3}
{"input_length": 60, "hash_ids": [1, 2], "output_length": 3}
{"input_length": 25, "output_length": 3}
{"text_input": "a literal prompt", "output_length": 3}
{"input_length": 60, "hash_ids": [1, 3], "output_length": 3}
{"input_length": 60, "hash_ids": [1, 2], "output_length": 3}
`)
	for _, tc := range []struct {
		name string
		mod  func(*Config)
	}{
		{"synthetic", func(*Config) {}},
		{"trace", func(c *Config) { c.InputFile, c.ISLBlockSize = trace, 32 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bodies := func(limit int) (map[string]bool, []byte) {
				defer func(old int) { prebuildLimit = old }(prebuildLimit)
				prebuildLimit = limit
				cfg := testConfig(t, srv.URL())
				cfg.Concurrency, cfg.RequestCount = 1, 6
				cfg.DatasetSampling = "sequential"
				tc.mod(cfg)
				runOK(t, cfg)
				seen := map[string]bool{}
				for _, r := range readRecords(t, cfg.ArtifactDir) {
					tl, _ := srv.Timeline(r.Metadata.XRequestID)
					seen[string(tl.Body)] = true
				}
				in, err := os.ReadFile(filepath.Join(cfg.ArtifactDir, "inputs.json"))
				if err != nil {
					t.Fatal(err)
				}
				return seen, in
			}
			pre, preInputs := bodies(64 << 20)
			lazy, lazyInputs := bodies(0)
			// The trace's rows 2 and 6 are the same prompt.
			want := 6
			if tc.name == "trace" {
				want = 5
			}
			if len(pre) != want || !maps.Equal(pre, lazy) || string(preInputs) != string(lazyInputs) {
				t.Fatalf("bodies built at send differ from prebuilt ones (%d vs %d distinct, want %d)", len(pre), len(lazy), want)
			}
		})
	}
}
