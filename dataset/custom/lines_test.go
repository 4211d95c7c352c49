package custom

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// scanned is what jsonlScan reports for one line.
type scanned struct {
	line int
	text string // the record, or "BAD: " + message prefix
}

func scanAll(t *testing.T, in string, limit int) []scanned {
	t.Helper()
	var got []scanned
	err := jsonlScan(strings.NewReader(in), limit, func(line int, data []byte) error {
		got = append(got, scanned{line, string(data)})
		return nil
	}, func(line int, msg string) error {
		got = append(got, scanned{line, "BAD: " + msg})
		return nil
	})
	if err != nil {
		t.Fatalf("jsonlScan: %v", err)
	}
	return got
}

func TestJSONLScan(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		limit int
		want  []scanned
	}{
		{"empty", "", 100, nil},
		{"blank lines only", "\n  \n\t\r\n", 100, nil},
		{"no final newline", `{"a":1}` + "\n" + `{"b":2}`, 100, []scanned{{1, `{"a":1}`}, {2, `{"b":2}`}}},
		{"blank lines keep numbering", "\n{}\n\n  {} \n", 100, []scanned{{2, "{}"}, {4, "{}"}}},
		{"crlf", "{}\r\n{}\r\n", 100, []scanned{{1, "{}"}, {2, "{}"}}},
		{"bom on first line", "\xEF\xBB\xBF{}\n", 100, []scanned{{1, "{}"}}},
		{"invalid utf-8", "{}\n{\"a\":\"\xff\"}\n{}\n", 100, []scanned{{1, "{}"}, {2, "BAD: invalid UTF-8 at byte 6 of the line"}, {3, "{}"}}},
		{"line at the limit", "12345\n", 5, []scanned{{1, "12345"}}},
		{"line at the limit with crlf", "12345\r\n", 5, []scanned{{1, "12345"}}},
		{"line over the limit", "123456\n{}\n", 5, []scanned{{1, "BAD: line is 6 bytes, longer than the 5-byte limit"}, {2, "{}"}}},
		{"last line over the limit", "{}\n1234567", 5, []scanned{{1, "{}"}, {2, "BAD: line is 7 bytes, longer than the 5-byte limit"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := scanAll(t, tt.in, tt.limit); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v\nwant %v", got, tt.want)
			}
		})
	}
}

// TestJSONLScanLongLines crosses the bufio buffer (64 KiB) both under and
// over the limit.
func TestJSONLScanLongLines(t *testing.T) {
	long := strings.Repeat("x", 200_000)
	got := scanAll(t, long+"\n"+long+"y\n{}", 200_000)
	want := []scanned{{1, long}, {2, "BAD: line is 200001 bytes, longer than the 200000-byte limit"}, {3, "{}"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %d results, want %d", len(got), len(want))
	}
}

// TestHugeLine writes a line just over 16 MiB and checks that a dataset
// load reports it, with the line number, and goes on to the next line.
func TestHugeLine(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"text": "ok"}` + "\n")
	b.WriteString(`{"text": "`)
	b.Write(bytes.Repeat([]byte("a"), maxLineBytes))
	b.WriteString(`"}` + "\n")
	b.WriteString(`{"text": 5}` + "\n")
	path := filepath.Join(t.TempDir(), "huge.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(context.Background(), jsonlOptions(t, path, "single_turn"))
	fe := fileError(t, err)
	if fe.Total != 2 || fe.Lines[0].Line != 2 || !strings.Contains(fe.Lines[0].Msg, "longer than the 16 MiB limit") ||
		fe.Lines[1].Line != 3 || fe.Lines[1].Field != "text" {
		t.Errorf("got %v", fe)
	}
}

func TestJSONLScanStops(t *testing.T) {
	stop := errors.New("stop")
	calls := 0
	err := jsonlScan(strings.NewReader("{}\n{}\n"), 100, func(int, []byte) error {
		calls++
		return stop
	}, func(int, string) error { return nil })
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("err %v after %d calls, want stop after 1", err, calls)
	}
}

// TestBadLinesOrderAndBound: lines added out of order, from two files and
// by several passes, are reported by file (in the order of each file's
// first bad line) then line, the earliest-added problem of a line winning;
// only max are kept, all distinct lines are counted.
func TestBadLinesOrderAndBound(t *testing.T) {
	b := &badLines{max: 3}
	for line := 1000; line >= 1; line-- {
		b.add("b.jsonl", line, &LineError{Msg: fmt.Sprint("first ", line)})
	}
	b.add("a.jsonl", 7, &LineError{Msg: "a7"}) // a's first bad line comes after b's
	b.add("b.jsonl", 2, &LineError{Msg: "later pass"})
	if len(b.kept) != 3 {
		t.Fatalf("%d messages kept, want 3", len(b.kept))
	}
	fe := fileError(t, b.err())
	want := []LineError{{File: "b.jsonl", Line: 1, Msg: "first 1"}, {File: "b.jsonl", Line: 2, Msg: "first 2"}, {File: "b.jsonl", Line: 3, Msg: "first 3"}}
	if fe.Total != 1001 || !slices.Equal(fe.Lines, want) {
		t.Errorf("got total %d, %+v", fe.Total, fe.Lines)
	}
}

func TestBadLinesLimit(t *testing.T) {
	b := &badLines{max: 2}
	if b.err() != nil {
		t.Fatal("no bad lines must give nil")
	}
	for line := 1; line <= 5; line++ {
		b.add("f", line, &LineError{Field: "x", Msg: "m"})
		b.add("f", line, &LineError{Msg: "second error for the same line"})
	}
	fe := fileError(t, b.err())
	if fe.Total != 5 || len(fe.Lines) != 2 || fe.Lines[1] != (LineError{File: "f", Line: 2, Field: "x", Msg: "m"}) {
		t.Errorf("got %+v", fe)
	}
	if !strings.Contains(fe.Error(), "5 malformed line(s)") || !strings.Contains(fe.Error(), "and 3 more") {
		t.Errorf("message %q", fe.Error())
	}
}

func FuzzJSONLScan(f *testing.F) {
	for _, s := range []string{"", "{}\n", "\n\n{}\r\n  x  \n", "\xEF\xBB\xBF{}", "\xff\xfe\n{}", strings.Repeat("y", 40) + "\nz"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		last := 0
		err := jsonlScan(bytes.NewReader(in), 16, func(line int, data []byte) error {
			if line <= last || len(data) == 0 || len(data) > 16 || bytes.ContainsAny(data, "\n") ||
				!bytes.Equal(data, bytes.TrimSpace(data)) {
				t.Fatalf("line %d after %d: bad record %q", line, last, data)
			}
			last = line
			return nil
		}, func(line int, msg string) error {
			if line <= last || msg == "" {
				t.Fatalf("line %d after %d: bad report %q", line, last, msg)
			}
			last = line
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if max := bytes.Count(in, []byte("\n")) + 1; last > max {
			t.Fatalf("line %d of %d", last, max)
		}
	})
}
