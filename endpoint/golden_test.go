package endpoint

import (
	"bytes"
	"os"
	"testing"
)

// checkGolden compares got with the golden file at path, first rewriting
// the file from got when the test runs with -update.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s\n got %s\nwant %s", path, got, want)
	}
}
