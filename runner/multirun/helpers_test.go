package multirun

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/runner"
)

// tinyConfig is a small valid streaming benchmark of 4 requests against
// url, stored in a temporary directory.
func tinyConfig(t *testing.T, url string) *runner.Config {
	t.Helper()
	cfg := runner.Defaults()
	cfg.Models = []string{"mock-model"}
	cfg.URL = url
	cfg.Streaming = true
	cfg.UIType = "none"
	cfg.ArtifactDir, cfg.ArtifactDirSet = t.TempDir(), true
	cfg.ISLMean, cfg.OSLMean = 16, 8
	cfg.NumDatasetEntries = 4
	cfg.RequestCount = 4
	cfg.Concurrency = 2
	cfg.RequestTimeout = 30 * time.Second
	return &cfg
}

// call is one benchmark a recorder saw.
type call struct {
	cfg        runner.Config
	start, end time.Time
	err        error
}

// recorder runs benchmarks with runner.Run and remembers each call; fail,
// when set, replaces the run of the calls it returns an error for.
type recorder struct {
	mu    sync.Mutex
	calls []call
	fail  func(n int) error // n is the 1-based call number
	after func(n int)       // called after call n returns
}

func (r *recorder) run(ctx context.Context, cfg *runner.Config) (*runner.Result, error) {
	r.mu.Lock()
	n := len(r.calls) + 1
	r.calls = append(r.calls, call{cfg: *cfg, start: time.Now()})
	r.mu.Unlock()
	var res *runner.Result
	var err error
	if r.fail != nil {
		err = r.fail(n)
	}
	if err == nil {
		res, err = runner.Run(ctx, cfg, runner.Options{Version: "test"})
	}
	r.mu.Lock()
	r.calls[n-1].end, r.calls[n-1].err = time.Now(), err
	r.mu.Unlock()
	if r.after != nil {
		r.after(n)
	}
	return res, err
}

// options returns Options running through r, printing to out.
func (r *recorder) options(out *bytes.Buffer) Options {
	return Options{Run: r.run, Stdout: out, Version: "test"}
}

// readJSON reads a JSON file into v.
func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// runValue reads one statistic of one metric from the summary in dir.
func runValue(t *testing.T, dir, tag, stat string) float64 {
	t.Helper()
	var doc map[string]json.RawMessage
	readJSON(t, filepath.Join(dir, "profile_export_aiperf.json"), &doc)
	var block map[string]any
	_ = json.Unmarshal(doc[tag], &block)
	v, ok := block[stat].(float64)
	if !ok {
		t.Fatalf("%s: no %s.%s", dir, tag, stat)
	}
	return v
}

// sampleStats is the textbook mean and sample (n-1) standard deviation.
func sampleStats(vs []float64) (mean, std float64) {
	for _, v := range vs {
		mean += v
	}
	mean /= float64(len(vs))
	for _, v := range vs {
		std += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(std / float64(len(vs)-1))
}
