package runner

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
	"github.com/aiperf-go/aiperf/sink"
)

// waitArrived waits until the server has received n requests.
func waitArrived(t *testing.T, srv *mockserver.Server, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for len(srv.Timelines()) < n {
		if time.Now().After(deadline) {
			t.Fatalf("the server received %d requests, want %d", len(srv.Timelines()), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestInterruptRecordsInFlightAsCancelled: an interrupt (the first signal
// cancels ctx) gives every request the server had received but not
// answered a CancelledError record, stored and counted, and the run's
// manifest says interrupted.
func TestInterruptRecordsInFlightAsCancelled(t *testing.T) {
	const workers = 4
	// Each answer would take a minute: none finishes before the interrupt.
	srv := mocktest.Start(t, mockserver.Config{ITL: time.Second, OutputTokens: 60, RecordTimelines: true})
	cfg := testConfig(t, srv.URL())
	cfg.Streaming = true
	cfg.Concurrency = workers
	cfg.RequestCount = 1000
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type outcome struct {
		res *Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := Run(ctx, cfg, Options{})
		done <- outcome{res, err}
	}()
	waitArrived(t, srv, workers)
	cancelled := time.Now()
	cancel()
	out := <-done
	if took := time.Since(cancelled); took > cfg.ShutdownGrace {
		t.Errorf("Run returned %v after the interrupt, longer than the shutdown grace %v", took, cfg.ShutdownGrace)
	}
	if !errors.Is(out.err, ErrInterrupted) {
		t.Fatalf("err %v, want ErrInterrupted", out.err)
	}
	received := slices.Sorted(func(yield func(string) bool) {
		for id := range srv.Timelines() {
			if !yield(id) {
				return
			}
		}
	})
	if out.res.Cancelled != len(received) || out.res.Summary.Failed != len(received) || out.res.Summary.Valid != 0 {
		t.Errorf("cancelled %d, failed %d, valid %d; the server received %d", out.res.Cancelled, out.res.Summary.Failed, out.res.Summary.Valid, len(received))
	}
	var recorded []string
	for _, r := range readRecords(t, cfg.ArtifactDir) {
		recorded = append(recorded, r.Metadata.XRequestID)
		if r.Error == nil || r.Error.Type != "CancelledError" || !r.Metadata.WasCancelled {
			t.Errorf("record %s: error %+v, was_cancelled %v; want a CancelledError, cancelled", r.Metadata.XRequestID, r.Error, r.Metadata.WasCancelled)
		}
	}
	slices.Sort(recorded)
	if !slices.Equal(recorded, received) {
		t.Errorf("records %v, the server received %v", recorded, received)
	}
	runs, _ := openStore(t, cfg.ArtifactDir).ListRuns(context.Background())
	if len(runs) != 1 || runs[0].Status != sink.StatusInterrupted || runs[0].Manifest == nil {
		t.Fatalf("runs %+v, want one interrupted run with its manifest", runs)
	}
}

// breakStore makes a directory store fail every write from now on, as a
// store that went down would: its directory becomes a file.
func breakStore(t *testing.T, dir string) {
	t.Helper()
	if err := os.Rename(dir, dir+".gone"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir, []byte("not a directory"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSignalBoundsTheUploadWaitWhenTheStoreIsDown: with the store down, an
// interrupt during the final upload ends it after --shutdown-grace, not
// after --upload-grace-period, and every record is left in the spool.
func TestSignalBoundsTheUploadWaitWhenTheStoreIsDown(t *testing.T) {
	for _, during := range []string{"run", "upload"} {
		t.Run(during, func(t *testing.T) {
			srv := mocktest.Start(t, mockserver.Config{TTFT: 5 * time.Millisecond, OutputTokens: 2, RecordTimelines: true})
			cfg := testConfig(t, srv.URL())
			cfg.ArtifactDir = filepath.Join(t.TempDir(), "store")
			cfg.SpoolDir = t.TempDir()
			cfg.NoServerMetrics = true // the records are the subject
			cfg.Concurrency = 1
			cfg.RequestCount = 10
			if during == "run" {
				cfg.RequestCount = 1000000
			}
			cfg.UploadGrace = time.Minute
			cfg.ShutdownGrace = time.Second
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				_, err := Run(ctx, cfg, Options{})
				done <- err
			}()
			waitArrived(t, srv, 3)
			breakStore(t, cfg.ArtifactDir)
			if during == "upload" {
				// Every request answered: the run is storing, and retrying.
				waitArrived(t, srv, cfg.RequestCount)
				time.Sleep(200 * time.Millisecond)
			}
			signalled := time.Now()
			cancel()
			var err error
			select {
			case err = <-done:
			case <-time.After(cfg.UploadGrace / 2):
				t.Fatalf("still storing %v after the interrupt, with --shutdown-grace %v", cfg.UploadGrace/2, cfg.ShutdownGrace)
			}
			took := time.Since(signalled)
			t.Logf("exited %v after the interrupt (--shutdown-grace %v, --upload-grace-period %v)", took, cfg.ShutdownGrace, cfg.UploadGrace)
			if took > cfg.ShutdownGrace+time.Second {
				t.Errorf("exited %v after the interrupt, want < shutdown grace %v + 1 s", took, cfg.ShutdownGrace)
			}
			if err == nil || !strings.Contains(err.Error(), "local spool") {
				t.Fatalf("err %v, want the undelivered segments named", err)
			}
			// What was not stored is in the spool, every record the run wrote.
			var spooled int
			var files []string
			_ = filepath.WalkDir(cfg.SpoolDir, func(path string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.Contains(filepath.ToSlash(path), "records") {
					files = append(files, path)
					data, _ := os.ReadFile(path)
					spooled += strings.Count(string(data), "\n")
				}
				return nil
			})
			if spooled == 0 || !strings.Contains(err.Error(), cfg.SpoolDir) {
				t.Errorf("%d records in the spool %v; err %v", spooled, files, err)
			}
			if during == "upload" && spooled != cfg.RequestCount {
				t.Errorf("%d records in the spool, the server answered %d", spooled, cfg.RequestCount)
			}
		})
	}
}

func TestStoreContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	sctx, release := storeContext(ctx, 50*time.Millisecond)
	defer release()
	cancel()
	if sctx.Err() != nil {
		t.Fatal("the store context ended with ctx, not after the grace")
	}
	<-sctx.Done()
	if !errors.Is(context.Cause(sctx), errShutdownGrace) {
		t.Errorf("cause %v", context.Cause(sctx))
	}

	// Not interrupted: only release ends it.
	sctx, release = storeContext(context.Background(), time.Nanosecond)
	time.Sleep(time.Millisecond)
	if sctx.Err() != nil {
		t.Error("ended without an interrupt")
	}
	release()
	if sctx.Err() == nil {
		t.Error("release did not end it")
	}
}
