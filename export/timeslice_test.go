package export

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/metrics/timeslice"
	"github.com/aiperf-go/aiperf/record"
)

// fieldsTokenizer counts whitespace-separated words, so token counts are
// known by hand.
type fieldsTokenizer struct{}

func (fieldsTokenizer) Name() string             { return "fields" }
func (fieldsTokenizer) Encode(text string) []int { return make([]int, len(strings.Fields(text))) }
func (fieldsTokenizer) Decode(ids []int) string  { return strings.Repeat("w ", len(ids)) }
func (fieldsTokenizer) Count(text string) int    { return len(strings.Fields(text)) }

const tsMS = int64(1_000_000)

// tsStream is a valid streaming record: chunk i arrives at offsets[i] ms
// after start with texts[i].
func tsStream(startMS int64, isl int, offsets []int64, texts ...string) *record.Record {
	start := 5000*tsMS + startMS*tsMS
	r := &record.Record{Phase: record.PhaseProfiling, StartNS: start, Streaming: true, InputTokens: isl}
	for i, off := range offsets {
		r.Responses = append(r.Responses, record.Response{PerfNS: start + off*tsMS, Text: texts[i]})
		r.EndNS = start + off*tsMS
	}
	return r
}

// timeslicesOfTwoAndAHalf cuts a streaming run into 1 s windows from its
// first start (5 s): window 0 holds TTFTs 50, 100, 200 ms (OSL 3, 2, 2);
// window 1 TTFTs 80, 120 ms and a 500 error; window 2 is [2 s, 2.5 s) with
// one request of TTFT 100 ms and OSL 2.
func timeslicesOfTwoAndAHalf(t *testing.T) []timeslice.Slice {
	t.Helper()
	cfg := &metrics.Config{Streaming: true, ProducesTokens: true, TokenizesInput: true, Tokenizer: fieldsTokenizer{}}
	recs := []*record.Record{
		tsStream(200, 20, []int64{50, 250}, "a", " b c"),
		tsStream(0, 10, []int64{100, 300}, "a", " b"),
		tsStream(1000, 10, []int64{80, 400}, "a", " b"),
		tsStream(900, 30, []int64{200, 600}, "x", " y"),
		{Phase: record.PhaseProfiling, StartNS: 6500 * tsMS, EndNS: 6510 * tsMS, InputTokens: 99,
			Error: &record.Error{Code: 500, Type: "Internal Server Error", Message: "boom"}},
		tsStream(1700, 40, []int64{120, 320}, "a", " b c d"),
		tsStream(2100, 10, []int64{100, 400}, "a", " b"),
	}
	a := timeslice.New(cfg, time.Second, 5000*tsMS)
	for _, r := range recs {
		a.Add(r, metrics.Compute(cfg, r))
	}
	out := a.Slices()
	if len(out) != 3 {
		t.Fatalf("got %d slices, want 3", len(out))
	}
	return out
}

func TestWriteTimeslicesCSV(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteTimeslicesCSV(&buf, timeslicesOfTwoAndAHalf(t)); err != nil {
		t.Fatal(err)
	}
	got := buf.String()

	lines := strings.Split(got, "\r\n")
	if lines[0] != "Timeslice,Metric,Unit,Stat,Value" || lines[len(lines)-1] != "" {
		t.Errorf("header %q, last line %q", lines[0], lines[len(lines)-1])
	}
	// Rows are sorted by tag: benchmark_duration comes first. Window 0
	// spans 5.0 s .. 6.5 s (its last request ends after the window).
	if lines[1] != "0,Benchmark Duration,sec,avg,1.50" {
		t.Errorf("first row = %q", lines[1])
	}
	// Window 0's TTFT, sorted [50 100 200] ms, row by row: avg 350/3, sum,
	// min, max, pq at index q/100*2 (p5 = 50+0.1*50, p90 = 100+0.8*100),
	// population std sqrt(35000/9) = 62.36.
	ttft := strings.Join([]string{
		"0,Time to First Token,ms,avg,116.67",
		"0,Time to First Token,ms,sum,350.00",
		"0,Time to First Token,ms,min,50.00",
		"0,Time to First Token,ms,max,200.00",
		"0,Time to First Token,ms,p1,51.00",
		"0,Time to First Token,ms,p5,55.00",
		"0,Time to First Token,ms,p10,60.00",
		"0,Time to First Token,ms,p25,75.00",
		"0,Time to First Token,ms,p50,100.00",
		"0,Time to First Token,ms,p75,150.00",
		"0,Time to First Token,ms,p90,180.00",
		"0,Time to First Token,ms,p95,190.00",
		"0,Time to First Token,ms,p99,198.00",
		"0,Time to First Token,ms,std,62.36",
	}, "\r\n") + "\r\n"
	if !strings.Contains(got, ttft) {
		t.Errorf("window 0 TTFT rows missing; got:\n%s", got)
	}
	for _, row := range []string{
		"0,Request Count,requests,avg,3.00\r\n",
		"0,Request Throughput,requests/sec,avg,3.00\r\n",    // 3 / 1 s
		"0,Output Token Throughput,tokens/sec,avg,7.00\r\n", // (3+2+2) / 1 s
		"1,Error Request Count,requests,avg,1.00\r\n",       // the 500
		"1,Request Throughput,requests/sec,avg,2.00\r\n",    // 2 / 1 s
		"2,Request Throughput,requests/sec,avg,2.00\r\n",    // 1 / 0.5 s
		"2,Output Token Throughput,tokens/sec,avg,4.00\r\n", // 2 / 0.5 s
		"2,Time to First Token,ms,p50,100.00\r\n",
	} {
		if !strings.Contains(got, row) {
			t.Errorf("missing row %q", row)
		}
	}
	// A scalar has only its avg row.
	if strings.Contains(got, "Request Throughput,requests/sec,sum") {
		t.Error("scalar metric has a sum row")
	}
	checkGolden(t, "timeslices.csv.golden", buf.Bytes())
}

