package sink

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	_ "gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/memblob"
)

// runConformance runs the store contract against the store open returns.
// Every backend (mem, file, MinIO, fake-gcs-server, Azurite) must pass it.
func runConformance(t *testing.T, open func(t *testing.T) *Store) {
	ctx := context.Background()
	newRun := func(t *testing.T) (*Store, *Run) {
		s := open(t)
		return s, s.NewRun(NewRunID(time.Now()))
	}

	t.Run("PutIsCreateOnly", func(t *testing.T) {
		s, r := newRun(t)
		if err := r.Put(ctx, "a.json", []byte(`{"a":1}`)); err != nil {
			t.Fatal(err)
		}
		if err := r.Put(ctx, "a.json", []byte(`{"a":1}`)); err != nil {
			t.Fatalf("rewriting the same bytes (a retry) must succeed: %v", err)
		}
		if err := r.Put(ctx, "a.json", []byte(`{"a":22}`)); err == nil {
			t.Fatal("overwrote an immutable object")
		}
		got, err := s.Bucket.ReadAll(ctx, r.Key("a.json"))
		if err != nil || string(got) != `{"a":1}` {
			t.Fatalf("read %q, %v", got, err)
		}
	})

	t.Run("PutStreamStreams", func(t *testing.T) {
		s, r := newRun(t)
		// 9 MiB, written in 64 KiB pieces: more than one part of a
		// multipart upload (S3: 5 MiB).
		piece := bytes.Repeat([]byte("0123456789abcdef"), 4096)
		write := func(w io.Writer) error {
			for range 144 {
				if _, err := w.Write(piece); err != nil {
					return err
				}
			}
			return nil
		}
		want := bytes.Repeat(piece, 144)
		obj, err := r.PutStream(ctx, "inputs.json", write)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.PutStream(ctx, "inputs.json", write); err != nil {
			t.Fatalf("storing the same stream again (a retry) must succeed: %v", err)
		}
		got, err := s.Bucket.ReadAll(ctx, r.Key("inputs.json"))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("stored object differs (%d vs %d bytes): %v", len(got), len(want), err)
		}
		sum := sha256.Sum256(want)
		if objs := r.Objects(); len(objs) != 1 || objs[0] != obj || obj.Size != int64(len(want)) || obj.SHA256 != hex.EncodeToString(sum[:]) {
			t.Fatalf("objects %+v, returned %+v", objs, obj)
		}
		// A writer that fails partway stores nothing.
		boom := errors.New("invalid payload")
		_, err = r.PutStream(ctx, "bad.json", func(w io.Writer) error {
			if _, err := w.Write(bytes.Repeat(piece, 20)); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("writer error: %v", err)
		}
		if ok, _ := s.Bucket.Exists(ctx, r.Key("bad.json")); ok {
			t.Fatal("a failed stream was stored")
		}
	})

	t.Run("CheckWritable", func(t *testing.T) {
		s, r := newRun(t)
		if err := r.CheckWritable(ctx); err != nil {
			t.Fatal(err)
		}
		if ok, _ := s.Bucket.Exists(ctx, r.Key(".write-probe")); ok {
			t.Fatal("probe object left behind")
		}
	})

	t.Run("StreamSegmentsCompose", func(t *testing.T) {
		s, r := newRun(t)
		st, err := r.NewStream("records", StreamOptions{Records: 1000, Interval: time.Hour, SpoolDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		for i := 0; i < 2500; i++ {
			line := fmt.Sprintf(`{"n":%d,"pad":"%s"}`+"\n", i, strings.Repeat("x", i%50))
			want.WriteString(line)
			writePieces(t, st, line, 7)
		}
		segs, stats, err := st.Close(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(segs) != 3 || stats.Records != 2500 || stats.Segments != 3 {
			t.Fatalf("segments %v stats %+v", segs, stats)
		}
		if err := r.Compose(ctx, "profile_export.jsonl", segs); err != nil {
			t.Fatal(err)
		}
		got, err := s.Bucket.ReadAll(ctx, r.Key("profile_export.jsonl"))
		if err != nil || !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("composed object differs (%d vs %d bytes): %v", len(got), want.Len(), err)
		}
		for _, seg := range segs {
			if ok, _ := s.Bucket.Exists(ctx, r.Key(seg)); ok {
				t.Errorf("segment %s not removed after compose", seg)
			}
		}
		objs := r.Objects()
		sum := sha256.Sum256(want.Bytes())
		if len(objs) != 1 || objs[0].Size != int64(want.Len()) || objs[0].SHA256 != hex.EncodeToString(sum[:]) {
			t.Fatalf("objects %+v", objs)
		}
	})

	t.Run("IntervalSealsWhileRunning", func(t *testing.T) {
		s, r := newRun(t)
		st, err := r.NewStream("records", StreamOptions{Interval: 100 * time.Millisecond, SpoolDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close(ctx)
		if _, err := st.Write([]byte("{\"n\":1}\n{\"n\":2}\n")); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			if ok, _ := s.Bucket.Exists(ctx, r.Key("records/000001.jsonl")); ok {
				return
			}
			if time.Now().After(deadline) {
				t.Fatal("no segment stored within the interval while the stream is open")
			}
			time.Sleep(20 * time.Millisecond)
		}
	})

	t.Run("ManifestAndStatus", func(t *testing.T) {
		s := open(t)
		early := s.NewRun(NewRunID(time.Now().Add(-time.Hour)))
		if err := early.Put(ctx, "records/000001.jsonl", []byte("{}\n")); err != nil {
			t.Fatal(err)
		}
		done := s.NewRun(NewRunID(time.Now()))
		if err := done.Put(ctx, "profile_export_aiperf.json", []byte("{}")); err != nil {
			t.Fatal(err)
		}
		if err := done.WriteManifest(ctx, &Manifest{Status: StatusComplete, Host: HostFacts()}); err != nil {
			t.Fatal(err)
		}
		runs, err := s.ListRuns(ctx)
		if err != nil {
			t.Fatal(err)
		}
		status := map[string]string{}
		var order []string
		for _, rs := range runs {
			status[rs.ID] = rs.Status
			order = append(order, rs.ID)
		}
		if status[early.ID] != StatusInterrupted || status[done.ID] != StatusComplete {
			t.Fatalf("statuses %v", status)
		}
		rs, err := s.ReadRun(ctx, done.ID)
		if err != nil || rs.Manifest == nil || len(rs.Manifest.Objects) != 1 || rs.Manifest.RunID != done.ID {
			t.Fatalf("manifest %+v %v", rs.Manifest, err)
		}
		if indexOf(order, early.ID) > indexOf(order, done.ID) {
			t.Fatalf("runs not oldest first: %v", order)
		}
	})
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

func TestConformanceMem(t *testing.T) {
	runConformance(t, func(t *testing.T) *Store {
		s, err := Open(context.Background(), "mem://", nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func TestConformanceFile(t *testing.T) {
	runConformance(t, func(t *testing.T) *Store {
		s, err := Open(context.Background(), t.TempDir(), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func TestConformanceFileURL(t *testing.T) {
	runConformance(t, func(t *testing.T) *Store {
		s, err := Open(context.Background(), "file://"+t.TempDir(), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}
