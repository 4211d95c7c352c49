package runner

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// TestTimeslicesWritten: --slice-duration writes the per-window JSON and
// tidy CSV next to the summary, covering every request once, in either
// layout: 1.4 (the default, AIPerf 0.13's: wall-clock bounds on every CSV
// row, a JSON array of windows) and 1.0 (0.8's: a slice index, and
// timeslice_index in the JSON).
func TestTimeslicesWritten(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{OutputTokens: 2, TTFT: time.Millisecond})
	for _, schema := range []string{"", "1.0"} {
		t.Run("schema="+schemaName(schema), func(t *testing.T) {
			cfg := testConfig(t, srv.URL())
			cfg.RequestRate, cfg.ArrivalPattern, cfg.RequestCount = 100, "constant", 25 // 0.25 s
			cfg.SliceDuration = 100 * time.Millisecond
			if schema != "" {
				cfg.OutputSchema = schema
			}
			runOK(t, cfg)
			// Read from the latest-run copies at the top of the directory.
			csv, err := os.ReadFile(filepath.Join(cfg.ArtifactDir, "profile_export_aiperf_timeslices.csv"))
			if err != nil {
				t.Fatal(err)
			}
			js, err := os.ReadFile(filepath.Join(cfg.ArtifactDir, "profile_export_aiperf_timeslices.json"))
			if err != nil {
				t.Fatal(err)
			}
			if schema == "1.0" {
				checkTimeslices10(t, string(csv), string(js))
			} else {
				checkTimeslices14(t, string(csv), js, cfg.SliceDuration)
			}
		})
	}
}

// checkTimeslices10 checks 0.8's timeslice files: the CSV's request counts
// (rows "slice,Request Count,requests,avg,value") sum to the 25 requests,
// and the JSON has a third window.
func checkTimeslices10(t *testing.T, csv, js string) {
	t.Helper()
	total := 0.0
	for _, line := range strings.Split(csv, "\r\n") {
		var slice int
		var v float64
		if n, _ := fmt.Sscanf(line, "%d,Request Count,requests,avg,%f", &slice, &v); n == 2 {
			total += v
		}
	}
	if total != 25 {
		t.Errorf("request counts over the windows sum to %v, want 25:\n%s", total, csv)
	}
	if !strings.Contains(js, `"timeslice_index": 2`) {
		t.Errorf("timeslices JSON lacks a third window:\n%.300s", js)
	}
}

// checkTimeslices14 checks 0.13's timeslice files: the CSV's request
// counts (rows "slice,start,end,Request Count,requests,avg,value") sum to
// the 25 requests, each window's bounds are those of the JSON's window at
// its place, and the windows are back to back, d long (the last may be
// cut short at the run's end: is_complete false).
func checkTimeslices14(t *testing.T, csv string, js []byte, d time.Duration) {
	t.Helper()
	var doc struct {
		Slices []struct {
			Start    int64 `json:"start_ns"`
			End      int64 `json:"end_ns"`
			Complete *bool `json:"is_complete"`
			Index    *int  `json:"timeslice_index"`
		} `json:"timeslices"`
	}
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Slices) < 3 {
		t.Fatalf("%d windows in the JSON, want at least 3:\n%.300s", len(doc.Slices), js)
	}
	for i, s := range doc.Slices {
		last := i == len(doc.Slices)-1
		if s.Index != nil || (!last && s.Complete != nil) || (last && s.Complete != nil && *s.Complete) {
			t.Errorf("window %d: timeslice_index %v, is_complete %v", i, s.Index, s.Complete)
		}
		if w := time.Duration(s.End - s.Start); w <= 0 || w > d || (!last && w != d) {
			t.Errorf("window %d is %v long, want %v", i, w, d)
		}
		if i > 0 && s.Start != doc.Slices[i-1].End {
			t.Errorf("window %d starts at %d, the previous ended at %d", i, s.Start, doc.Slices[i-1].End)
		}
	}
	lines := strings.Split(strings.TrimRight(csv, "\r\n"), "\n")
	if h := strings.TrimRight(lines[0], "\r"); h != "Timeslice,Start_NS,End_NS,Metric,Unit,Stat,Value" {
		t.Fatalf("CSV header %q", h)
	}
	total := 0.0
	for _, line := range lines[1:] {
		f := strings.Split(strings.TrimRight(line, "\r"), ",")
		if len(f) != 7 || f[3] != "Request Count" || f[4] != "requests" || f[5] != "avg" {
			continue
		}
		i, _ := strconv.Atoi(f[0])
		start, _ := strconv.ParseInt(f[1], 10, 64)
		end, _ := strconv.ParseInt(f[2], 10, 64)
		v, _ := strconv.ParseFloat(f[6], 64)
		if i < 0 || i >= len(doc.Slices) || start != doc.Slices[i].Start || end != doc.Slices[i].End {
			t.Errorf("CSV row %q: not the bounds of the JSON's window %d", line, i)
		}
		total += v
	}
	if total != 25 {
		t.Errorf("request counts over the windows sum to %v, want 25:\n%.2000s", total, csv)
	}
}
