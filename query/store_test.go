package query

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/runner"
	"github.com/aiperf-go/aiperf/sink"
)

// partialRunID is the run without a manifest that testStore fabricates
// from the segments of a real run.
const partialRunID = "20261122T040000Z-deadbeef"

var (
	storeOnce sync.Once
	storeDir  string
	storeErr  error
)

// testStore returns a directory store holding runs made by the real
// runner against the mock server: a streaming concurrency run with
// injected errors, a non-streaming request-rate run, a run interrupted by
// cancelling its context, and a run without a manifest (killed) whose
// records are two segments. It is made once per test binary; tests must
// copy it before changing it.
func testStore(t *testing.T) string {
	t.Helper()
	storeOnce.Do(func() { storeDir, storeErr = makeTestStore() })
	if storeErr != nil {
		t.Fatal(storeErr)
	}
	return storeDir
}

func makeTestStore() (string, error) {
	dir, err := os.MkdirTemp("", "query-store-")
	if err != nil {
		return "", err
	}
	srv, err := mockserver.New(mockserver.Config{Addr: "127.0.0.1:0", OutputTokens: 12, ErrorRate: 0.15, TTFT: time.Millisecond, ITL: 100 * time.Microsecond})
	if err != nil {
		return "", err
	}
	if err := srv.Start(context.Background()); err != nil {
		return "", err
	}
	defer srv.Close()
	config := func(mod func(*runner.Config)) *runner.Config {
		cfg := runner.Defaults()
		cfg.Models = []string{"mock-model"}
		cfg.URL = srv.URL()
		cfg.UIType = "none"
		cfg.ArtifactDir, cfg.ArtifactDirSet = dir, true
		cfg.RandomSeed, cfg.RandomSeedSet = 42, true
		cfg.ISLMean = 32
		cfg.NumDatasetEntries = 10
		cfg.RequestTimeout = 30 * time.Second
		mod(&cfg)
		return &cfg
	}
	runs := []*runner.Config{
		config(func(c *runner.Config) {
			c.Streaming, c.Concurrency, c.RequestCount, c.OSLMean, c.SegmentRecords = true, 4, 40, 12, 15
			c.Labels = []string{"gpu=h100", "branch = main"}
		}),
		config(func(c *runner.Config) { c.RequestRate, c.RequestCount = 500, 20 }),
	}
	var first string
	for _, cfg := range runs {
		if err := cfg.Validate(); err != nil {
			return "", err
		}
		res, err := runner.Run(context.Background(), cfg, runner.Options{Version: "test"})
		if err != nil {
			return "", fmt.Errorf("run: %w", err)
		}
		if first == "" {
			first = res.Files.RunID
		}
	}
	cfg := config(func(c *runner.Config) { c.Streaming, c.Concurrency, c.RequestCount = true, 2, 1000000 })
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	_, err = runner.Run(ctx, cfg, runner.Options{Version: "test"})
	cancel()
	if err == nil {
		return "", fmt.Errorf("interrupted run: no error")
	}

	// A killed run: the first streaming run's records as two segments, its
	// inputs, and no manifest.
	data, err := os.ReadFile(filepath.Join(dir, "runs", first, "profile_export.jsonl"))
	if err != nil {
		return "", err
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	part := filepath.Join(dir, "runs", partialRunID)
	if err := os.MkdirAll(filepath.Join(part, "records"), 0o755); err != nil {
		return "", err
	}
	seg1, seg2 := bytes.Join(lines[:15], nil), bytes.Join(lines[15:25], nil)
	inputs, err := os.ReadFile(filepath.Join(dir, "runs", first, "inputs.json"))
	if err != nil {
		return "", err
	}
	for name, b := range map[string][]byte{"records/000001.jsonl": seg1, "records/000002.jsonl": seg2, "inputs.json": inputs} {
		if err := os.WriteFile(filepath.Join(part, name), b, 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}

func TestMain(m *testing.M) {
	code := m.Run()
	if storeDir != "" {
		os.RemoveAll(storeDir)
	}
	for _, dir := range benchStores {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

// openStore opens a store for the test.
func openStore(t *testing.T, dest string) *sink.Store {
	t.Helper()
	s, err := sink.Open(context.Background(), dest, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// storedRuns lists a directory store's runs with their record files.
func storedRuns(t *testing.T, dir string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	entries, err := os.ReadDir(filepath.Join(dir, "runs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		p := filepath.Join(dir, "runs", e.Name())
		if f := filepath.Join(p, "profile_export.jsonl"); fileExists(f) {
			out[e.Name()] = []string{f}
			continue
		}
		segs, _ := filepath.Glob(filepath.Join(p, "records", "*.jsonl"))
		out[e.Name()] = segs
	}
	return out
}
