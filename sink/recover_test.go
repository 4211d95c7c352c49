package sink

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// crashOptions seal every 100 records and never by age, so that what is
// sealed is exactly known.
func crashOptions(spool string) StreamOptions {
	return StreamOptions{Records: 100, Queue: 2, Interval: time.Hour, SpoolDir: spool}
}

// writeLines writes data to st one line at a time, as the runner does.
func writeLines(t *testing.T, st *Stream, data []byte) {
	t.Helper()
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		if _, err := st.Write(l); err != nil {
			t.Fatal(err)
		}
	}
}

// waitSpooled waits until the spool holds n segment files.
func waitSpooled(t *testing.T, spool string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(spooled(t, spool)) < n {
		if time.Now().After(deadline) {
			t.Fatalf("spool holds %d segments, want %d", len(spooled(t, spool)), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// storedRecords reads every record segment of the run in the store.
func storedRecords(t *testing.T, s *Store, id string) []byte {
	t.Helper()
	var all bytes.Buffer
	for i := 1; ; i++ {
		data, err := s.Bucket.ReadAll(context.Background(), fmt.Sprintf("%s%s/records/%06d.jsonl", RunsPrefix, id, i))
		if err != nil {
			return all.Bytes()
		}
		all.Write(data)
	}
}

// TestAbandonedStreamIsRecovered: the store fails, some segments are stored
// before it does, and the stream is abandoned without Close (its process
// "dies": its spool lock is released). Every sealed segment is on disk, the
// open one in its write-ahead file, and Recover delivers exactly the
// records written to the run's place in a working store, with an
// interrupted manifest, and removes the spool.
func TestAbandonedStreamIsRecovered(t *testing.T) {
	t.Run("dir", func(t *testing.T) { testAbandonedStreamIsRecovered(t, t.TempDir()) })
	t.Run("file-url", func(t *testing.T) { testAbandonedStreamIsRecovered(t, "file://"+t.TempDir()) })
}

func testAbandonedStreamIsRecovered(t *testing.T, dest string) {
	ctx := context.Background()
	s, err := Open(ctx, dest, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := s.NewRun(NewRunID(time.Now()))
	var down atomic.Bool
	var failures atomic.Int64
	outage(r, &down, &failures)
	root := t.TempDir()
	spool := filepath.Join(root, r.ID)
	st, err := r.NewStream("records", crashOptions(spool))
	if err != nil {
		t.Fatal(err)
	}
	defer st.cancel() // stop the abandoned uploader's retries
	data := lines(1250)
	writeLines(t, st, data[:bytes.Index(data, []byte(`{"n":300}`))])
	waitEmpty := time.Now().Add(10 * time.Second)
	for len(spooled(t, spool)) > 0 || len(r.Objects()) < 3 {
		if time.Now().After(waitEmpty) {
			t.Fatalf("the first segments were not stored: %v", r.Objects())
		}
		time.Sleep(5 * time.Millisecond)
	}
	down.Store(true)
	writeLines(t, st, data[bytes.Index(data, []byte(`{"n":300}`)):])
	// 12 segments sealed: 3 stored, 9 spooled; the open segment's 50
	// records are in its write-ahead file.
	waitSpooled(t, spool, 9)
	waitOpenLines(t, spool, 50)
	releaseSpool(spool)

	rep, err := Recover(ctx, root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Runs) != 1 || len(rep.Runs[0].Delivered) != 10 || !rep.Runs[0].Manifest || !rep.Runs[0].Removed {
		t.Fatalf("report %+v", rep.Runs)
	}
	if got := storedRecords(t, s, r.ID); !bytes.Equal(got, data) {
		t.Fatalf("stored %d lines, want all %d written", bytes.Count(got, []byte("\n")), bytes.Count(data, []byte("\n")))
	}
	rs, err := s.ReadRun(ctx, r.ID)
	if err != nil || rs.Manifest == nil || rs.Status != StatusInterrupted || rs.Manifest.Reason != RecoveredReason || len(rs.Manifest.Objects) != 13 {
		t.Fatalf("manifest %+v: %v", rs.Manifest, err)
	}
	if _, err := os.Stat(spool); !os.IsNotExist(err) {
		t.Fatalf("spool not removed: %v", err)
	}
}

// TestRecoverLeavesLiveRunsAlone: a spool whose process still holds its
// lock (this one) is reported live and not touched.
func TestRecoverLeavesLiveRunsAlone(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := s.NewRun(NewRunID(time.Now()))
	var down atomic.Bool
	var failures atomic.Int64
	down.Store(true)
	outage(r, &down, &failures)
	root := t.TempDir()
	spool := filepath.Join(root, r.ID)
	st, err := r.NewStream("records", crashOptions(spool))
	if err != nil {
		t.Fatal(err)
	}
	defer st.cancel()
	writeLines(t, st, lines(300))
	waitSpooled(t, spool, 3)
	rep, err := Recover(ctx, root, nil)
	if err != nil || len(rep.Runs) != 1 || !rep.Runs[0].Live || len(rep.Runs[0].Delivered) != 0 {
		t.Fatalf("report %+v: %v", rep.Runs, err)
	}
	if n := len(spooled(t, spool)); n != 3 {
		t.Fatalf("a live spool was touched: %d segments left", n)
	}
	if ok, _ := s.Bucket.Exists(ctx, r.Key(ManifestName)); ok {
		t.Fatal("a live run got a manifest")
	}
}

// TestRecoverKeepsWhatTheStoreRefuses: a store that still fails keeps the
// spool in place and names its files; a later Recover finishes.
func TestRecoverKeepsWhatTheStoreRefuses(t *testing.T) {
	ctx := context.Background()
	dest := t.TempDir()
	s, err := Open(ctx, dest, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := s.NewRun(NewRunID(time.Now()))
	var down atomic.Bool
	var failures atomic.Int64
	down.Store(true)
	outage(r, &down, &failures)
	root := t.TempDir()
	spool := filepath.Join(root, r.ID)
	st, err := r.NewStream("records", crashOptions(spool))
	if err != nil {
		t.Fatal(err)
	}
	defer st.cancel()
	writeLines(t, st, lines(200))
	waitSpooled(t, spool, 2)
	releaseSpool(spool)
	// The store cannot take the segments (a file stands where their
	// directory goes): recovery fails and keeps them all.
	blocker := filepath.Join(dest, RunsPrefix, r.ID, "records")
	if err := os.MkdirAll(filepath.Dir(blocker), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	rep, err := Recover(short, root, nil)
	if err == nil || len(rep.Runs) != 1 || len(rep.Runs[0].Undelivered) != 2 || rep.Runs[0].Removed || len(spooled(t, spool)) != 2 {
		t.Fatalf("report %+v: %v", rep.Runs, err)
	}
	if ok, _ := s.Bucket.Exists(ctx, r.Key(ManifestName)); ok {
		t.Fatal("a manifest was written before the records were stored")
	}
	os.Remove(blocker)
	if rep, err = Recover(ctx, root, nil); err != nil || (len(rep.Runs) > 0 && !rep.Runs[0].Removed) {
		t.Fatalf("second recovery: %+v: %v", rep.Runs, err)
	}
	if got := storedRecords(t, s, r.ID); !bytes.Equal(got, lines(200)) {
		t.Fatalf("stored %d bytes, want %d", len(got), len(lines(200)))
	}
}

// TestKilledProcessIsRecovered runs a stream in a child process whose store
// is down, kills it with SIGKILL once its records are on local disk (sealed
// segments spooled, the open one in its write-ahead file, not sealed), and
// recovers them from the spool it left: the records stored are exactly
// the records it wrote.
func TestKilledProcessIsRecovered(t *testing.T) {
	if os.Getenv("SINK_CRASH_CHILD") != "" {
		crashChild(t)
		return
	}
	ctx := context.Background()
	dest, root := t.TempDir(), t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledProcessIsRecovered$")
	cmd.Env = append(os.Environ(), "SINK_CRASH_CHILD=1", "SINK_CRASH_DEST="+dest, "SINK_CRASH_SPOOL="+root)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var id string
	var written int
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 3 && f[0] == "spooled" {
			id = f[1]
			written, _ = strconv.Atoi(f[2])
			break
		}
	}
	// Live: the child holds its spool.
	if rep, err := Recover(ctx, root, nil); err != nil || len(rep.Runs) != 1 || !rep.Runs[0].Live {
		t.Fatalf("recovered a live child's spool: %+v: %v", rep.Runs, err)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if id == "" {
		t.Fatal("the child did not report its spool")
	}
	rep, err := Recover(ctx, root, nil)
	if err != nil || len(rep.Runs) != 1 || !rep.Runs[0].Removed || !rep.Runs[0].Manifest {
		t.Fatalf("report %+v: %v", rep.Runs, err)
	}
	s, err := Open(ctx, dest, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got := storedRecords(t, s, id)
	if n := bytes.Count(got, []byte("\n")); n != written || !bytes.Equal(got, lines(written)) {
		t.Fatalf("stored %d records, the dead process wrote %d", n, written)
	}
	rs, err := s.ReadRun(ctx, id)
	if err != nil || rs.Status != StatusInterrupted || rs.Manifest == nil || rs.Manifest.Reason != RecoveredReason {
		t.Fatalf("run %+v: %v", rs, err)
	}
}

// crashChild is the process that dies: its store is down, it seals 700
// records into 7 segments and writes 30 more, reports once all 7 are in the
// spool and the 30 in the open segment's write-ahead file, and waits to be
// killed.
func crashChild(t *testing.T) {
	s, err := Open(context.Background(), os.Getenv("SINK_CRASH_DEST"), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := s.NewRun(NewRunID(time.Now()))
	var down atomic.Bool
	var failures atomic.Int64
	down.Store(true)
	outage(r, &down, &failures)
	spool := filepath.Join(os.Getenv("SINK_CRASH_SPOOL"), r.ID)
	st, err := r.NewStream("records", crashOptions(spool))
	if err != nil {
		t.Fatal(err)
	}
	data := lines(730)
	writeLines(t, st, data)
	waitSpooled(t, spool, 7)
	waitOpenLines(t, spool, 30)
	fmt.Printf("spooled %s %d\n", r.ID, 730)
	time.Sleep(time.Minute)
}
