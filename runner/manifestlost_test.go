package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
	"github.com/aiperf-go/aiperf/sink"
)

// TestManifestNotStoredKeepsSpool: when the store refuses the manifest
// at the end (fault injection: a directory stands where it goes, so the
// create-only write fails), the run says so and keeps its spool, and
// Recover then writes the run's manifest, interrupted.
func TestManifestNotStoredKeepsSpool(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{TTFT: 100 * time.Millisecond, OutputTokens: 1})
	cfg := testConfig(t, srv.URL())
	cfg.RequestCount, cfg.Concurrency = 5, 1
	runsDir := filepath.Join(cfg.ArtifactDir, "runs")
	blocked := make(chan string, 1)
	go func() {
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			ents, _ := os.ReadDir(runsDir)
			if len(ents) == 1 {
				dir := filepath.Join(runsDir, ents[0].Name())
				if os.MkdirAll(filepath.Join(dir, "manifest.json", "x"), 0o755) == nil {
					blocked <- dir
				}
				return
			}
		}
	}()
	_, err := Run(context.Background(), cfg, Options{Version: "test"})
	dir := <-blocked
	if err == nil || !strings.Contains(err.Error(), "aiperf recover") {
		t.Fatalf("run error %v, want the spool kept for aiperf recover", err)
	}
	if files, _ := filepath.Glob(filepath.Join(cfg.SpoolDir, "*", "spool.json")); len(files) != 1 {
		t.Fatalf("spools %v, want the run's", files)
	}
	if err := os.RemoveAll(filepath.Join(dir, "manifest.json")); err != nil {
		t.Fatal(err)
	}
	rep, err := sink.Recover(context.Background(), cfg.SpoolDir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("recovery: %+v", rep.Runs)
	runs, err := openStore(t, cfg.ArtifactDir).ListRuns(context.Background())
	if err != nil || len(runs) != 1 || runs[0].Status != sink.StatusInterrupted || runs[0].Manifest == nil {
		t.Fatalf("runs %+v: %v", runs, err)
	}
}