func TestWriteTimeslicesJSON(t *testing.T) {
	inputConfig := json.RawMessage(`{"endpoint":{"type":"chat","streaming":true},"output":{"slice_duration":1.0}}`)
	var buf bytes.Buffer
	if err := WriteTimeslicesJSON(&buf, timeslicesOfTwoAndAHalf(t), inputConfig); err != nil {
		t.Fatal(err)
	}
	got := buf.Bytes()
	if !bytes.HasPrefix(got, []byte("{\n  \"timeslices\": [\n    {\n      \"timeslice_index\": 0,\n      \"")) {
		t.Errorf("unexpected layout start:\n%.200s", got)
	}
	if !bytes.HasSuffix(got, []byte("\n  \"input_config\": {\n    \"endpoint\": {\n      \"type\": \"chat\",\n      \"streaming\": true\n    },\n    \"output\": {\n      \"slice_duration\": 1.0\n    }\n  }\n}")) {
		t.Errorf("unexpected layout end:\n%s", got[max(0, len(got)-300):])
	}

	var doc struct {
		Timeslices []map[string]json.RawMessage `json:"timeslices"`
	}
	if err := json.Unmarshal(got, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Timeslices) != 3 {
		t.Fatalf("%d timeslices, want 3", len(doc.Timeslices))
	}
	type stats struct {
		Unit string   `json:"unit"`
		Avg  float64  `json:"avg"`
		P50  *float64 `json:"p50"`
		Std  *float64 `json:"std"`
	}
	for i, ts := range doc.Timeslices {
		var idx int
		if err := json.Unmarshal(ts["timeslice_index"], &idx); err != nil || idx != i {
			t.Errorf("timeslice %d: index %s", i, ts["timeslice_index"])
		}
	}
	var ttft, tput stats
	if err := json.Unmarshal(doc.Timeslices[0]["time_to_first_token"], &ttft); err != nil {
		t.Fatal(err)
	}
	if ttft.Unit != "ms" || math.Abs(ttft.Avg-350.0/3) > 1e-12 || ttft.P50 == nil || *ttft.P50 != 100 ||
		ttft.Std == nil || math.Abs(*ttft.Std-math.Sqrt(35000.0/9)) > 1e-12 {
		t.Errorf("window 0 TTFT = %+v", ttft)
	}
	if err := json.Unmarshal(doc.Timeslices[2]["request_throughput"], &tput); err != nil {
		t.Fatal(err)
	}
	// Scalars spell out their missing statistics as null.
	if tput.Unit != "requests/sec" || math.Abs(tput.Avg-2) > 1e-12 || tput.P50 != nil || tput.Std != nil ||
		!bytes.Contains(doc.Timeslices[2]["request_throughput"], []byte(`"p50": null`)) {
		t.Errorf("window 2 request_throughput = %s", doc.Timeslices[2]["request_throughput"])
	}
	checkGolden(t, "timeslices.json.golden", got)
}

func TestWriteTimeslicesJSONEmpty(t *testing.T) {
	for _, cfg := range []any{nil, json.RawMessage(nil), json.RawMessage{}} {
		var buf bytes.Buffer
		if err := WriteTimeslicesJSON(&buf, nil, cfg); err != nil {
			t.Fatal(err)
		}
		if got, want := buf.String(), "{\n  \"timeslices\": []\n}"; got != want {
			t.Errorf("input config %#v: got %q, want %q", cfg, got, want)
		}
	}
	var buf bytes.Buffer
	if err := WriteTimeslicesCSV(&buf, nil); err != nil {
		t.Fatal(err)
	}
	if got := buf.String(); got != "Timeslice,Metric,Unit,Stat,Value\r\n" {
		t.Errorf("empty CSV = %q", got)
	}
}

func TestTimeslicesFileNames(t *testing.T) {
	for _, tc := range []struct{ prefix, json, csv string }{
		{"", "profile_export_aiperf_timeslices.json", "profile_export_aiperf_timeslices.csv"},
		{"foo", "foo_timeslices.json", "foo_timeslices.csv"},
	} {
		j, c := TimeslicesFileNames(tc.prefix)
		if j != tc.json || c != tc.csv {
			t.Errorf("prefix %q: got %s, %s", tc.prefix, j, c)
		}
	}
}

func TestTimesliceStatColumns(t *testing.T) {
	if n := len(csvStatValues(&metrics.Result{})); n != len(timesliceStats) {
		t.Errorf("%d values for %d stats %v", n, len(timesliceStats), timesliceStats)
	}
}
