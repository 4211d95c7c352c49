package custom

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckInputFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	long := append(bytes.Repeat([]byte("x"), maxLineBytes+1), '\n')
	for _, tc := range []struct {
		path string
		want []string // nil: accepted
	}{
		{filepath.Join(dir, "absent.jsonl"), []string{"absent.jsonl does not exist", "--input-file"}},
		{write("empty.jsonl", nil), []string{"empty.jsonl is empty (0 bytes)", "one JSON object per line"}},
		{write("blank.jsonl", []byte("\n  \r\n\t\n")), []string{"blank.jsonl holds only blank lines", "one JSON object per line"}},
		{write("huge.jsonl", long), []string{"huge.jsonl: line 1 is 16777217 bytes, longer than the 16 MiB limit"}},
		{write("huge2.jsonl", append([]byte("\n"), long...)), []string{"line 2 is 16777217 bytes"}},
		{write("ok.jsonl", []byte("\n{\"text\":\"hi\"}\n")), nil},
		{write("bom.jsonl", []byte("\xEF\xBB\xBF{\"text\":\"hi\"}")), nil},
		{dir, nil}, // a random_pool directory
	} {
		err := CheckInputFile(tc.path)
		if tc.want == nil {
			if err != nil {
				t.Errorf("%s: %v", tc.path, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: accepted", tc.path)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", tc.path, err, w)
			}
		}
	}
}

// TestLoadNamesTheFileProblem checks that auto-detection says what is
// wrong with the file instead of failing to tell its type.
func TestLoadNamesTheFileProblem(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "e.jsonl")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{empty: "e.jsonl is empty", filepath.Join(dir, "gone.jsonl"): "gone.jsonl does not exist"} {
		_, err := Load(context.Background(), jsonlOptions(t, path, ""))
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "cannot tell") {
			t.Errorf("%s: %v, want …%s…", path, err, want)
		}
	}
}
