package sink

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// outage makes the run's writes fail while down is true, as a store that
// is unreachable would (a fault-injection double around the real bucket).
func outage(r *Run, down *atomic.Bool, failures *atomic.Int64) {
	real := r.put
	r.put = func(ctx context.Context, key string, body io.Reader) error {
		if down.Load() {
			failures.Add(1)
			return fmt.Errorf("connection refused")
		}
		return real(ctx, key, body)
	}
}

func memStore(t *testing.T) *Store {
	s, err := Open(context.Background(), "mem://", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func lines(n int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "{\"n\":%d}\n", i)
	}
	return b.Bytes()
}

// TestOutageSpillsAndRecovers: the store goes down while records keep
// coming; segments spill to the spool, Write never blocks, and when the
// store comes back every record arrives.
func TestOutageSpillsAndRecovers(t *testing.T) {
	ctx := context.Background()
	s := memStore(t)
	r := s.NewRun(NewRunID(time.Now()))
	var down atomic.Bool
	var failures atomic.Int64
	outage(r, &down, &failures)
	spool := t.TempDir()
	st, err := r.NewStream("records", StreamOptions{Records: 100, Queue: 2, Interval: time.Hour, SpoolDir: spool})
	if err != nil {
		t.Fatal(err)
	}
	down.Store(true)
	data := lines(2000)
	// Every write returns while the store is down: none waits on it (they
	// may wait for the spool's disk, which is not measured here).
	for i := 0; i < len(data); i += 500 {
		if _, err := st.Write(data[i:min(i+500, len(data))]); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(300 * time.Millisecond)
	down.Store(false)
	segs, stats, err := st.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if stats.SpilledBytes == 0 || r.Retries() == 0 || failures.Load() == 0 {
		t.Fatalf("expected spills and retries: %+v retries %d", stats, r.Retries())
	}
	if err := r.Compose(ctx, "profile_export.jsonl", segs); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Bucket.ReadAll(ctx, r.Key("profile_export.jsonl"))
	if sortedLines(got) != sortedLines(data) {
		t.Fatalf("records lost: got %d bytes, want %d", len(got), len(data))
	}
	if left := spooled(t, spool); len(left) != 0 {
		t.Fatalf("delivered segments left in the spool: %v", left)
	}
}

// TestUndeliveredIsReported: the store never comes back; Close gives up at
// its deadline, keeps every segment in the spool and names each one.
func TestUndeliveredIsReported(t *testing.T) {
	s := memStore(t)
	r := s.NewRun(NewRunID(time.Now()))
	var down atomic.Bool
	var failures atomic.Int64
	down.Store(true)
	outage(r, &down, &failures)
	spool := t.TempDir()
	st, err := r.NewStream("records", StreamOptions{Records: 100, Queue: 1, Interval: time.Hour, SpoolDir: spool})
	if err != nil {
		t.Fatal(err)
	}
	data := lines(450)
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		st.Write(l)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, stats, err := st.Close(ctx)
	if err == nil {
		t.Fatal("Close reported success with the store down")
	}
	if len(stats.Undelivered) != 5 || !strings.Contains(err.Error(), "5 of 5 record segments were not stored") {
		t.Fatalf("undelivered %v, err %v", stats.Undelivered, err)
	}
	var kept bytes.Buffer
	for _, f := range stats.Undelivered {
		if !strings.HasPrefix(f, spool) || !strings.Contains(err.Error(), f) {
			t.Fatalf("spool file %s not named in %v", f, err)
		}
		b, rerr := os.ReadFile(f)
		if rerr != nil {
			t.Fatal(rerr)
		}
		kept.Write(b)
	}
	if sortedLines(kept.Bytes()) != sortedLines(data) {
		t.Fatal("the spool does not hold every record")
	}
}

// spooled lists the sealed segment files in a spool, relative to it (not
// the open segment's write-ahead file: see openLines).
func spooled(t *testing.T, spool string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(filepath.Join(spool, spoolObjectsDir), func(p string, d fs.DirEntry, err error) error {
		// An open segment's write-ahead file and a segment being written
		// (.tmp, renamed when complete) are not spooled segments yet.
		if err != nil || d.IsDir() || strings.HasSuffix(p, openSuffix) || strings.HasSuffix(p, ".tmp") {
			return err
		}
		rel, _ := filepath.Rel(spool, p)
		files = append(files, rel)
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return files
}

// sortedLines is the multiset of lines of b, for order-free comparison.
func sortedLines(b []byte) string {
	var ls []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		ls = append(ls, sc.Text())
	}
	sort.Strings(ls)
	return strings.Join(ls, "\n")
}

// TestPutStreamRetries: a streamed upload that fails partway (the store
// drops the connection after reading part of the body) is written again
// from the start, and the stored object is the whole stream; an error of
// the writer itself is returned at once.
func TestPutStreamRetries(t *testing.T) {
	ctx := context.Background()
	s := memStore(t)
	r := s.NewRun(NewRunID(time.Now()))
	real := r.put
	var attempts atomic.Int64
	r.put = func(ctx context.Context, key string, body io.Reader) error {
		if attempts.Add(1) < 3 {
			io.CopyN(io.Discard, body, 1000)
			return fmt.Errorf("connection reset by peer")
		}
		return real(ctx, key, body)
	}
	want := lines(5000)
	writes := 0
	write := func(w io.Writer) error {
		writes++
		for _, l := range bytes.SplitAfter(want, []byte("\n")) {
			if _, err := w.Write(l); err != nil {
				return err
			}
		}
		return nil
	}
	if _, err := r.PutStream(ctx, "inputs.json", write); err != nil {
		t.Fatal(err)
	}
	got, err := s.Bucket.ReadAll(ctx, r.Key("inputs.json"))
	if err != nil || !bytes.Equal(got, want) || attempts.Load() != 3 || writes != 3 || r.Retries() != 2 {
		t.Fatalf("stored %d of %d bytes after %d attempts, %d writes (%d retries): %v", len(got), len(want), attempts.Load(), writes, r.Retries(), err)
	}

	boom := errors.New("invalid payload")
	attempts.Store(10) // the store works from now on
	_, err = r.PutStream(ctx, "bad.json", func(w io.Writer) error {
		w.Write([]byte("{"))
		return boom
	})
	if !errors.Is(err, boom) || r.Retries() != 2 {
		t.Fatalf("writer error: %v (retries %d)", err, r.Retries())
	}
	if ok, _ := s.Bucket.Exists(ctx, r.Key("bad.json")); ok {
		t.Fatal("a failed stream was stored")
	}
}

// TestSegmentIsSpooledBeforeUpload: every upload of a segment starts with
// the segment already in the spool, and the spool file goes only once the
// store has acknowledged it.
func TestSegmentIsSpooledBeforeUpload(t *testing.T) {
	ctx := context.Background()
	s := memStore(t)
	r := s.NewRun(NewRunID(time.Now()))
	spool := t.TempDir()
	real := r.put
	var uploads, unspooled atomic.Int64
	r.put = func(ctx context.Context, key string, body io.Reader) error {
		uploads.Add(1)
		if _, err := os.Stat(spoolPath(spool, strings.TrimPrefix(key, r.prefix))); err != nil {
			unspooled.Add(1)
		}
		return real(ctx, key, body)
	}
	st, err := r.NewStream("records", StreamOptions{Records: 50, Interval: time.Hour, SpoolDir: spool})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range bytes.SplitAfter(lines(1000), []byte("\n")) {
		st.Write(l)
	}
	if _, _, err := st.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if uploads.Load() != 20 || unspooled.Load() != 0 {
		t.Fatalf("%d of %d uploads started before their segment was spooled", unspooled.Load(), uploads.Load())
	}
	if left := spooled(t, spool); len(left) != 0 {
		t.Fatalf("delivered segments left in the spool: %v", left)
	}
}

// openLines counts the complete records in a spool's write-ahead files.
func openLines(t *testing.T, spool string) int {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(spool, spoolObjectsDir, "*", "*"+openSuffix))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		n += bytes.Count(b, []byte("\n"))
	}
	return n
}

// waitOpenLines waits until the spool's write-ahead files hold n records.
func waitOpenLines(t *testing.T, spool string, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); openLines(t, spool) != n; {
		if time.Now().After(deadline) {
			t.Fatalf("the write-ahead files hold %d records, want %d", openLines(t, spool), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
