package metrics

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/record"
)

// The fixture is AIPerf 0.8.0's baseline-chat run (testdata/baseline-chat,
// copied from the reference fixtures): 64 non-streaming chat requests with
// usage, ISL 550 each, total OSL 35277, benchmark duration 34502655 ns.

// baselineRecords rebuilds a run with the fixture's totals and span: 63
// records of 551 output words and one of 564, starting 0.5 ms apart; the
// last ends 34502655 ns after the first starts.
func baselineRecords() []*record.Record {
	const start = int64(5_000_000_000)
	recs := make([]*record.Record, 64)
	for i := range recs {
		at, osl := int64(400_000), 551
		s := start + int64(i)*500_000
		if i == 63 {
			s, at, osl = start+34_000_000, 502_655, 35277-63*551
		}
		recs[i] = rec(s, false, 550, chunk{at: at, text: wordsN(osl), usage: usage(549, 550, 1099, -1)})
	}
	return recs
}

func TestFixtureDerivedValues(t *testing.T) {
	s := summarise(plainChat(), baselineRecords()...)
	// Values from profile_export_aiperf.json, which are also
	// 64/0.034502655, 35277/0.034502655 and (35200+35277)/0.034502655.
	for tag, want := range map[string]float64{
		"request_throughput":      1854.929714829192,
		"output_token_throughput": 1022443.0554692096,
		"total_token_throughput":  2042654.398625265,
		"benchmark_duration":      0.034502655,
		"total_isl":               35200,
		"total_osl":               35277,
		"total_output_tokens":     35277,
		"request_count":           64,
	} {
		got := result(t, s, tag).Avg
		if !near(got, want, 1e-9) {
			t.Errorf("%s = %.17g, want %.17g", tag, got, want)
		}
	}
	osl := result(t, s, "output_sequence_length")
	checkNear(t, "osl avg", osl.Avg, 551.203125) // fixture avg: 35277/64
	checkNear(t, "osl sum", osl.Sum, 35277)
}

// TestFixtureExportedSet checks that a non-streaming run with usage exports
// exactly the fixture JSON's metrics, with its units and scalar-ness, and
// the CSV's "Header (unit)" names.
func TestFixtureExportedSet(t *testing.T) {
	s := summarise(plainChat(), baselineRecords()...)

	raw, err := os.ReadFile("testdata/baseline-chat/profile_export_aiperf.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var wantTags []string
	for key, val := range doc {
		var block struct {
			Unit *string  `json:"unit"`
			P50  *float64 `json:"p50"`
		}
		if json.Unmarshal(val, &block) != nil || block.Unit == nil {
			continue // not a metric
		}
		wantTags = append(wantTags, key)
		r := s.Get(key)
		if r == nil {
			t.Errorf("%s missing from the summary", key)
			continue
		}
		if r.Unit != *block.Unit {
			t.Errorf("%s unit = %q, fixture %q", key, r.Unit, *block.Unit)
		}
		if r.Scalar != (block.P50 == nil) {
			t.Errorf("%s scalar = %v, fixture has p50 %v", key, r.Scalar, block.P50 != nil)
		}
	}
	var gotTags []string
	for _, r := range s.Results {
		gotTags = append(gotTags, r.Tag)
	}
	slices.Sort(wantTags)
	slices.Sort(gotTags)
	if !slices.Equal(gotTags, wantTags) {
		t.Errorf("exported tags\n got %v\nwant %v", gotTags, wantTags)
	}

	f, err := os.Open("testdata/baseline-chat/profile_export_aiperf.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1
	rows, err := cr.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var wantNames, gotNames []string
	for _, row := range rows {
		if row[0] != "Metric" {
			wantNames = append(wantNames, row[0])
		}
	}
	for _, r := range s.Results {
		name := r.Header
		if r.Unit != "requests" && r.Unit != "count" {
			name += " (" + r.Unit + ")"
		}
		gotNames = append(gotNames, name)
	}
	slices.Sort(wantNames)
	slices.Sort(gotNames)
	if !slices.Equal(gotNames, wantNames) {
		t.Errorf("CSV names\n got %q\nwant %q", gotNames, wantNames)
	}
}

// TestFixtureConsoleRows compares the console rows, in order, with
// profile_export_console.txt.
func TestFixtureConsoleRows(t *testing.T) {
	s := summarise(plainChat(), baselineRecords()...)
	raw, err := os.ReadFile("testdata/baseline-chat/profile_export_console.txt")
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for line := range strings.SplitSeq(string(raw), "\n") {
		// A table row has 8 columns; the warning panel's lines have one.
		if cells := strings.Split(line, "│"); len(cells) == 10 {
			want = append(want, strings.TrimSpace(cells[1]))
		}
	}
	for _, r := range s.Results {
		if r.Console {
			got = append(got, r.Header+" ("+r.Unit+")")
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("console rows\n got %q\nwant %q", got, want)
	}
}
