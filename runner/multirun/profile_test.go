package multirun

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
	"github.com/aiperf-go/aiperf/runner"
)

// aggregateDoc is the part of profile_export_aiperf_aggregate.json the
// tests read.
type aggregateDoc struct {
	Metadata struct {
		Runs       int `json:"num_profile_runs"`
		Successful int `json:"num_successful_runs"`
		Failed     []struct {
			Label, Error string
		} `json:"failed_runs"`
		Labels   []string `json:"run_labels"`
		Cooldown float64  `json:"cooldown_seconds"`
	} `json:"metadata"`
	Metrics map[string]struct {
		Mean, Std, Min, Max, CV, SE float64
		CILow                       float64 `json:"ci_low"`
		CIHigh                      float64 `json:"ci_high"`
		TCritical                   float64 `json:"t_critical"`
		Unit                        string
	} `json:"metrics"`
}

func TestProfileRunsAndAggregate(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{RecordTimelines: true})
	cfg := tinyConfig(t, srv.URL())
	cfg.NumProfileRuns = 3
	cfg.WarmupRequestCount = 2
	var rec recorder
	var out bytes.Buffer
	rep, err := Profile(context.Background(), cfg, rec.options(&out))
	if err != nil {
		t.Fatal(err)
	}
	base := cfg.ArtifactDir

	// Three runs in profile_runs/run_000k, seed 42, warmup only first.
	if len(rec.calls) != 3 {
		t.Fatalf("%d runs", len(rec.calls))
	}
	for i, c := range rec.calls {
		wantDir := filepath.Join(base, "profile_runs", RunLabel(i+1))
		wantWarmup := 0
		if i == 0 {
			wantWarmup = 2
		}
		if c.cfg.ArtifactDir != wantDir || !c.cfg.ArtifactDirSet || c.cfg.RandomSeed != 42 || !c.cfg.RandomSeedSet || c.cfg.WarmupRequestCount != wantWarmup {
			t.Errorf("run %d: dir %q seed %d/%v warmup %d", i+1, c.cfg.ArtifactDir, c.cfg.RandomSeed, c.cfg.RandomSeedSet, c.cfg.WarmupRequestCount)
		}
	}
	// The server saw the warmup once: 2 + 3*4 requests.
	if n := len(srv.Timelines()); n != 14 {
		t.Errorf("server saw %d requests, want 14", n)
	}

	// Expected statistics, computed here from the runs' own summaries.
	var tput []float64
	for k := 1; k <= 3; k++ {
		tput = append(tput, runValue(t, filepath.Join(base, "profile_runs", RunLabel(k)), "request_throughput", "avg"))
	}
	mean, std := sampleStats(tput)
	p := 0.975
	t3 := (2*p - 1) / math.Sqrt(2*p*(1-p)) // Student t, df=2

	var doc aggregateDoc
	readJSON(t, filepath.Join(base, "aggregate", "profile_export_aiperf_aggregate.json"), &doc)
	if doc.Metadata.Runs != 3 || doc.Metadata.Successful != 3 || len(doc.Metadata.Failed) != 0 ||
		strings.Join(doc.Metadata.Labels, ",") != "run_0001,run_0002,run_0003" {
		t.Fatalf("metadata %+v", doc.Metadata)
	}
	got := doc.Metrics["request_throughput_avg"]
	if !closeTo(got.Mean, mean, 1e-9) || !closeTo(got.Std, std, 1e-9) || !closeTo(got.SE, std/math.Sqrt(3), 1e-9) ||
		!closeTo(got.CIHigh, mean+t3*std/math.Sqrt(3), 1e-9) || !closeTo(got.TCritical, t3, 1e-9) || got.Unit != "requests/sec" {
		t.Errorf("request_throughput_avg %+v, want mean %v std %v", got, mean, std)
	}
	if rc := doc.Metrics["request_count_avg"]; rc.Mean != 4 || rc.Std != 0 || rc.CILow != 4 || rc.CIHigh != 4 {
		t.Errorf("request_count_avg %+v", rc)
	}
	if _, ok := doc.Metrics["time_to_first_token_p99"]; !ok {
		t.Error("no time_to_first_token_p99 (streaming run)")
	}
	csv, err := os.ReadFile(filepath.Join(base, "aggregate", "profile_export_aiperf_aggregate.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(csv), "metric,mean,std,min,max,cv,se,ci_low,ci_high,t_critical,unit\r\n") ||
		!strings.Contains(string(csv), "\r\nrequest_count_avg,4.00,0.00,4.00,4.00,0.0000,0.0000,4.00,4.00,4.3027,requests\r\n") ||
		!strings.HasSuffix(string(csv), "Successful Runs,3\r\nConfidence Level,0.95\r\nRun Labels,\"['run_0001', 'run_0002', 'run_0003']\"\r\nCooldown Seconds,0.0\r\n") {
		t.Errorf("aggregate csv:\n%s", csv)
	}
	if rep.JSON != filepath.Join(base, "aggregate", "profile_export_aiperf_aggregate.json") || rep.Successful() != 3 {
		t.Errorf("report %+v", rep)
	}
	for _, s := range []string{"Profile run 1/3 (run_0001)", "Profile run 3/3 (run_0003)", "AGGREGATE STATISTICS SUMMARY", "Aggregate CSV Export: "} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("stdout lacks %q", s)
		}
	}
}

