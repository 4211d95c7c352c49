package custom

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/tokenizer"
)

// Older names the trace tests use for the package's shared pieces.
const traceMaxLine = maxLineBytes

type traceErrs = badLines

// traceTok returns the builtin tokenizer.
func traceTok(t testing.TB) tokenizer.Tokenizer {
	t.Helper()
	tok, err := tokenizer.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// traceOptions returns Load options for path with the builtin tokenizer,
// two models and seed 7; typ "" auto-detects.
func traceOptions(t testing.TB, path, typ string) Options {
	t.Helper()
	corpus, err := dataset.NewCorpus(traceTok(t))
	if err != nil {
		t.Fatal(err)
	}
	return Options{Path: path, Type: typ, Corpus: corpus, Models: []string{"model-a", "model-b"}, Seed: 7}
}

// writeTrace is writeJSONL, for trace files.
func writeTrace(t testing.TB, name, content string) string {
	t.Helper()
	return writeJSONL(t, name, content)
}

// loadTrace loads content written to name with type typ and the option
// changes of set (may be nil).
func loadTrace(t testing.TB, name, typ, content string, set func(*Options)) (*dataset.Dataset, error) {
	t.Helper()
	o := traceOptions(t, writeTrace(t, name, content), typ)
	if set != nil {
		set(&o)
	}
	return Load(context.Background(), o)
}

// mustTrace is loadTrace that fails the test on an error.
func mustTrace(t testing.TB, name, typ, content string, set func(*Options)) *dataset.Dataset {
	t.Helper()
	d, err := loadTrace(t, name, typ, content, set)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// traceFileError is fileError.
func traceFileError(t testing.TB, err error) *FileError {
	t.Helper()
	return fileError(t, err)
}

// badLine is an expected LineError: its line, field and a part of its
// message.
type badLine struct {
	line  int
	field string
	msg   string
}

// checkBad checks that err lists exactly want, in order.
func checkBad(t *testing.T, err error, want ...badLine) {
	t.Helper()
	fe := traceFileError(t, err)
	if fe.Total != len(want) || len(fe.Lines) != len(want) {
		t.Fatalf("got %d bad lines (%d listed), want %d:\n%v", fe.Total, len(fe.Lines), len(want), fe)
	}
	for i, w := range want {
		g := fe.Lines[i]
		if g.Line != w.line || g.Field != w.field || !strings.Contains(g.Msg, w.msg) {
			t.Errorf("bad line %d: got %d %q %q, want %d %q containing %q", i, g.Line, g.Field, g.Msg, w.line, w.field, w.msg)
		}
	}
}

// traceJSON is datasetJSON.
func traceJSON(t testing.TB, d *dataset.Dataset) []byte {
	t.Helper()
	return datasetJSON(t, d)
}

// traceGolden compares got with testdata/trace/<name>; -update rewrites it.
func traceGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "trace", name)
	if jsonlUpdate() {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n%s", name, got)
	}
}

// turns returns the turns of d in conversation order.
func turns(d *dataset.Dataset) []dataset.Turn {
	var out []dataset.Turn
	for _, c := range d.Conversations {
		for i := range c.Turns {
			out = append(out, *c.Turns[i].Resolved())
		}
	}
	return out
}
