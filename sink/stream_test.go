package sink

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

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
		line := fmt.Sprintf("%03d%s\n", i, strings.Repeat("x", 96))
		for len(line) > 0 {
			k := min(len(line), 30)
			if _, err := st.Write([]byte(line[:k])); err != nil {
				t.Fatal(err)
			}
			line = line[k:]
		}
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
