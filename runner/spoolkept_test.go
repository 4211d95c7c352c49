package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/record"
	"github.com/aiperf-go/aiperf/sink"
)

// TestFailedRunKeepsAndNamesUndeliveredSegments: a run that fails before
// finish with sealed records the store did not take (it is down) keeps its
// spool, with every one of those records in it, and close's error names
// the spool; without waiting on the store.
func TestFailedRunKeepsAndNamesUndeliveredSegments(t *testing.T) {
	cfg := testConfig(t, "http://127.0.0.1:1")
	cfg.ArtifactDir = filepath.Join(t.TempDir(), "store")
	cfg.SpoolDir = t.TempDir()
	cfg.SegmentRecords = 2
	a, err := openArtifacts(context.Background(), cfg, record.NewClock(), nil)
	if err != nil {
		t.Fatal(err)
	}
	breakStore(t, cfg.ArtifactDir)
	const records = 5
	for range records {
		if _, err := a.records.stream.Write([]byte("{\"record\":1}\n")); err != nil {
			t.Fatal(err)
		}
	}
	err = a.close() // the run failed: finish never ran
	if err == nil || !strings.Contains(err.Error(), a.spool) {
		t.Fatalf("close: %v, want the kept spool %s named", err, a.spool)
	}
	files, serr := sink.SpooledSegments(a.spool)
	if serr != nil || len(files) == 0 {
		t.Fatalf("spooled segments %v, %v", files, serr)
	}
	var spooled int
	for _, f := range files {
		data, rerr := os.ReadFile(f)
		if rerr != nil {
			t.Fatal(rerr)
		}
		spooled += strings.Count(string(data), "\n")
		if !strings.Contains(err.Error(), f) {
			t.Errorf("close's error does not name %s: %v", f, err)
		}
	}
	if spooled != records {
		t.Errorf("%d records in the spool, %d written", spooled, records)
	}
}
