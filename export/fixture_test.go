package export

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/metrics"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// fixtureDir holds a copy of the real AIPerf 0.8.0 artifacts in
// /work/shared/spec/fixtures/baseline-chat (a non-streaming mock run of 64
// requests).
const fixtureDir = "testdata/baseline-chat"

// fixtureConsoleTags are the metrics of the fixture's console table, in its
// row order.
var fixtureConsoleTags = []string{
	"request_latency",
	"e2e_output_token_throughput",
	"output_sequence_length",
	"input_sequence_length",
	"output_token_throughput",
	"request_throughput",
	"request_count",
}

// fixture is the baseline-chat run rebuilt as our types.
type fixture struct {
	summary     metrics.Summary
	info        RunInfo
	inputConfig json.RawMessage
}

func readFixtureFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtureDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// loadFixture builds the Summary from the fixture JSON's values (in its key
// order), the headers from the fixture CSV's labels, and the console flags
// from the fixture console table.
func loadFixture(t testing.TB) *fixture {
	t.Helper()
	raw := readFixtureFile(t, "profile_export_aiperf.json")
	keys, members := orderedMembers(t, raw)

	type stats struct {
		Unit string
		Avg  *float64
		P1   *float64
		P5   *float64
		P10  *float64
		P25  *float64
		P50  *float64
		P75  *float64
		P90  *float64
		P95  *float64
		P99  *float64
		Min  *float64
		Max  *float64
		Std  *float64
	}
	fx := &fixture{}
	var distTags, scalarTags []string
	for _, k := range keys {
		var probe map[string]json.RawMessage
		if json.Unmarshal(members[k], &probe) != nil || probe["unit"] == nil {
			continue
		}
		var st stats
		if err := json.Unmarshal(members[k], &st); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		r := metrics.Result{Tag: k, Unit: st.Unit, Avg: *st.Avg, Scalar: st.P1 == nil}
		if !r.Scalar {
			for i, p := range []*float64{st.P1, st.P5, st.P10, st.P25, st.P50, st.P75, st.P90, st.P95, st.P99} {
				r.P[i] = *p
			}
			r.Min, r.Max, r.Std = *st.Min, *st.Max, *st.Std
			r.Count = 64
			r.Sum = r.Avg * float64(r.Count)
			distTags = append(distTags, k)
		} else {
			scalarTags = append(scalarTags, k)
		}
		if i := slices.Index(fixtureConsoleTags, k); i >= 0 {
			r.Console = true
			r.DisplayOrder = (i + 1) * 100
		}
		fx.summary.Results = append(fx.summary.Results, r)
	}

	// Headers: the CSV lists each section's metrics sorted by tag.
	csv := strings.Split(string(readFixtureFile(t, "profile_export_aiperf.csv")), "\r\n")
	blank := slices.Index(csv, "")
	distLabels, scalarLabels := csv[1:blank], csv[blank+2:len(csv)-1]
	slices.Sort(distTags)
	slices.Sort(scalarTags)
	if len(distLabels) != len(distTags) || len(scalarLabels) != len(scalarTags) {
		t.Fatalf("CSV has %d+%d rows, JSON %d+%d metrics", len(distLabels), len(scalarLabels), len(distTags), len(scalarTags))
	}
	headers := map[string]string{}
	for i, tag := range distTags {
		headers[tag] = distLabels[i]
	}
	for i, tag := range scalarTags {
		headers[tag] = scalarLabels[i]
	}
	for i := range fx.summary.Results {
		r := &fx.summary.Results[i]
		cell, _, _ := strings.Cut(headers[r.Tag], ",")
		r.Header = strings.TrimSuffix(cell, " ("+r.Unit+")")
	}

	var meta struct {
		AIPerfVersion string `json:"aiperf_version"`
		BenchmarkID   string `json:"benchmark_id"`
		StartTime     string `json:"start_time"`
		EndTime       string `json:"end_time"`
	}
	if err := json.Unmarshal(raw, &meta); err != nil {
		t.Fatal(err)
	}
	parse := func(s string) int64 {
		tm, err := time.ParseInLocation("2006-01-02T15:04:05.999999", s, time.UTC)
		if err != nil {
			t.Fatal(err)
		}
		return tm.UnixNano()
	}
	s := &fx.summary
	s.StartWallNS, s.EndWallNS = parse(meta.StartTime), parse(meta.EndTime)
	s.Valid = 64
	s.UsageDiscrepancies = int(s.Get("usage_discrepancy_count").Avg)
	fx.inputConfig = members["input_config"]
	fx.info = RunInfo{
		AIPerfVersion: meta.AIPerfVersion,
		BenchmarkID:   meta.BenchmarkID,
		InputConfig:   fx.inputConfig,
		Location:      time.UTC,
	}
	return fx
}

// orderedMembers returns a JSON object's keys in document order and its raw
// members.
func orderedMembers(t testing.TB, raw []byte) ([]string, map[string]json.RawMessage) {
	t.Helper()
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // '{'
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys, members
}

// diffText reports the first differing line of got and want.
func diffText(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n got: %q\nwant: %q", i+1, gl, wl)
		}
	}
	return "equal"
}

// checkGolden compares got with testdata/name, rewriting it under -update.
func checkGolden(t *testing.T, name string, got []byte) {
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
		t.Errorf("%s differs (run with -update after checking):\n%s", name, diffText(string(got), string(want)))
	}
}
