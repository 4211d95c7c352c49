package sink

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// writePieces writes line to w in pieces of at most k bytes, splitting it
// as a buffered writer does.
func writePieces(t *testing.T, w io.Writer, line string, k int) {
	t.Helper()
	for len(line) > 0 {
		n := min(len(line), k)
		if _, err := w.Write([]byte(line[:n])); err != nil {
			t.Fatal(err)
		}
		line = line[n:]
	}
}

// TestStreamSealsAtBytes: a segment is sealed once it holds Bytes, at the
// end of the line that crossed the bound, however few records it has.
func TestStreamSealsAtBytes(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, "mem://", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := s.NewRun(NewRunID(time.Now()))
	st, err := r.NewStream("records", StreamOptions{Records: 1 << 20, Bytes: 1000, Interval: time.Hour, SpoolDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	// 100-byte lines written in 30-byte pieces: the 10th line reaches
	// 1,000 bytes, so each segment holds 10 lines.
	for i := range 95 {
		writePieces(t, st, fmt.Sprintf("%03d%s\n", i, strings.Repeat("x", 96)), 30)
	}
	segs, stats, err := st.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) != 10 || stats.Records != 95 {
		t.Fatalf("%d segments, %d records; want 10, 95", len(segs), stats.Records)
	}
	for i, seg := range segs {
		b, err := s.Bucket.ReadAll(ctx, r.Key(seg))
		if err != nil {
			t.Fatal(err)
		}
		want := 1000
		if i == len(segs)-1 {
			want = 500
		}
		if len(b) != want || b[len(b)-1] != '\n' {
			t.Errorf("segment %d: %d bytes (last %q), want %d ending a line", i, len(b), b[len(b)-1], want)
		}
	}
}
