package public

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/tokenizer"
)

// words returns "a a a …" with n words. With the builtin tokenizer (o200k)
// it is n tokens: "a" is one token and each " a" another, since the
// pre-tokenizer splits before every space-letter pair.
func words(n int) string { return "a" + strings.Repeat(" a", n-1) }

func builtin(t testing.TB) tokenizer.Tokenizer {
	t.Helper()
	tok, err := tokenizer.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func msg(from string, value any) map[string]any {
	m := map[string]any{"value": value}
	if from != "" {
		m["from"] = from
	}
	return m
}

func conv(msgs ...any) map[string]any { return map[string]any{"id": "x", "conversations": msgs} }

// shareGPTEntries covers each rule; the comments give the expected outcome.
func shareGPTEntries() []any {
	return []any{
		conv(msg("human", words(5)), msg("gpt", words(6)), msg("human", words(7)), msg("gpt", words(8))), // 0 kept, 2 turns
		conv(msg("human", words(5))),                                                                     // 1 no pairs: one message
		conv(msg("human", words(3)), msg("gpt", words(10))),                                              // 2 filtered: prompt < 4
		conv(msg("human", words(10)), msg("gpt", words(3))),                                              // 3 filtered: completion < 4 (kept with --osl)
		conv(msg("human", words(1025)), msg("gpt", words(10))),                                           // 4 filtered: prompt > 1024
		conv(msg("human", words(1000)), msg("gpt", words(1049))),                                         // 5 filtered: total 2049 > 2048
		conv(msg("human", words(1000)), msg("gpt", words(1048))),                                         // 6 kept: total 2048
		conv(msg("system", words(9)), msg("human", words(4)), msg("gpt", words(4))),                      // 7 kept: system ignored
		conv(msg("gpt", words(5)), msg("human", words(6)), msg("gpt", words(7))),                         // 8 kept: (6,7)
		conv(msg("human", words(5)), msg("human", words(6)), msg("gpt", words(7))),                       // 9 kept: (6,7)
		conv(msg("", words(11)), msg("", words(12)), msg("", words(13))),                                 // 10 kept: no roles, first two
		conv(msg("human", words(5)), msg("gpt", "")),                                                     // 11 no pairs: empty completion
		conv(msg("human", words(5)), msg("gpt", words(5)), msg("human", words(2)), msg("gpt", words(5))), // 12 filtered: 2nd pair
		42, // 13 no pairs: not an object
		map[string]any{"conversations": "hello world"},             // 14 no pairs: not a list
		conv("x", msg("human", words(4)), 7, msg("gpt", words(9))), // 15 kept: (4,9), non-objects ignored
		conv(msg("human", 123), msg("gpt", words(5))),              // 16 no pairs: value not a string
		conv(msg("user", words(6)), msg("assistant", words(7))),    // 17 kept: no human/gpt roles, first two
		conv(msg("human", words(4)), msg("gpt", words(4)), msg("human", words(20)), map[string]any{"from": "gpt"},
			msg("human", words(8)), msg("gpt", words(9))), // 18 kept: (4,4), (8,9)
	}
}

func writeJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "sharegpt.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// shape is one conversation as (input tokens, max tokens) per turn.
func shape(d *dataset.Dataset) [][][2]int {
	var out [][][2]int
	for _, c := range d.Conversations {
		var turns [][2]int
		for _, turn := range c.Turns {
			turns = append(turns, [2]int{turn.InputTokens, turn.MaxTokens})
		}
		out = append(out, turns)
	}
	return out
}

func TestLoadShareGPT(t *testing.T) {
	path := writeJSON(t, shareGPTEntries())
	var stats ShareGPTStats
	d, err := LoadShareGPT(context.Background(), ShareGPTOptions{Path: path, Tokenizer: builtin(t), Models: []string{"a", "b"}, Stats: &stats})
	if err != nil {
		t.Fatal(err)
	}
	want := [][][2]int{
		{{5, 6}, {7, 8}}, {{1000, 1048}}, {{4, 4}}, {{6, 7}}, {{6, 7}}, {{11, 12}}, {{4, 9}}, {{6, 7}}, {{4, 4}, {8, 9}},
	}
	if got := shape(d); !reflect.DeepEqual(got, want) {
		t.Errorf("conversations %v\nwant %v", got, want)
	}
	if stats != (ShareGPTStats{Entries: 19, Kept: 9, NoPairs: 5, Filtered: 5}) {
		t.Errorf("stats %+v", stats)
	}
	if d.Sampling != dataset.SamplingSequential || d.Timed {
		t.Errorf("sampling %q, timed %v", d.Sampling, d.Timed)
	}
	n := 0
	for i, c := range d.Conversations {
		if want := fmt.Sprintf("session_%06d", i); c.SessionID != want || c.ContextMode != dataset.DeltasWithoutResponses {
			t.Errorf("conversation %d: id %q, mode %q", i, c.SessionID, c.ContextMode)
		}
		for _, turn := range c.Turns {
			if want := []string{"a", "b"}[n%2]; turn.Model != want || turn.Role != "user" {
				t.Errorf("turn %d: model %q role %q, want %q user (round robin)", n, turn.Model, turn.Role, want)
			}
			if len(turn.Texts) != 1 || turn.Texts[0] != words(turn.InputTokens) {
				t.Errorf("turn %d: texts %q…", n, turn.Texts[0][:min(20, len(turn.Texts[0]))])
			}
			n++
		}
	}
}

func TestLoadShareGPTOSLSet(t *testing.T) {
	path := writeJSON(t, shareGPTEntries())
	var stats ShareGPTStats
	d, err := LoadShareGPT(context.Background(), ShareGPTOptions{Path: path, Tokenizer: builtin(t), Models: []string{"m"}, OSLSet: true, Stats: &stats})
	if err != nil {
		t.Fatal(err)
	}
	if got := shape(d); len(got) != 10 || !reflect.DeepEqual(got[1], [][2]int{{10, 3}}) {
		t.Errorf("with --osl: %v; want entry 3 kept as (10, 3)", got)
	}
	if stats.Filtered != 4 {
		t.Errorf("stats %+v", stats)
	}
}

func TestLoadShareGPTNumEntries(t *testing.T) {
	path := writeJSON(t, shareGPTEntries())
	var stats ShareGPTStats
	d, err := LoadShareGPT(context.Background(), ShareGPTOptions{Path: path, Tokenizer: builtin(t), Models: []string{"m"}, NumEntries: 3, Stats: &stats})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := shape(d), [][][2]int{{{5, 6}, {7, 8}}, {{1000, 1048}}, {{4, 4}}}; !reflect.DeepEqual(got, want) {
		t.Errorf("first 3: %v, want %v", got, want)
	}
	if stats != (ShareGPTStats{Entries: 8, Kept: 3, NoPairs: 1, Filtered: 4}) {
		t.Errorf("stats %+v", stats)
	}
}

func TestLoadShareGPTRandomModels(t *testing.T) {
	path := writeJSON(t, shareGPTEntries())
	load := func(seed uint64) []string {
		d, err := LoadShareGPT(context.Background(), ShareGPTOptions{Path: path, Tokenizer: builtin(t),
			Models: []string{"x", "y", "z"}, ModelStrategy: dataset.ModelRandom, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		var models []string
		for _, c := range d.Conversations {
			for _, turn := range c.Turns {
				models = append(models, turn.Model)
			}
		}
		return models
	}
	a := load(5)
	if !reflect.DeepEqual(a, load(5)) {
		t.Error("same seed, different models")
	}
	for _, m := range a {
		if m != "x" && m != "y" && m != "z" {
			t.Errorf("model %q", m)
		}
	}
}

func TestLoadShareGPTErrors(t *testing.T) {
	tok := builtin(t)
	write := func(s string) string {
		path := filepath.Join(t.TempDir(), "f.json")
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	tests := []struct {
		name string
		o    ShareGPTOptions
		msg  string
	}{
		{"object", ShareGPTOptions{Path: write(`{"a":1}`)}, "not a JSON array"},
		{"empty file", ShareGPTOptions{Path: write(``)}, "not a JSON array"},
		{"truncated", ShareGPTOptions{Path: write(`[{"conversations": [`)}, "entry 0"},
		{"unterminated", ShareGPTOptions{Path: write(`[{"conversations": []}`)}, "after the last entry"},
		{"missing file", ShareGPTOptions{Path: filepath.Join(t.TempDir(), "nope.json")}, "no such file"},
		{"no tokenizer", ShareGPTOptions{Path: "x", Tokenizer: nil}, "nil tokenizer"},
		{"no models", ShareGPTOptions{Path: "x", Models: []string{}}, "no model names"},
		{"bad strategy", ShareGPTOptions{Path: "x", ModelStrategy: "weighted"}, `model strategy "weighted"`},
		{"no path or cache", ShareGPTOptions{}, "no file path and no cache directory"},
	}
	for _, tc := range tests {
		o := tc.o
		if o.Tokenizer == nil && tc.name != "no tokenizer" {
			o.Tokenizer = tok
		}
		if o.Models == nil {
			o.Models = []string{"m"}
		}
		_, err := LoadShareGPT(context.Background(), o)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: error %v, want it to mention %q", tc.name, err, tc.msg)
		}
		if err != nil && o.Path != "x" && o.Path != "" && !strings.Contains(err.Error(), o.Path) {
			t.Errorf("%s: error %v does not name the file", tc.name, err)
		}
	}
}

func TestLoadShareGPTDownload(t *testing.T) {
	body, err := json.Marshal(shareGPTEntries())
	if err != nil {
		t.Fatal(err)
	}
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path != "/sharegpt.json" {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	}))
	defer srv.Close()
	cache := filepath.Join(t.TempDir(), "cache")
	o := ShareGPTOptions{CacheDir: cache, URL: srv.URL + "/sharegpt.json", Client: srv.Client(), Tokenizer: builtin(t), Models: []string{"m"}}

	for i, offline := range []bool{false, false, true} {
		o.Offline = offline
		d, err := LoadShareGPT(context.Background(), o)
		if err != nil {
			t.Fatalf("load %d: %v", i, err)
		}
		if len(d.Conversations) != 9 {
			t.Fatalf("load %d: %d conversations, want 9", i, len(d.Conversations))
		}
		if hits.Load() != 1 {
			t.Fatalf("load %d: %d requests, want 1 (then the cache)", i, hits.Load())
		}
	}
	if got, err := os.ReadFile(filepath.Join(cache, ShareGPTFile)); err != nil || string(got) != string(body) {
		t.Errorf("cached file: %v", err)
	}
	entries, _ := os.ReadDir(cache)
	if len(entries) != 1 {
		t.Errorf("cache holds %d files, want only %s", len(entries), ShareGPTFile)
	}
}

func TestFetchFailures(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/short":
			w.Header().Set("Content-Length", "1000")
			w.Write([]byte(`[{"conver`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	for _, tc := range []struct{ name, url, msg string }{
		{"not found", srv.URL + "/missing", "404 Not Found"},
		{"short body", srv.URL + "/short", "unexpected EOF"},
		{"bad url", "http://[::1", "download"},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "sub", ShareGPTFile)
		err := Fetch(context.Background(), srv.Client(), tc.url, path, false)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: error %v, want it to mention %q", tc.name, err, tc.msg)
		}
		entries, _ := os.ReadDir(filepath.Dir(path))
		if len(entries) != 0 {
			t.Errorf("%s: left %d file(s) in the cache", tc.name, len(entries))
		}
	}

	// Offline with an empty cache: a clear error that says where to put it.
	path := filepath.Join(t.TempDir(), ShareGPTFile)
	err := Fetch(context.Background(), nil, ShareGPTURL, path, true)
	if !errors.Is(err, ErrNotCached) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), ShareGPTURL) {
		t.Errorf("offline miss: %v", err)
	}
	_, err = LoadShareGPT(context.Background(), ShareGPTOptions{CacheDir: filepath.Dir(path), Offline: true, Tokenizer: builtin(t), Models: []string{"m"}})
	if !errors.Is(err, ErrNotCached) {
		t.Errorf("LoadShareGPT offline miss: %v", err)
	}

	// A cancelled context stops the download.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Fetch(ctx, srv.Client(), srv.URL+"/short", filepath.Join(t.TempDir(), "f"), false); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestDefaultCacheDir(t *testing.T) {
	if got, want := DefaultCacheDir("", "/home/u"), filepath.FromSlash("/home/u/.cache/aiperf-go/datasets"); got != want {
		t.Errorf("DefaultCacheDir = %q, want %q", got, want)
	}
	if got, want := DefaultCacheDir("/xdg", "/home/u"), filepath.FromSlash("/xdg/aiperf-go/datasets"); got != want {
		t.Errorf("DefaultCacheDir = %q, want %q", got, want)
	}
}

