package dataset

import (
	"strings"
	"sync"
)

// wordTokenizer is a fake with one token per whitespace-separated word;
// Decode joins words with single spaces, so its counts are exact by
// construction.
type wordTokenizer struct {
	name  string
	mu    sync.Mutex
	ids   map[string]int
	words []string
}

func newWordTokenizer(name string) *wordTokenizer {
	return &wordTokenizer{name: name, ids: map[string]int{}}
}

func (w *wordTokenizer) Name() string { return w.name }

func (w *wordTokenizer) Encode(text string) []int {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []int
	for _, f := range strings.Fields(text) {
		id, ok := w.ids[f]
		if !ok {
			id = len(w.words)
			w.ids[f] = id
			w.words = append(w.words, f)
		}
		out = append(out, id)
	}
	return out
}

func (w *wordTokenizer) Decode(ids []int) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = w.words[id]
	}
	return strings.Join(parts, " ")
}

func (w *wordTokenizer) Count(text string) int { return len(strings.Fields(text)) }

// funcTokenizer is a fake whose behaviour is set by function fields; unset
// ones do nothing useful.
type funcTokenizer struct {
	name   string
	encode func(string) []int
	decode func([]int) string
}

func (f *funcTokenizer) Name() string { return f.name }

func (f *funcTokenizer) Encode(text string) []int { return f.encode(text) }

func (f *funcTokenizer) Decode(ids []int) string {
	if f.decode == nil {
		return ""
	}
	return f.decode(ids)
}

func (f *funcTokenizer) Count(text string) int { return len(f.encode(text)) }
