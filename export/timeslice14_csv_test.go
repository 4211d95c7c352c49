package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestWriteTimeslicesCSV14 checks AIPerf 0.13's tidy timeslices CSV: the
// header with Start_NS and End_NS, wall-clock bounds, 0.13's STAT_KEYS order
// (sum after max), a scalar's single avg row, and exactly the statistics
// WriteTimeslicesJSON14 writes for each metric (count aside), each "%.2f".
func TestWriteTimeslicesCSV14(t *testing.T) {
	const wall = int64(1_700_000_000_000_000_000)
	toWall := func(ns int64) int64 { return wall + ns }
	windows := timeslicesOfTwoAndAHalf(t)
	var buf bytes.Buffer
	if err := WriteTimeslicesCSV14(&buf, windows, toWall); err != nil {
		t.Fatal(err)
	}
	got := buf.String()
	if !strings.HasPrefix(got, "Timeslice,Start_NS,End_NS,Metric,Unit,Stat,Value\r\n") {
		t.Fatalf("header = %q", strings.SplitN(got, "\r\n", 2)[0])
	}
	if !strings.HasSuffix(got, "\r\n") || strings.Contains(strings.ReplaceAll(got, "\r\n", ""), "\n") {
		t.Error("rows must end in CRLF")
	}
	const w0 = "0,1700000005000000000,1700000006000000000,"
	ttft := strings.Join([]string{
		w0 + "Time to First Token,ms,avg,116.67",
		w0 + "Time to First Token,ms,min,50.00",
		w0 + "Time to First Token,ms,max,200.00",
		w0 + "Time to First Token,ms,sum,350.00",
		w0 + "Time to First Token,ms,p1,51.00",
		w0 + "Time to First Token,ms,p5,55.00",
		w0 + "Time to First Token,ms,p10,60.00",
		w0 + "Time to First Token,ms,p25,75.00",
		w0 + "Time to First Token,ms,p50,100.00",
		w0 + "Time to First Token,ms,p75,150.00",
		w0 + "Time to First Token,ms,p90,180.00",
		w0 + "Time to First Token,ms,p95,190.00",
		w0 + "Time to First Token,ms,p99,198.00",
		w0 + "Time to First Token,ms,std,62.36",
	}, "\r\n") + "\r\n"
	if !strings.Contains(got, ttft) {
		t.Errorf("window 0 TTFT rows missing; got:\n%s", got)
	}
	for _, row := range []string{
		w0 + "Request Throughput,requests/sec,avg,3.00\r\n",
		"2,1700000007000000000,1700000007500000000,Request Throughput,requests/sec,avg,2.00\r\n", // clipped window
	} {
		if !strings.Contains(got, row) {
			t.Errorf("missing row %q", row)
		}
	}
	if strings.Contains(got, "Request Throughput,requests/sec,sum") {
		t.Error("scalar metric has a sum row")
	}

	// The rows are the statistics of the 1.4 timeslices JSON, in order.
	var js bytes.Buffer
	if err := WriteTimeslicesJSON14(&js, windows, toWall, nil); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Timeslices []map[string]json.RawMessage `json:"timeslices"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	headers := map[string]string{}
	for i := range windows {
		for _, r := range windows[i].Summary.Results {
			headers[r.Tag] = r.Header
		}
	}
	rows := map[string]string{} // "slice,metric,stat" -> value
	n := 0
	for _, line := range strings.Split(strings.TrimSuffix(got, "\r\n"), "\r\n")[1:] {
		f := strings.Split(line, ",")
		if len(f) != 7 {
			t.Fatalf("row %q has %d fields", line, len(f))
		}
		rows[f[0]+","+f[3]+","+f[5]] = f[6]
		n++
	}
	want := 0
	for i, ts := range doc.Timeslices {
		for tag, raw := range ts {
			var stats map[string]any
			if json.Unmarshal(raw, &stats) != nil {
				continue // start_ns, end_ns, is_complete
			}
			for stat, v := range stats {
				if stat == "unit" || stat == "count" {
					continue
				}
				want++
				key := fmt.Sprintf("%d,%s,%s", i, headers[tag], stat)
				if g, w := rows[key], fmt.Sprintf("%.2f", v.(float64)); g != w {
					t.Errorf("%s = %q, want %q (JSON %v)", key, g, w, v)
				}
			}
		}
	}
	if n != want {
		t.Errorf("%d rows, want %d (the JSON's statistics)", n, want)
	}
	checkGolden(t, "timeslices14.csv.golden", buf.Bytes())
}
