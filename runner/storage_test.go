package runner

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "gocloud.dev/blob/fileblob"

	"github.com/aiperf-go/aiperf/internal/secret"
	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
	"github.com/aiperf-go/aiperf/sink"
)

// openStore opens a destination as a reader would.
func openStore(t *testing.T, dest string) *sink.Store {
	t.Helper()
	s, err := sink.Open(context.Background(), dest, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestRunLayoutAndManifest(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{OutputTokens: 3})
	cfg := testConfig(t, srv.URL())
	cfg.Streaming = true
	cfg.RequestCount = 20
	cfg.SegmentRecords = 7 // three segments, composed at the end
	cfg.APIKey = "sk-never-stored"
	res := runOK(t, cfg)

	runs, err := openStore(t, cfg.ArtifactDir).ListRuns(context.Background())
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %+v %v", runs, err)
	}
	rs := runs[0]
	if rs.ID != res.Files.RunID || rs.Status != sink.StatusComplete || rs.Manifest == nil {
		t.Fatalf("run %+v", rs)
	}
	m := rs.Manifest
	names := map[string]bool{}
	for _, o := range m.Objects {
		names[o.Name] = true
		b, err := os.ReadFile(filepath.Join(cfg.ArtifactDir, "runs", rs.ID, o.Name))
		if err != nil || int64(len(b)) != o.Size {
			t.Errorf("%s: listed size %d, stored %d (%v)", o.Name, o.Size, len(b), err)
		}
	}
	for _, want := range []string{"inputs.json", "profile_export.jsonl", "profile_export_aiperf.json", "profile_export_aiperf.csv", "logs/aiperf.log"} {
		if !names[want] {
			t.Errorf("manifest lacks %s: %v", want, names)
		}
	}
	for n := range names {
		if strings.HasPrefix(n, "records/") {
			t.Errorf("segment %s left after compose", n)
		}
	}
	if m.Storage.Records.Segments != 3 || m.Storage.Records.Records != 20 || m.DatasetSHA256 == "" || m.Host.CPUs == 0 || m.Tool.Version != "test" {
		t.Errorf("manifest %+v", m)
	}
	manifest, _ := os.ReadFile(filepath.Join(cfg.ArtifactDir, "runs", rs.ID, "manifest.json"))
	if strings.Contains(string(manifest), "sk-never-stored") || !strings.Contains(string(manifest), `"api_key": "`+secret.Redacted+`"`) {
		t.Errorf("manifest config not redacted: %s", manifest)
	}
	if got := len(readRecords(t, filepath.Join(cfg.ArtifactDir, "runs", rs.ID))); got != 20 {
		t.Errorf("composed records %d, want 20", got)
	}
	if got := len(readRecords(t, cfg.ArtifactDir)); got != 20 {
		t.Errorf("latest-run records at the top of the directory: %d, want 20", got)
	}
}

func TestInterruptedRunManifest(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{TTFT: 10 * time.Millisecond})
	cfg := testConfig(t, srv.URL())
	cfg.RequestCount = 1000000
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := Run(ctx, cfg, Options{}); err == nil {
		t.Fatal("no error")
	}
	runs, _ := openStore(t, cfg.ArtifactDir).ListRuns(context.Background())
	if len(runs) != 1 || runs[0].Status != sink.StatusInterrupted || runs[0].Manifest == nil {
		t.Fatalf("runs %+v", runs)
	}
}

func TestStoreURLDestination(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{})
	cfg := testConfig(t, srv.URL())
	dir := t.TempDir()
	cfg.ArtifactDir = "file://" + dir
	cfg.RequestCount = 3
	res := runOK(t, cfg)
	if _, err := os.Stat(filepath.Join(dir, "runs", res.Files.RunID, "manifest.json")); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Files.JSON, "file://"+dir+"/runs/") {
		t.Fatalf("json location %s", res.Files.JSON)
	}
}

