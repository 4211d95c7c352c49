package sink

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestRecoverFinishesASpoolWithoutStreams: a run that never starts a stream
// (--export-level summary) and dies leaves a spool with its descriptor and
// log only; Recover stores the log in the run's place, writes its
// interrupted manifest and removes the spool.
func TestRecoverFinishesASpoolWithoutStreams(t *testing.T) {
	ctx := context.Background()
	store, err := Open(ctx, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	run := store.NewRun(NewRunID(time.Now()))
	root := t.TempDir()
	spool := filepath.Join(root, run.ID)
	if err := run.OpenSpool(spool); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(spool, SpoolLogName), []byte("level=INFO msg=started\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if rep, _ := Recover(ctx, root, nil); len(rep.Runs) != 1 || !rep.Runs[0].Live {
		t.Fatalf("report %+v: the live process's spool was not left alone", rep.Runs)
	}
	releaseSpool(spool) // the process dies
	rep, err := Recover(ctx, root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 || !rep.Runs[0].Removed || !rep.Runs[0].Manifest {
		t.Fatalf("report %+v, want the spool stored, a manifest written, the spool removed", rep.Runs)
	}
	if log, err := store.Bucket.ReadAll(ctx, run.Key("logs/aiperf.log")); err != nil || string(log) != "level=INFO msg=started\n" {
		t.Errorf("stored log %q, %v", log, err)
	}
	if _, err := os.Stat(spool); !os.IsNotExist(err) {
		t.Errorf("spool still there: %v", err)
	}
}

// TestRecoverRemovesALogOnlySpool: a run's spool holding only its log and no
// descriptor (the process died before writing one) is removed, not left
// behind as "no spool.json"; a directory that is not a run's spool is left
// alone.
func TestRecoverRemovesALogOnlySpool(t *testing.T) {
	root := t.TempDir()
	spool := filepath.Join(root, NewRunID(time.Now()))
	other := filepath.Join(root, "not-a-run")
	for _, dir := range []string{spool, other} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, SpoolLogName), []byte("log\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := Recover(context.Background(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, rr := range rep.Runs {
		if rr.Spool == spool && !rr.Removed {
			t.Errorf("log-only spool: %+v, want it removed", rr)
		}
		if rr.Spool == other && rr.Removed {
			t.Errorf("a directory that is not a run's spool was removed: %+v", rr)
		}
	}
	if _, err := os.Stat(spool); !os.IsNotExist(err) {
		t.Errorf("log-only spool still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(other, SpoolLogName)); err != nil {
		t.Errorf("the other directory lost its file: %v", err)
	}
}
