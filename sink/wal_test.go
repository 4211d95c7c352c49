package sink

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWALSeal: whatever the write-ahead file holds when its segment seals
// (nothing, a prefix, or the segment and the start of the line the next
// segment carries over), the sealed spool file is exactly the segment, and
// no write-ahead file is left.
func TestWALSeal(t *testing.T) {
	seg := "{\"n\":1}\n{\"n\":2}\n"
	for _, tc := range []struct {
		name     string
		appended []string
	}{
		{"nothing appended", nil},
		{"a prefix", []string{"{\"n\":1}\n{\"n"}},
		{"the whole segment", []string{"{\"n\":1}\n", "{\"n\":2}\n"}},
		{"beyond the segment", []string{"{\"n\":1}\n{\"n\":2}\n{\"n\":"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "records", "000001.jsonl")
			var w wal
			for _, p := range tc.appended {
				w.appendOpen(1, path, []byte(p))
			}
			var data chunks
			data.Write([]byte(seg))
			if err := w.seal(1, path, &data); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil || string(got) != seg {
				t.Fatalf("sealed file %q (%v), want %q", got, err, seg)
			}
			if _, err := os.Stat(path + openSuffix); !os.IsNotExist(err) {
				t.Fatalf("write-ahead file left: %v", err)
			}
		})
	}
}

// TestWALSealAfterFailedAppend: an append the disk refused (here: the
// file's directory cannot be made) leaves the segment to be written whole
// at the seal, once the disk takes it again.
func TestWALSealAfterFailedAppend(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "records")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(blocker, "000001.jsonl")
	var w wal
	w.appendOpen(1, path, []byte("{\"n\":1}\n"))
	if !w.failed {
		t.Fatal("the append did not fail")
	}
	os.Remove(blocker)
	var data chunks
	data.Write([]byte("{\"n\":1}\n{\"n\":2}\n"))
	if err := w.seal(1, path, &data); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "{\"n\":1}\n{\"n\":2}\n" {
		t.Fatalf("sealed file %q", got)
	}
}

// TestReadSpooled: a sealed segment is read whole under its own name; the
// write-ahead file of a dead process's open segment up to its last complete
// record, under the segment's name.
func TestReadSpooled(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"records/000001.jsonl":              "{\"n\":1}\n",
		"records/000002.jsonl" + openSuffix: "{\"n\":2}\n{\"n\":3}\n{\"n\"",
		"records/000003.jsonl" + openSuffix: "{\"n\":",
	} {
		p := spoolPath(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ file, object, data string }{
		{"records/000001.jsonl", "records/000001.jsonl", "{\"n\":1}\n"},
		{"records/000002.jsonl" + openSuffix, "records/000002.jsonl", "{\"n\":2}\n{\"n\":3}\n"},
		{"records/000003.jsonl" + openSuffix, "records/000003.jsonl", ""},
	} {
		object, data, err := readSpooled(dir, tc.file)
		if err != nil || object != tc.object || string(data) != tc.data {
			t.Errorf("%s: %s %q (%v), want %s %q", tc.file, object, data, err, tc.object, tc.data)
		}
	}
	if _, _, err := readSpooled(dir, "records/000009.jsonl"); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
}
