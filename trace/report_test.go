package trace

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run with -update to accept):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// TestWriteReportByHand spells out the report of the docs example: the
// values of TestAnalyzeDocsExample, laid out as AIPerf's §7.1 report.
func TestWriteReportByHand(t *testing.T) {
	// A copy of shared/spec/fixtures/docs-examples/custom_trace.jsonl.
	f, err := os.Open("testdata/custom_trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, err := Analyze(f, DefaultBlockSize)
	if err != nil {
		t.Fatal(err)
	}
	// 11/36 = 30.56% → 30.6%; mean ISL 4300/3 = 1,433.33 → 1,433.3; mean
	// OSL 130/3 → 43.3; integral statistics without decimals.
	want := `Trace Analysis Report
============================================================
Total requests:        3
Unique prefixes:       9
Cache hit rate:        30.6%
Prefix reuse ratio:    20.0%

ISL (Input Sequence Length):
  Min:     1,200
  P25:     1,250
  Median:  1,300
  P75:     1,550
  Max:     1,800
  Mean:    1,433.3

OSL (Output Sequence Length):
  Min:     26
  P25:     39
  Median:  52
  P75:     52
  Max:     52
  Mean:    43.3
============================================================
`
	var got bytes.Buffer
	if err := a.WriteReport(&got); err != nil {
		t.Fatal(err)
	}
	if got.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", got.String(), want)
	}
}

func TestWriteReportGolden(t *testing.T) {
	tests := []struct {
		name  string
		trace []byte
		block int
	}{
		{"hand", []byte(handTrace), 100},
		{"empty", nil, 512},
		{"no_hash_ids", []byte(`{"input_length": 12345, "output_length": 7}`), 512},
		{"generated", genTrace(20000, 42, genOpts{quirks: true}), 512}, // thousands separators
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := Analyze(bytes.NewReader(tt.trace), tt.block)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := a.WriteReport(&b); err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name+".report.golden", b.Bytes())
		})
	}
}

func TestWriteJSONRoundTrips(t *testing.T) {
	for _, trace := range []string{handTrace, "", `{"input_length": 3}`} {
		a, err := Analyze(strings.NewReader(trace), 100)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := a.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		var back Analysis
		if err := json.Unmarshal(b.Bytes(), &back); err != nil {
			t.Fatalf("%v\n%s", err, b.String())
		}
		var want, again bytes.Buffer
		_ = json.NewEncoder(&want).Encode(a)
		_ = json.NewEncoder(&again).Encode(&back)
		if want.String() != again.String() {
			t.Errorf("round trip:\n%s\n%s", want.String(), again.String())
		}
	}
}

func TestWriteJSONEmpty(t *testing.T) {
	// What AIPerf writes for an empty file: zeros and null statistics.
	want := `{
  "total_requests": 0,
  "unique_prefixes": 0,
  "num_prefix_groups": 0,
  "cache_hit_rate": 0.0,
  "min_isl": 0,
  "max_isl": 0,
  "avg_isl": 0.0,
  "min_osl": 0,
  "max_osl": 0,
  "avg_osl": 0.0,
  "prefix_reuse_ratio": 0.0,
  "isl_stats": null,
  "osl_stats": null,
  "context_length_stats": null,
  "unique_prompt_length_stats": null,
  "hit_rate_stats": null
}`
	var b bytes.Buffer
	if err := (&Analysis{}).WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Errorf("got:\n%s", b.String())
	}
}

func TestNumberFormats(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{groupThousands("0"), "0"},
		{groupThousands("999"), "999"},
		{groupThousands("1000"), "1,000"},
		{groupThousands("-1234567.25"), "-1,234,567.25"},
		{groupThousands("123456"), "123,456"},
		{length(512), "512"},
		{length(1024), "1,024"},
		{length(1433.3333), "1,433.3"},
		{length(1999.96), "2,000.0"},
		{length(-412), "-412"},
		{length(0.125), "0.1"},
		{percent(0.685), "68.5%"},
		{percent(0.4522), "45.2%"},
		{percent(0), "0.0%"},
		{percent(1), "100.0%"},
		{percent(11.0 / 36), "30.6%"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
