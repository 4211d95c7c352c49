package custom

import (
	"bytes"
	"context"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/dataset"
)

// poolDir writes files (name → content) into a fresh directory.
func poolDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestRandomPoolFile(t *testing.T) {
	pool := []string{"a", "b", "c", "d", "e"}
	var b strings.Builder
	for _, s := range pool {
		b.WriteString(`{"text": "` + s + `"}` + "\n\n")
	}
	o := jsonlOptions(t, writeJSONL(t, "pool.jsonl", b.String()), "random_pool")
	o.NumConversations, o.Seed = 40, 7
	d, err := Load(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	// The expected draws, from the documented stream: PCG(seed, FNV-1a of
	// "custom.random_pool").
	h := fnv.New64a()
	h.Write([]byte("custom.random_pool"))
	rng := rand.New(rand.NewPCG(7, h.Sum64()))
	if len(d.Conversations) != 40 || d.Timed || d.Sampling != dataset.SamplingSequential {
		t.Fatalf("got %d conversations, %+v", len(d.Conversations), d)
	}
	seen := map[string]bool{}
	for i, c := range d.Conversations {
		want := pool[rng.IntN(len(pool))]
		seen[want] = true
		if c.SessionID != sessionIDAt(i) || len(c.Turns) != 1 || !slices.Equal(c.Turns[0].Texts, []string{want}) || c.Turns[0].InputTokens != 1 {
			t.Errorf("conversation %d: %+v, want text %q", i, c, want)
		}
	}
	if len(seen) != len(pool) {
		t.Errorf("40 draws with replacement hit %d of 5 entries", len(seen))
	}
}

func sessionIDAt(i int) string {
	var n sessionNamer
	n.next = i
	return n.name()
}

// TestRandomPoolDirectory: each file is a pool named by its stem; a request
// merges one entry from each, so queries.jsonl + passages.jsonl make
// rankings turns.
func TestRandomPoolDirectory(t *testing.T) {
	dir := poolDir(t, map[string]string{
		"queries.jsonl":    `{"text": "q1"}` + "\n" + `{"text": "q2"}` + "\n",
		"passages.jsonl":   `{"texts": ["p1", "p2"]}` + "\n" + `{"texts": ["p3"]}` + "\n",
		"notes.txt":        `{"texts": [{"name": "passages", "contents": ["n1"]}], "image": "https://h/i.png"}`,
		".hidden":          "not json",
		"sub/ignored.json": "not json",
	})
	o := jsonlOptions(t, dir, "") // detected from the directory
	o.NumConversations = 30
	d, err := Load(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range d.Conversations {
		turn := c.Turns[0]
		// Pools merge in name order: notes, passages, queries.
		okPassages := slices.Equal(turn.Passages, []string{"n1", "p1", "p2"}) || slices.Equal(turn.Passages, []string{"n1", "p3"})
		if (turn.Query != "q1" && turn.Query != "q2") || !okPassages || len(turn.Texts) != 0 ||
			!slices.Equal(turn.Images, []string{"https://h/i.png"}) {
			t.Errorf("conversation %d: %+v", i, turn)
		}
	}
}

func TestRandomPoolBatch(t *testing.T) {
	path := writeJSONL(t, "pool.jsonl", `{"text": "a", "image": "https://h/1.png"}`+"\n"+`{"texts": ["b", "c"]}`+"\n")
	o := jsonlOptions(t, path, "random_pool")
	o.NumConversations, o.BatchSize = 20, 3
	d, err := Load(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range d.Conversations {
		turn := c.Turns[0]
		ok := len(turn.Texts) == 3 && slices.Equal(turn.Images, []string{"https://h/1.png"})
		for _, s := range turn.Texts {
			ok = ok && strings.Contains("abc", s)
		}
		if !ok {
			t.Errorf("conversation %d: %+v", i, turn)
		}
	}

	o = jsonlOptions(t, poolDir(t, map[string]string{"a.jsonl": `{"text": "a"}`}), "random_pool")
	o.BatchSize = 2
	if _, err := Load(context.Background(), o); err == nil || !strings.Contains(err.Error(), "single pool file") {
		t.Errorf("batch over a directory: %v", err)
	}
}

func TestRandomPoolErrors(t *testing.T) {
	// Bad lines of every pool are listed together, each with its file.
	dir := poolDir(t, map[string]string{
		"a.jsonl": `{"text": "ok"}` + "\n" + `{"text": "x", "timestamp": 5}` + "\n",
		"b.jsonl": `{"texts": 3}` + "\n",
	})
	_, err := Load(context.Background(), jsonlOptions(t, dir, "random_pool"))
	fe := fileError(t, err)
	if fe.Total != 2 || filepath.Base(fe.Lines[0].File) != "a.jsonl" || fe.Lines[0].Line != 2 || fe.Lines[0].Field != "timestamp" ||
		filepath.Base(fe.Lines[1].File) != "b.jsonl" || fe.Lines[1].Field != "texts" {
		t.Errorf("got %v", fe)
	}

	for name, tc := range map[string]struct {
		files map[string]string
		msg   string
	}{
		"empty pool":     {map[string]string{"a.jsonl": `{"text": "a"}`, "b.jsonl": "\n"}, "b.jsonl: no records"},
		"no pool files":  {map[string]string{".x": `{"text": "a"}`}, "no pool files"},
		"two query sets": {map[string]string{"queries.jsonl": `{"text": "a"}`, "query.jsonl": `{"text": "b"}`}, "both hold texts named query"},
	} {
		_, err := Load(context.Background(), jsonlOptions(t, poolDir(t, tc.files), "random_pool"))
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: got %v, want …%s…", name, err, tc.msg)
		}
	}
	if _, err := Load(context.Background(), jsonlOptions(t, writeJSONL(t, "p.jsonl", ""), "random_pool")); err == nil || !strings.Contains(err.Error(), "no records") {
		t.Errorf("empty file: %v", err)
	}
}

// TestDeterminism: the same seed and input give identical datasets, for
// every format and with random model choice and OSL draws; another seed
// gives another random_pool.
func TestDeterminism(t *testing.T) {
	for _, tc := range []struct{ typ, content string }{
		{"single_turn", strings.Repeat(`{"text": "a"}`+"\n"+`{"text": "b"}`+"\n", 10)},
		{"multi_turn", strings.Repeat(`{"turns": [{"text": "a"}, {"text": "b"}]}`+"\n", 10)},
		{"random_pool", `{"text": "a"}` + "\n" + `{"text": "b"}` + "\n" + `{"text": "c"}` + "\n"},
	} {
		path := writeJSONL(t, "d.jsonl", tc.content)
		render := func(seed uint64) []byte {
			o := jsonlOptions(t, path, tc.typ)
			o.Seed, o.Models, o.ModelStrategy = seed, []string{"m1", "m2", "m3"}, dataset.ModelRandom
			o.OSLMean, o.OSLStddev, o.NumConversations = 100, 30, 50
			d, err := Load(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			return datasetJSON(t, d)
		}
		first := render(42)
		if !bytes.Equal(first, render(42)) {
			t.Errorf("%s: seed 42 gave two different datasets", tc.typ)
		}
		if bytes.Equal(first, render(43)) {
			t.Errorf("%s: seeds 42 and 43 gave the same dataset", tc.typ)
		}
	}
}
