package multirun

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// readCSV reads a CSV file whose lines must end in CRLF.
func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(b), "\n") != strings.Count(string(b), "\r\n") {
		t.Errorf("%s: lines do not all end in CRLF", path)
	}
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

var sweepCSVHeader = "Successful Runs,Request Throughput (requests/sec),Output Token Throughput (tokens/sec)," +
	"p50 Time to First Token (ms),p99 Time to First Token (ms),p50 Inter Token Latency (ms),p99 Inter Token Latency (ms)," +
	"p50 Request Latency (ms),p99 Request Latency (ms),Error Count"

func TestConcurrencySweep(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{RecordTimelines: true})
	cfg := tinyConfig(t, srv.URL())
	cfg.ConcurrencyList, cfg.Concurrency = []int{4, 1, 2}, 4
	var rec recorder
	var out bytes.Buffer
	res, err := Sweep(context.Background(), cfg, rec.options(&out))
	if err != nil {
		t.Fatal(err)
	}
	base := cfg.ArtifactDir
	order := []int{4, 1, 2}
	if len(rec.calls) != 3 || len(res) != 3 || len(srv.Timelines()) != 12 {
		t.Fatalf("%d runs, %d points, %d requests", len(rec.calls), len(res), len(srv.Timelines()))
	}
	for i, c := range rec.calls {
		// Point i: its concurrency, its own directory, seed 42+i.
		if c.cfg.Concurrency != order[i] || c.cfg.ArtifactDir != filepath.Join(base, "concurrency_"+strconv.Itoa(order[i])) ||
			c.cfg.RandomSeed != uint64(42+i) || len(c.cfg.ConcurrencyList) != 0 {
			t.Errorf("point %d: concurrency %d dir %q seed %d", i, c.cfg.Concurrency, c.cfg.ArtifactDir, c.cfg.RandomSeed)
		}
	}
	rows := readCSV(t, filepath.Join(base, SweepSummaryName))
	if len(rows) != 4 || strings.Join(rows[0], ",") != "Concurrency,"+sweepCSVHeader {
		t.Fatalf("rows %q", rows)
	}
	for i, c := range order {
		dir := filepath.Join(base, "concurrency_"+strconv.Itoa(c))
		row := rows[i+1]
		want := []string{strconv.Itoa(c), "1",
			strconv.FormatFloat(runValue(t, dir, "request_throughput", "avg"), 'f', 2, 64),
			strconv.FormatFloat(runValue(t, dir, "output_token_throughput", "avg"), 'f', 2, 64),
			strconv.FormatFloat(runValue(t, dir, "time_to_first_token", "p50"), 'f', 2, 64),
			strconv.FormatFloat(runValue(t, dir, "time_to_first_token", "p99"), 'f', 2, 64),
			strconv.FormatFloat(runValue(t, dir, "inter_token_latency", "p50"), 'f', 2, 64),
			strconv.FormatFloat(runValue(t, dir, "inter_token_latency", "p99"), 'f', 2, 64),
			strconv.FormatFloat(runValue(t, dir, "request_latency", "p50"), 'f', 2, 64),
			strconv.FormatFloat(runValue(t, dir, "request_latency", "p99"), 'f', 2, 64),
			"0"}
		if strings.Join(row, ",") != strings.Join(want, ",") {
			t.Errorf("row %d = %q, want %q", i+1, row, want)
		}
	}
	if !strings.Contains(out.String(), "Sweep point 2/3 (concurrency 1)") || !strings.Contains(out.String(), "Sweep Summary CSV: "+filepath.Join(base, SweepSummaryName)) {
		t.Errorf("stdout:\n%s", out.String())
	}
}

func TestRateSweepWithProfileRuns(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{})
	cfg := tinyConfig(t, srv.URL())
	cfg.Streaming = false
	cfg.Concurrency = 0
	cfg.RequestRateList, cfg.RequestRate = []float64{200, 400}, 200
	cfg.NumProfileRuns = 2
	cfg.RandomSeed, cfg.RandomSeedSet = 7, true
	var rec recorder
	if _, err := Sweep(context.Background(), cfg, rec.options(&bytes.Buffer{})); err != nil {
		t.Fatal(err)
	}
	base := cfg.ArtifactDir
	if len(rec.calls) != 4 {
		t.Fatalf("%d runs", len(rec.calls))
	}
	// All runs of a point, then the next point; a point's runs share its
	// seed (the given one plus the point's index).
	for i, want := range []struct {
		rate float64
		dir  string
		seed uint64
	}{{200, "request_rate_200.0/profile_runs/run_0001", 7}, {200, "request_rate_200.0/profile_runs/run_0002", 7},
		{400, "request_rate_400.0/profile_runs/run_0001", 8}, {400, "request_rate_400.0/profile_runs/run_0002", 8}} {
		c := rec.calls[i].cfg
		if c.RequestRate != want.rate || c.ArtifactDir != filepath.Join(base, filepath.FromSlash(want.dir)) || c.RandomSeed != want.seed {
			t.Errorf("run %d: rate %v dir %q seed %d", i, c.RequestRate, c.ArtifactDir, c.RandomSeed)
		}
	}
	for _, p := range []string{"request_rate_200.0", "request_rate_400.0"} {
		if _, err := os.Stat(filepath.Join(base, p, "aggregate", AggregateCSV)); err != nil {
			t.Error(err)
		}
	}
	rows := readCSV(t, filepath.Join(base, SweepSummaryName))
	if len(rows) != 3 || rows[0][0] != "Request Rate" || rows[1][0] != "200.0" || rows[2][0] != "400.0" || rows[1][1] != "2" {
		t.Fatalf("rows %q", rows)
	}
	// Throughput is the mean of the point's two runs; no TTFT without
	// streaming.
	dir := filepath.Join(base, "request_rate_400.0", "profile_runs")
	mean := (runValue(t, filepath.Join(dir, "run_0001"), "request_throughput", "avg") +
		runValue(t, filepath.Join(dir, "run_0002"), "request_throughput", "avg")) / 2
	if rows[2][2] != strconv.FormatFloat(mean, 'f', 2, 64) || rows[2][4] != "" || rows[2][10] != "0" {
		t.Errorf("row %q, want throughput %.2f", rows[2], mean)
	}
}

func TestSweepFailedPoints(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{})
	boom := errors.New("boom")
	t.Run("one point failed", func(t *testing.T) {
		cfg := tinyConfig(t, srv.URL())
		cfg.ConcurrencyList = []int{1, 2, 3}
		rec := recorder{fail: func(n int) error {
			if n == 2 {
				return boom
			}
			return nil
		}}
		if _, err := Sweep(context.Background(), cfg, rec.options(&bytes.Buffer{})); err != nil {
			t.Fatal(err)
		}
		rows := readCSV(t, filepath.Join(cfg.ArtifactDir, SweepSummaryName))
		if got := strings.Join(rows[2], ","); got != "2,0,,,,,,,,,0" {
			t.Errorf("failed point row %q", got)
		}
		if rows[3][0] != "3" || rows[3][1] != "1" || rows[3][2] == "" {
			t.Errorf("row after the failure %q", rows[3])
		}
	})
	t.Run("every point failed", func(t *testing.T) {
		cfg := tinyConfig(t, srv.URL())
		cfg.ConcurrencyList = []int{1, 2}
		rec := recorder{fail: func(int) error { return boom }}
		if _, err := Sweep(context.Background(), cfg, rec.options(&bytes.Buffer{})); !errors.Is(err, ErrAllRunsFailed) {
			t.Fatalf("err %v", err)
		}
	})
}
