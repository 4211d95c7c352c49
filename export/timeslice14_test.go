package export

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// TestWriteTimeslicesJSON14 checks AIPerf 0.13's timeslice layout: no
// timeslice_index, wall-clock start_ns and end_ns, is_complete only on the
// clipped last window, and 0.13's metric blocks (count and sum, no nulls).
func TestWriteTimeslicesJSON14(t *testing.T) {
	const wall = int64(1_700_000_000_000_000_000)
	inputConfig := json.RawMessage(`{"artifacts":{"slice_duration":1.0}}`)
	var buf bytes.Buffer
	if err := WriteTimeslicesJSON14(&buf, timeslicesOfTwoAndAHalf(t), func(ns int64) int64 { return wall + ns },
		inputConfig); err != nil {
		t.Fatal(err)
	}
	got := buf.Bytes()
	want := "{\n  \"timeslices\": [\n    {\n      \"start_ns\": 1700000005000000000,\n      \"end_ns\": 1700000006000000000,\n      \""
	if !bytes.HasPrefix(got, []byte(want)) {
		t.Errorf("unexpected layout start:\n%.200s", got)
	}
	if !bytes.HasSuffix(got, []byte("\n  \"input_config\": {\n    \"artifacts\": {\n      \"slice_duration\": 1.0\n    }\n  }\n}")) {
		t.Errorf("unexpected layout end:\n%s", got[max(0, len(got)-200):])
	}
	if bytes.Contains(got, []byte("timeslice_index")) || bytes.Contains(got, []byte("null")) {
		t.Errorf("0.13 writes neither timeslice_index nor nulls:\n%s", got)
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
	for i, ts := range doc.Timeslices {
		var start, end int64
		if json.Unmarshal(ts["start_ns"], &start) != nil || json.Unmarshal(ts["end_ns"], &end) != nil {
			t.Fatalf("timeslice %d: start_ns %s end_ns %s", i, ts["start_ns"], ts["end_ns"])
		}
		if wantStart := wall + 5000*tsMS + int64(i)*1000*tsMS; start != wantStart {
			t.Errorf("timeslice %d: start_ns %d, want %d", i, start, wantStart)
		}
		_, flagged := ts["is_complete"]
		if last := i == len(doc.Timeslices)-1; flagged != last {
			t.Errorf("timeslice %d: is_complete %s (only the clipped last window has it)", i, ts["is_complete"])
		}
		if i == 2 && (end-start != 500*tsMS || string(ts["is_complete"]) != "false") {
			t.Errorf("window 2 = [%d, %d) is_complete %s, want 500 ms and false", start, end, ts["is_complete"])
		}
	}
	var ttft struct {
		Unit  string  `json:"unit"`
		Avg   float64 `json:"avg"`
		Count *int    `json:"count"`
		Sum   float64 `json:"sum"`
	}
	if err := json.Unmarshal(doc.Timeslices[0]["time_to_first_token"], &ttft); err != nil {
		t.Fatal(err)
	}
	if ttft.Unit != "ms" || math.Abs(ttft.Avg-350.0/3) > 1e-12 || ttft.Count == nil || *ttft.Count != 3 || ttft.Sum != 350 {
		t.Errorf("window 0 TTFT = %+v", ttft)
	}
	var tput map[string]json.RawMessage
	if err := json.Unmarshal(doc.Timeslices[2]["request_throughput"], &tput); err != nil {
		t.Fatal(err)
	}
	if len(tput) != 2 || string(tput["unit"]) != `"requests/sec"` {
		t.Errorf("a scalar is {unit, avg}: window 2 request_throughput = %s", doc.Timeslices[2]["request_throughput"])
	}
}