func TestProfileWarmupEveryRun(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{RecordTimelines: true})
	cfg := tinyConfig(t, srv.URL())
	cfg.NumProfileRuns, cfg.WarmupRequestCount = 2, 2
	cfg.ProfileRunDisableWarmupAfterFirst = false
	cfg.SetConsistentSeed = false
	var rec recorder
	if _, err := Profile(context.Background(), cfg, rec.options(&bytes.Buffer{})); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Timelines()); n != 12 {
		t.Errorf("server saw %d requests, want 2*(2+4)", n)
	}
	if rec.calls[1].cfg.RandomSeedSet {
		t.Error("without --set-consistent-seed the runs draw their own seeds")
	}
}

func TestProfileCooldown(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{})
	cfg := tinyConfig(t, srv.URL())
	cfg.NumProfileRuns = 2
	cfg.ProfileRunCooldown = 300 * time.Millisecond
	var rec recorder
	if _, err := Profile(context.Background(), cfg, rec.options(&bytes.Buffer{})); err != nil {
		t.Fatal(err)
	}
	if gap := rec.calls[1].start.Sub(rec.calls[0].end); gap < 300*time.Millisecond {
		t.Errorf("gap between runs %v, want >= 300ms", gap)
	}
	var doc aggregateDoc
	readJSON(t, filepath.Join(cfg.ArtifactDir, "aggregate", AggregateJSON), &doc)
	if doc.Metadata.Cooldown != 0.3 {
		t.Errorf("cooldown_seconds %v", doc.Metadata.Cooldown)
	}
}

func TestProfileFailures(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{})
	boom := errors.New("boom")
	tests := []struct {
		name     string
		runs     int
		fail     func(n int) error
		wantErr  error
		calls    int
		wantAgg  bool
		failedOK []string
	}{
		{"one failed run still aggregates", 3, func(n int) error {
			if n == 2 {
				return boom
			}
			return nil
		}, nil, 3, true, []string{"run_0002"}},
		{"one success is too few", 3, func(n int) error {
			if n > 1 {
				return boom
			}
			return nil
		}, ErrTooFewRuns, 3, false, nil},
		{"every run failed", 2, func(int) error { return boom }, ErrAllRunsFailed, 2, false, nil},
		{"input errors stop at once", 3, func(int) error { return &runner.InputError{Err: boom} }, boom, 1, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tinyConfig(t, srv.URL())
			cfg.NumProfileRuns = tt.runs
			rec := recorder{fail: tt.fail}
			_, err := Profile(context.Background(), cfg, rec.options(&bytes.Buffer{}))
			if (tt.wantErr == nil) != (err == nil) || (tt.wantErr != nil && !errors.Is(err, tt.wantErr)) {
				t.Fatalf("err %v, want %v", err, tt.wantErr)
			}
			if len(rec.calls) != tt.calls {
				t.Errorf("%d runs, want %d", len(rec.calls), tt.calls)
			}
			aggPath := filepath.Join(cfg.ArtifactDir, "aggregate", AggregateJSON)
			if _, statErr := os.Stat(aggPath); (statErr == nil) != tt.wantAgg {
				t.Fatalf("aggregate exists: %v, want %v", statErr == nil, tt.wantAgg)
			}
			if tt.wantAgg {
				var doc aggregateDoc
				readJSON(t, aggPath, &doc)
				if doc.Metadata.Successful != tt.runs-len(tt.failedOK) || len(doc.Metadata.Failed) != len(tt.failedOK) ||
					doc.Metadata.Failed[0].Label != tt.failedOK[0] || doc.Metadata.Failed[0].Error != "boom" {
					t.Errorf("metadata %+v", doc.Metadata)
				}
			}
		})
	}
}