func TestUnwritableDestinationFailsBeforeAnyRequest(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{RecordTimelines: true})
	cfg := testConfig(t, srv.URL())
	blocker := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(blocker, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg.ArtifactDir = filepath.Join(blocker, "sub")
	_, err := Run(context.Background(), cfg, Options{})
	if err == nil || !strings.Contains(err.Error(), "artifact dir") {
		t.Fatalf("err %v", err)
	}
	if srv.MaxInFlight() != 0 {
		t.Fatal("requests were sent to an unwritable destination")
	}
}

// TestRecordsLeaveDuringRun: segments reach the store while the run is
// still going, not only at the end.
func TestRecordsLeaveDuringRun(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{TTFT: 5 * time.Millisecond})
	cfg := testConfig(t, srv.URL())
	cfg.Concurrency = 2
	cfg.BenchmarkDuration = 2 * time.Second
	cfg.SegmentInterval = 200 * time.Millisecond
	done := make(chan error, 1)
	go func() { _, err := Run(context.Background(), cfg, Options{}); done <- err }()
	deadline := time.Now().Add(1500 * time.Millisecond)
	for {
		matches, _ := filepath.Glob(filepath.Join(cfg.ArtifactDir, "runs", "*", "records", "000001.jsonl"))
		if len(matches) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no record segment stored during the first 1.5 s of a 2 s run")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// TestKilledRunKeepsItsRecords kills a runner process with SIGKILL in the
// middle of a run: the store must hold every record completed before the
// last segment interval, and the run must read as interrupted. The rate is
// low (about 25 requests/s) so that no buffer in front of the store can
// hide records for longer than the interval.
func TestKilledRunKeepsItsRecords(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{TTFT: 40 * time.Millisecond, RecordTimelines: true})
	cfg := testConfig(t, srv.URL())
	cfg.Concurrency = 1
	cfg.RequestCount = 1000000
	cfg.SegmentInterval = 250 * time.Millisecond
	killedRunContract(t, cfg, openStore(t, cfg.ArtifactDir), srv)
}

// killedRunContract runs cfg in a child process, kills it after 2 s, and
// checks what the store holds.
func killedRunContract(t *testing.T, cfg *Config, store *sink.Store, srv *mockserver.Server) {
	js, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), runEnv+"="+string(js))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	killed := time.Now()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	ctx := context.Background()
	runs, err := store.ListRuns(ctx)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %+v %v", runs, err)
	}
	if runs[0].Status != sink.StatusInterrupted {
		t.Fatalf("status %s, want interrupted", runs[0].Status)
	}
	var stored []jsonRecord
	it := store.Bucket.List(nil)
	for {
		obj, err := it.Next(ctx)
		if err != nil {
			break
		}
		// Segments only: a kill can leave a driver's half-written temp
		// file (fileblob's NAME.RANDOM.tmp), which readers skip too.
		if !strings.Contains(obj.Key, "/records/") || !strings.HasSuffix(obj.Key, ".jsonl") {
			continue
		}
		data, err := store.Bucket.ReadAll(ctx, obj.Key)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var r jsonRecord
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("torn record in %s: %v", obj.Key, err)
			}
			stored = append(stored, r)
		}
	}
	// Every request that finished one interval (plus scheduling slack)
	// before the kill must be stored.
	cutoff := killed.Add(-cfg.SegmentInterval - 250*time.Millisecond)
	have := map[string]bool{}
	for _, r := range stored {
		have[r.Metadata.XRequestID] = true
	}
	var due, missing int
	for id, tl := range srv.Timelines() {
		if len(tl.Events) == 0 || tl.Events[len(tl.Events)-1].At.After(cutoff) {
			continue
		}
		due++
		if !have[id] {
			missing++
		}
	}
	if due < 20 || missing > 0 {
		t.Fatalf("%d requests finished before %v ahead of the kill; %d of them not stored (%d stored)", due, cfg.SegmentInterval, missing, len(stored))
	}
	t.Logf("kill -9: %d records stored, all %d finished before the last interval among them", len(stored), due)
}
