package dataset

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func builtinIndex(t testing.TB) *spanIndex {
	t.Helper()
	c := builtinCorpus(t)
	start := time.Now()
	ix := spanIndexFor(c)
	if ix == nil {
		t.Fatal("no span index for the builtin corpus")
	}
	t.Logf("index: %d split points, first use %v", len(ix.safe), time.Since(start))
	return ix
}

// TestSpanIndexPromptMatchesFixup checks the fast path against the id-based
// fix-up, which re-encodes every text: same text, same count, for windows
// of every size up to 5,000 tokens, including windows that wrap.
func TestSpanIndexPromptMatchesFixup(t *testing.T) {
	ix := builtinIndex(t)
	c := ix.c
	rng := rand.New(rand.NewPCG(1, 2))
	n := 400
	if raceEnabled {
		n = 40
	}
	fallbacks := 0
	for i := range n {
		start := rng.IntN(c.Len())
		if i%10 == 0 {
			start = c.Len() - 1 - rng.IntN(3000) // near the end: wraps
		}
		length := 1 + rng.IntN(5000)
		if i%4 == 0 {
			length = 1 + rng.IntN(40)
		}
		wantText, wantTokens := c.promptAt(start, length)
		spans, tokens, ok := ix.prompt(nil, 0, start, length)
		if !ok {
			fallbacks++
			continue
		}
		if got := ix.str(spans); got != wantText || tokens != wantTokens {
			t.Fatalf("start %d, n %d: fast %d tokens %q…, fix-up %d tokens %q…", start, length,
				tokens, head(got), wantTokens, head(wantText))
		}
	}
	if fallbacks > n/50 {
		t.Errorf("%d of %d windows fell back to the id-based path", fallbacks, n)
	}
}

func head(s string) string { return s[:min(len(s), 60)] }

// TestSpanIndexPrefixedMatchesFixup does the same for token-level prefix
// joins.
func TestSpanIndexPrefixedMatchesFixup(t *testing.T) {
	ix := builtinIndex(t)
	c := ix.c
	rng := rand.New(rand.NewPCG(3, 4))
	n := 150
	if raceEnabled {
		n = 15
	}
	for range n {
		pStart, pLen := rng.IntN(c.Len()), 1+rng.IntN(300)
		pSpans, pTokens, ok := ix.prompt(nil, 0, pStart, pLen)
		if !ok {
			continue
		}
		start, length := rng.IntN(c.Len()), rng.IntN(2000)
		pText, _ := c.promptAt(pStart, pLen)
		wantText, wantTokens := c.promptWithPrefix(c.tok.Encode(pText), start, length)
		spans, tokens, ok := ix.prompt(pSpans, pTokens, start, length)
		if !ok {
			continue
		}
		if got := ix.str(spans); got != wantText || tokens != wantTokens {
			t.Fatalf("prefix (%d,%d) body (%d,%d): fast %d tokens, fix-up %d tokens", pStart, pLen, start, length, tokens, wantTokens)
		}
	}
}

// TestSpanIndexCountAndCut checks count and cut on spans that start and end
// at arbitrary bytes, against encoding the joined text.
func TestSpanIndexCountAndCut(t *testing.T) {
	ix := builtinIndex(t)
	tok := ix.c.tok
	rng := rand.New(rand.NewPCG(5, 6))
	n := 300
	if raceEnabled {
		n = 30
	}
	for range n {
		var spans []span
		for range 1 + rng.IntN(3) {
			x := rng.IntN(len(ix.text) - 5000)
			spans = append(spans, span{int32(x), int32(x + rng.IntN(4000))})
		}
		text := ix.str(spans)
		ids := tok.Encode(text)
		if got := ix.count(spans); got != len(ids) {
			t.Fatalf("count %d, encode gives %d, for spans %v", got, len(ids), spans)
		}
		if len(ids) < 2 {
			continue
		}
		k := rng.IntN(len(ids)-1) + 1
		cut, ok := ix.cut(spans, k)
		if !ok {
			t.Fatalf("cut %v at %d: not ok", spans, k)
		}
		if got, want := ix.str(cut), tok.Decode(ids[:k]); got != want {
			t.Fatalf("cut %v at %d: %q…, want %q…", spans, k, head(got), head(want))
		}
	}
}

// TestSpanIndexJoinedCount checks countJoined through the index against
// counting the joined text.
func TestSpanIndexJoinedCount(t *testing.T) {
	ix := builtinIndex(t)
	m := &textMaker{c: ix.c, ix: ix}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 20 {
		var cuts []cutText
		var parts []string
		for range 2 + rng.IntN(3) {
			ct := m.prompt(rng.IntN(ix.c.Len()), 1+rng.IntN(300))
			cuts = append(cuts, ct)
			parts = append(parts, ct.text)
		}
		if got, want := m.countJoined(cuts, ix.c.tok), ix.c.tok.Count(strings.Join(parts, " ")); got != want {
			t.Fatalf("countJoined %d, want %d", got, want)
		}
	}
}
