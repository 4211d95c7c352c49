package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/command"
	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
	"github.com/aiperf-go/aiperf/sink"
)

// deadSpool lays out the spool a killed run leaves: its descriptor, a lock
// nobody holds, and two sealed segments the store never acknowledged.
func deadSpool(t *testing.T, root, store, id string) string {
	t.Helper()
	dir := filepath.Join(root, id)
	if err := os.MkdirAll(filepath.Join(dir, "objects", "records"), 0o700); err != nil {
		t.Fatal(err)
	}
	desc, _ := json.Marshal(sink.SpoolDescriptor{SchemaVersion: "1", Store: store, RunID: id,
		Streams: []sink.SpoolStream{{Dir: "records", Compose: "profile_export.jsonl"}}})
	files := map[string]string{
		"spool.json":                   string(desc),
		"lock":                         "",
		"objects/records/000001.jsonl": "{\"n\":1}\n{\"n\":2}\n",
		"objects/records/000002.jsonl": "{\"n\":3}\n",
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runRecover runs the recover subcommand in-process.
func runRecover(t *testing.T, args ...string) (code int, stdout string) {
	t.Helper()
	var out bytes.Buffer
	err := newRecoverCommand(&out).ParseAndRun(context.Background(), args)
	return command.ExitCode("aiperf", err, io.Discard), out.String()
}

func TestRecoverCommand(t *testing.T) {
	root, store := t.TempDir(), t.TempDir()
	const id = "20261126T010203Z-0badcafe"
	spool := deadSpool(t, root, store, id)
	code, out := runRecover(t, "--spool-dir", root)
	if code != 0 || !strings.Contains(out, "Run "+id+": delivered 2 objects to "+store) ||
		!strings.Contains(out, "stored   records/000002.jsonl") || !strings.Contains(out, "manifest written (status interrupted)") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if _, err := os.Stat(spool); !os.IsNotExist(err) {
		t.Fatalf("spool left after delivery: %v", err)
	}
	m, err := os.ReadFile(filepath.Join(store, "runs", id, "manifest.json"))
	if err != nil || !strings.Contains(string(m), sink.RecoveredReason) {
		t.Fatalf("manifest %s: %v", m, err)
	}

	code, out = runRecover(t, "--spool-dir", root)
	if code != 0 || !strings.Contains(out, "No spooled runs") {
		t.Fatalf("nothing left: exit %d:\n%s", code, out)
	}
}

func TestRecoverCommandFailsWhenTheStoreDoesNotTakeIt(t *testing.T) {
	root := t.TempDir()
	// The store's directory cannot be created: a file is in its way.
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	spool := deadSpool(t, root, filepath.Join(blocker, "store"), "20261126T010203Z-0badcafe")
	code, out := runRecover(t, "--spool-dir", root, "--timeout", "1s")
	if code != 1 || !strings.Contains(out, "NOT fully delivered") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(spool, "objects", "records", "000001.jsonl")); err != nil {
		t.Fatalf("the spool was not kept: %v", err)
	}
	if code, _ := runRecover(t, "extra"); code != 2 {
		t.Fatalf("an argument: exit %d, want 2", code)
	}
}

// TestProfileRecoversDeadRunsFirst: the next `aiperf profile` that uses a
// --spool-dir first stores what a dead run left there, in that run's own
// store, marked interrupted, and then runs its own benchmark.
func TestProfileRecoversDeadRunsFirst(t *testing.T) {
	root, deadStore := t.TempDir(), t.TempDir()
	const id = "20261126T010203Z-0badcafe"
	deadSpool(t, root, deadStore, id)
	srv := mocktest.Start(t, mockserver.Config{})
	code, _, stderr := runCLI(t, "profile", "--model", "m", "--url", srv.URL(), "--request-count", "2", "--ui-type", "none",
		"--spool-dir", root, "--artifact-dir", t.TempDir(), "--no-gpu-telemetry", "--tokenizer", "builtin")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m, err := os.ReadFile(filepath.Join(deadStore, "runs", id, "manifest.json"))
	if err != nil || !strings.Contains(string(m), sink.RecoveredReason) {
		t.Fatalf("the dead run's manifest %s: %v", m, err)
	}
	recs, err := os.ReadFile(filepath.Join(deadStore, "runs", id, "records", "000002.jsonl"))
	if err != nil || string(recs) != "{\"n\":3}\n" {
		t.Fatalf("the dead run's segment: %q %v", recs, err)
	}
	if !strings.Contains(stderr, "stored what a dead run left in its spool") {
		t.Errorf("no warning about the recovery:\n%s", stderr)
	}
}