func TestProfileAllRequestsFail(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{ErrorRate: 1})
	cfg := tinyConfig(t, srv.URL())
	cfg.NumProfileRuns = 2
	var rec recorder
	_, err := Profile(context.Background(), cfg, rec.options(&bytes.Buffer{}))
	if !errors.Is(err, ErrAllRunsFailed) || !errors.Is(rec.calls[0].err, runner.ErrAllFailed) {
		t.Fatalf("err %v (run: %v)", err, rec.calls[0].err)
	}
	if _, err := os.Stat(filepath.Join(cfg.ArtifactDir, "aggregate")); err == nil {
		t.Error("aggregate written although every run failed")
	}
	// Each failed run still has its artifacts.
	if _, err := os.Stat(filepath.Join(cfg.ArtifactDir, "profile_runs", "run_0002", "profile_export_aiperf.json")); err != nil {
		t.Error(err)
	}
}

func TestProfileInterrupted(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{})
	t.Run("between runs: the runs so far are aggregated", func(t *testing.T) {
		cfg := tinyConfig(t, srv.URL())
		cfg.NumProfileRuns = 4
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		rec := recorder{after: func(n int) {
			if n == 2 {
				cancel()
			}
		}}
		rep, err := Profile(ctx, cfg, rec.options(&bytes.Buffer{}))
		if !errors.Is(err, runner.ErrInterrupted) || len(rec.calls) != 2 || rep.Aggregate == nil {
			t.Fatalf("err %v, %d runs, aggregate %v", err, len(rec.calls), rep.Aggregate != nil)
		}
		var doc aggregateDoc
		readJSON(t, filepath.Join(cfg.ArtifactDir, "aggregate", AggregateJSON), &doc)
		if doc.Metadata.Runs != 2 || doc.Metadata.Successful != 2 {
			t.Errorf("metadata %+v", doc.Metadata)
		}
	})
	t.Run("during the cooldown", func(t *testing.T) {
		cfg := tinyConfig(t, srv.URL())
		cfg.NumProfileRuns = 2
		cfg.ProfileRunCooldown = time.Minute
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		rec := recorder{after: func(int) { time.AfterFunc(50*time.Millisecond, cancel) }}
		start := time.Now()
		rep, err := Profile(ctx, cfg, rec.options(&bytes.Buffer{}))
		if !errors.Is(err, runner.ErrInterrupted) || time.Since(start) > 20*time.Second {
			t.Fatalf("err %v after %v", err, time.Since(start))
		}
		if len(rec.calls) != 1 || len(rep.Outcomes) != 1 || rep.Aggregate != nil {
			t.Fatalf("%d runs, %d outcomes", len(rec.calls), len(rep.Outcomes))
		}
	})
}

func TestProfileStoreURL(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{})
	cfg := tinyConfig(t, srv.URL())
	dir := cfg.ArtifactDir
	cfg.ArtifactDir = "file://" + filepath.ToSlash(dir)
	cfg.NumProfileRuns = 2
	var rec recorder
	rep, err := Profile(context.Background(), cfg, rec.options(&bytes.Buffer{}))
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.calls[1].cfg.ArtifactDir; got != cfg.ArtifactDir+"/profile_runs/run_0002" {
		t.Errorf("run 2 destination %q", got)
	}
	// A store keeps each run under runs/<id>/ of its prefix.
	for _, run := range []string{"run_0001", "run_0002"} {
		if m, _ := filepath.Glob(filepath.Join(dir, "profile_runs", run, "runs", "*", "profile_export_aiperf.json")); len(m) != 1 {
			t.Errorf("%s: %v", run, m)
		}
	}
	var doc aggregateDoc
	readJSON(t, filepath.Join(dir, "aggregate", AggregateJSON), &doc)
	if doc.Metadata.Successful != 2 || !strings.HasPrefix(rep.JSON, cfg.ArtifactDir) {
		t.Errorf("metadata %+v, json at %q", doc.Metadata, rep.JSON)
	}
}
