package custom

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/tokenizer"
)

// jsonlUpdate tells whether -update was given. The flag is registered here
// only if no other test file of the package registers "update" at package
// level, so the two can coexist.
func jsonlUpdate() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files in testdata")
	}
}

// jsonlOptions returns Load options for path with the builtin tokenizer, one
// model and seed 1; typ "" auto-detects.
func jsonlOptions(t testing.TB, path, typ string) Options {
	t.Helper()
	tok, err := tokenizer.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	corpus, err := dataset.NewCorpus(tok)
	if err != nil {
		t.Fatal(err)
	}
	return Options{Path: path, Type: typ, Corpus: corpus, Models: []string{"test-model"}, Seed: 1}
}

// writeJSONL writes content to name in a fresh temporary directory and
// returns its path.
func writeJSONL(t testing.TB, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// fileError returns the *FileError in err's chain or fails the test.
func fileError(t testing.TB, err error) *FileError {
	t.Helper()
	var fe *FileError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v: want a *FileError", err)
	}
	return fe
}

// datasetJSON renders d for golden files and comparisons.
func datasetJSON(t testing.TB, d *dataset.Dataset) []byte {
	t.Helper()
	resolved := *d
	resolved.Conversations = make([]dataset.Conversation, len(d.Conversations))
	for i, c := range d.Conversations {
		c.Turns = make([]dataset.Turn, len(c.Turns))
		for k := range c.Turns {
			c.Turns[k] = *d.Conversations[i].Turns[k].Resolved()
		}
		resolved.Conversations[i] = c
	}
	b, err := json.MarshalIndent(&resolved, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}
