package runner

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
	"github.com/aiperf-go/aiperf/sink"
)

// onMessage is a slog handler that calls f on every record whose message
// is msg: a hook at a known point of a run.
type onMessage struct {
	msg string
	f   func()
}

func (h onMessage) Enabled(context.Context, slog.Level) bool { return true }
func (h onMessage) Handle(_ context.Context, r slog.Record) error {
	if r.Message == h.msg {
		h.f()
	}
	return nil
}
func (h onMessage) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h onMessage) WithGroup(string) slog.Handler      { return h }

// spoolEntries lists what the spool root holds.
func spoolEntries(t *testing.T, root string) []string {
	t.Helper()
	var paths []string
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && p != root {
			rel, _ := filepath.Rel(root, p)
			paths = append(paths, rel)
		}
		return err
	})
	return paths
}

// TestFailedRunLeavesNoSpool: a run that fails after its artifacts were
// opened (here: cancelled before inputs.json is stored), with no record
// segment left to deliver, stores its log and removes its spool directory
// instead of leaving it behind holding the log.
func TestFailedRunLeavesNoSpool(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{})
	cfg := testConfig(t, srv.URL())
	cfg.SpoolDir = t.TempDir()
	cfg.NoServerMetrics = true
	cfg.RequestCount = 5
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// "benchmark starting" is logged once the artifacts are open, before
	// the first store of the run.
	_, err := Run(ctx, cfg, Options{Logger: slog.New(onMessage{msg: "benchmark starting", f: cancel})})
	if err == nil {
		t.Fatal("the run cancelled before storing its inputs did not fail")
	}
	t.Logf("run error: %v", err)
	if left := spoolEntries(t, cfg.SpoolDir); len(left) > 0 {
		t.Errorf("spool left behind: %v", left)
	}
	runs, lerr := openStore(t, cfg.ArtifactDir).ListRuns(context.Background())
	if lerr != nil || len(runs) != 1 {
		t.Fatalf("runs %+v, %v", runs, lerr)
	}
	if _, serr := os.Stat(filepath.Join(cfg.ArtifactDir, sink.RunsPrefix, runs[0].ID, "logs", "aiperf.log")); serr != nil {
		t.Errorf("the failed run's log was not stored: %v", serr)
	}
}

// TestSummaryOnlyRunHasASpoolDescriptor: a run with no record stream
// (--export-level summary) still describes its spool while it runs, so
// that if it dies, Recover can store its log and mark it interrupted; the
// spool is gone once it finished.
func TestSummaryOnlyRunHasASpoolDescriptor(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{})
	cfg := testConfig(t, srv.URL())
	cfg.SpoolDir = t.TempDir()
	cfg.NoServerMetrics = true
	cfg.RequestCount = 5
	cfg.ExportLevel = "summary"
	var during []string
	look := func() { during = spoolEntries(t, cfg.SpoolDir) }
	if _, err := Run(context.Background(), cfg, Options{Logger: slog.New(onMessage{msg: "benchmark starting", f: look})}); err != nil {
		t.Fatal(err)
	}
	hasDescriptor := false
	for _, p := range during {
		hasDescriptor = hasDescriptor || filepath.Base(p) == "spool.json"
	}
	if !hasDescriptor {
		t.Errorf("spool while running: %v, want a spool.json", during)
	}
	if left := spoolEntries(t, cfg.SpoolDir); len(left) > 0 {
		t.Errorf("spool left behind after a finished run: %v", left)
	}
}
