package metrics

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"strconv"
	"testing"
)

// The fixture is a run of Python AIPerf 0.13.0 (report/testdata/aiperf-0.13:
// streaming chat, concurrency 2, 12 requests of which 2 failed). Rebuilt
// from its profile_export.jsonl, our sweep-line, effective latency and
// error-adjusted results must equal those of its profile_export_aiperf.json.
const fixture013 = "../report/testdata/aiperf-0.13/"

type fixtureValue struct {
	Value json.RawMessage `json:"value"`
}

type fixtureRecord struct {
	Metadata struct {
		CreditIssuedNS int64 `json:"credit_issued_ns"`
		StartNS        int64 `json:"request_start_ns"`
		EndNS          int64 `json:"request_end_ns"`
	} `json:"metadata"`
	Metrics map[string]fixtureValue `json:"metrics"`
	Error   *struct{}               `json:"error"`
}

// fixtureSweepLog rebuilds AIPerf's column store from the fixture's
// records: epoch ns as float64, ms values back in ns.
func fixtureSweepLog(t *testing.T) *sweepLog {
	t.Helper()
	f, err := os.Open(fixture013 + "profile_export.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var l sweepLog
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r fixtureRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		num := func(tag string) float64 {
			v, ok := r.Metrics[tag]
			if !ok {
				return math.NaN()
			}
			var x float64
			if err := json.Unmarshal(v.Value, &x); err != nil {
				t.Fatal(err)
			}
			return x
		}
		iv := interval{start: float64(r.Metadata.StartNS), end: float64(r.Metadata.EndNS),
			gen: math.NaN(), isl: num("input_sequence_length"), osl: num("output_sequence_length")}
		if ttft := num("time_to_first_token"); isNum(ttft) {
			iv.gen = float64(r.Metadata.StartNS + int64(math.Round(ttft*1e6)))
		}
		var icl []float64
		if v, ok := r.Metrics["inter_chunk_latency"]; ok {
			var ms []float64
			if err := json.Unmarshal(v.Value, &ms); err != nil {
				t.Fatal(err)
			}
			for _, x := range ms {
				icl = append(icl, math.Round(x*1e6))
			}
		}
		l.log(iv, float64(r.Metadata.CreditIssuedNS), icl)
		l.lastEnd = max(l.lastEnd, r.Metadata.EndNS)
		if r.Error != nil {
			l.errors++
		}
	}
	return &l
}

func fixtureSummary(t *testing.T) map[string]map[string]any {
	t.Helper()
	data, err := os.ReadFile(fixture013 + "profile_export_aiperf.json")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for k, v := range m {
		if o, ok := v.(map[string]any); ok {
			out[k] = o
		}
	}
	return out
}

func TestFixture013SweepLine(t *testing.T) {
	l := fixtureSweepLog(t)
	want := fixtureSummary(t)
	// The observation window: input_token_throughput is total_isl over it.
	durNS := 200 / want["input_token_throughput"]["avg"].(float64) * 1e9
	l.phaseStart, l.phaseSet = l.lastEnd-int64(math.Round(durNS)), true

	results := append(l.results(nil), l.latencyResults()...)
	if len(results) != 16 {
		t.Fatalf("%d results, want 16", len(results))
	}
	for _, r := range results {
		w, ok := want[r.Tag]
		if !ok {
			t.Errorf("fixture has no %s", r.Tag)
			continue
		}
		stats := map[string]float64{"avg": r.Avg, "min": r.Min, "max": r.Max, "std": r.Std,
			"p50": r.P[4], "p90": r.P[6], "p95": r.P[7], "p99": r.P[8]}
		for name, got := range stats {
			wv := w[name].(float64)
			// The window is known to the ns only through a float; the
			// time-weighted values carry that relative error.
			if math.Abs(got-wv) > 1e-6*math.Max(1, math.Abs(wv)) {
				t.Errorf("%s %s = %.12g, want %.12g", r.Tag, name, got, wv)
			}
		}
	}
}

func TestFixture013Adjusted(t *testing.T) {
	f, err := os.Open(fixture013 + "profile_export.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a := NewAccumulator(schema14Config())
	errors := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r fixtureRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.Error != nil {
			errors++
			continue
		}
		for _, id := range adjustedIDs {
			v, ok := r.Metrics[catalog[id].Tag]
			if !ok {
				continue
			}
			var x float64
			if err := json.Unmarshal(v.Value, &x); err != nil {
				t.Fatal(err)
			}
			// ITL is a float in ns; the others are whole ns.
			ns := x * 1e6
			if id != idITL {
				ns = math.Round(ns)
			}
			a.push(id, ns)
		}
	}
	want := fixtureSummary(t)
	got := a.adjustedResults(errors)
	if len(got) != 4 {
		t.Fatalf("%d adjusted results, want 4", len(got))
	}
	for _, r := range got {
		w := want[r.Tag]
		if w == nil {
			t.Fatalf("fixture has no %s", r.Tag)
		}
		if r.Count != int(w["count"].(float64)) {
			t.Errorf("%s count = %d, want %v", r.Tag, r.Count, w["count"])
		}
		for i, p := range Percentiles {
			name := "p" + strconvFloat(p)
			wv, ok := w[name].(float64)
			if !ok {
				if !math.IsInf(r.P[i], 1) {
					t.Errorf("%s %s = %v, want +Inf (absent from the fixture)", r.Tag, name, r.P[i])
				}
				continue
			}
			if math.Abs(r.P[i]-wv) > 1e-9*math.Abs(wv) {
				t.Errorf("%s %s = %.12g, want %.12g", r.Tag, name, r.P[i], wv)
			}
		}
		for _, absent := range []string{"avg", "max", "std", "sum"} {
			if _, ok := w[absent]; ok {
				t.Errorf("fixture %s has %s", r.Tag, absent)
			}
		}
	}
}

func strconvFloat(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }
