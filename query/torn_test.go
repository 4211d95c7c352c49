package query

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTornTail: a records file whose bytes after the last newline are not
// one JSON value ends in a torn line; a complete last line, with or
// without its newline, does not.
func TestTornTail(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		keep       int64
		torn       bool
	}{
		{"complete", "{\"a\":1}\n{\"a\":2}\n", 16, false},
		{"no final newline", "{\"a\":1}\n{\"a\":2}", 15, false},
		{"torn", "{\"a\":1}\n{\"a\":", 8, true},
		{"torn first line", "{\"a\"", 0, true},
		{"trailing blanks", "{\"a\":1}\n  \n", 11, false},
		{"empty", "", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "r.jsonl")
			if err := os.WriteFile(f, []byte(tc.data), 0o644); err != nil {
				t.Fatal(err)
			}
			keep, torn, err := tornTail(f)
			if err != nil || torn != tc.torn || (torn && keep != tc.keep) {
				t.Errorf("tornTail = %d, %v, %v; want %d, %v", keep, torn, err, tc.keep, tc.torn)
			}
		})
	}
}
