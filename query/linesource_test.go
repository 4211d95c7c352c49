package query

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// sourceRows drains a record source and returns each row's request_num.
func sourceRows(t *testing.T, ctx context.Context, files ...string) ([]int64, error) {
	t.Helper()
	src := startRecords(ctx, files)
	defer src.close()
	var nums []int64
	for {
		b, err := src.next()
		if err != nil {
			return nums, err
		}
		if b == nil {
			return nums, nil
		}
		for i := range b.rows {
			nums = append(nums, b.rows[i].ints[intRequestNum])
		}
		releaseBatch(b)
	}
}

// numberedLines returns n record lines numbered from first, each padded
// to about size bytes.
func numberedLines(first, n, size int) []string {
	lines := make([]string, n)
	for i := range lines {
		line := fmt.Sprintf(`{"metadata":{"request_num":%d,"x_request_id":"%s"}}`, first+i, strings.Repeat("x", max(0, size-50)))
		lines[i] = line
	}
	return lines
}

func TestRecordSourceKeepsOrder(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, lines []string, tail string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+tail), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// Many blocks, a line longer than three blocks, files with and without
	// a final newline, CRLF line ends and blank lines.
	a := write("a.jsonl", numberedLines(0, 30000, 120), "\n")
	b := write("b.jsonl", append(numberedLines(30000, 2, 3*lineBlockSize+17), numberedLines(30002, 5, 60)...), "")
	crlf := numberedLines(30007, 3, 60)
	c := write("c.jsonl", append([]string{"", crlf[0] + "\r", "   ", crlf[1] + "\r"}, crlf[2]), "\r\n\n")
	empty := write("empty.jsonl", nil, "")
	nums, err := sourceRows(t, context.Background(), a, empty, b, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(nums) != 30010 {
		t.Fatalf("%d rows, want 30010", len(nums))
	}
	for i, n := range nums {
		if n != int64(i) {
			t.Fatalf("row %d is request %d", i, n)
		}
	}
}

func TestRecordSourceErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	lines := numberedLines(0, 20000, 100)
	lines[15000] = `{"metadata":{"request_num":"x"}}`
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(good, []byte(strings.Join(numberedLines(0, 3, 60), "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := sourceRows(t, context.Background(), good, bad)
	if err == nil || !strings.Contains(err.Error(), "bad.jsonl line 15001: metadata: request_num") {
		t.Errorf("error %v, want one naming bad.jsonl line 15001", err)
	}
	_, err = sourceRows(t, context.Background(), good, filepath.Join(dir, "missing.jsonl"))
	if err == nil || !strings.Contains(err.Error(), "missing.jsonl") {
		t.Errorf("missing file: error %v", err)
	}
}

// TestRecordSourceCancel: a cancelled context ends the source with the
// context's error, and close leaves no goroutine behind.
func TestRecordSourceCancel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(numberedLines(0, 100000, 100), "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	src := startRecords(ctx, []string{path})
	b, err := src.next()
	if err != nil || b == nil {
		t.Fatalf("first batch %v %v", b, err)
	}
	releaseBatch(b)
	cancel()
	for err == nil {
		b, err = src.next()
		if b == nil && err == nil {
			break // everything was decoded before the cancel landed
		}
		if b != nil {
			releaseBatch(b)
		}
	}
	if err != nil && err != context.Canceled {
		t.Errorf("error %v, want context.Canceled", err)
	}
	src.close()
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after close, %d before", n, before)
	}
	// close without draining, before any next.
	src = startRecords(context.Background(), []string{path})
	src.close()
}