// wordTok is a fast fake: one token per whitespace-separated word.
type wordTok struct{}

func (wordTok) Name() string            { return "words" }
func (wordTok) Encode(s string) []int   { return make([]int, len(strings.Fields(s))) }
func (wordTok) Decode(ids []int) string { return strings.Repeat("w ", len(ids)) }
func (wordTok) Count(s string) int      { return len(strings.Fields(s)) }

func FuzzLoadShareGPT(f *testing.F) {
	seed, _ := json.Marshal(shareGPTEntries()[:12])
	for _, s := range []string{string(seed), `[]`, `[1,"x",null,{}]`, `[{"conversations":[{"from":"human","value":"a b c d"},{"from":"gpt","value":"e f g h"}]}]`, `{`, `[{"conversations":[`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o := &ShareGPTOptions{Tokenizer: wordTok{}, Models: []string{"m"}}
		l := &shareGPTLoader{o: o, picker: newModelPicker(o)}
		if err := l.read(context.Background(), bytes.NewReader(data)); err != nil {
			return
		}
		stats := l.stats
		if stats.Entries != stats.Kept+stats.NoPairs+stats.Filtered || stats.Kept != len(l.convs) {
			t.Fatalf("stats %+v for %d conversations", stats, len(l.convs))
		}
		for _, c := range l.convs {
			if len(c.Turns) == 0 {
				t.Fatal("conversation without turns")
			}
			for _, turn := range c.Turns {
				in, out := turn.InputTokens, turn.MaxTokens
				if in < 4 || in > 1024 || out < 4 || in+out > 2048 || in != (wordTok{}).Count(turn.Texts[0]) {
					t.Fatalf("turn (%d, %d) passed the filter", in, out)
				}
			}
		}
	})
}
