package dataset

import (
	"strings"

	"github.com/aiperf-go/aiperf/tokenizer"
)

// textMaker cuts the prompt texts of one Synthetic call: through the span
// index when it has one, else (and wherever the index cannot follow) through
// the id-based fix-up. Both paths give the same texts and counts. A
// textMaker is safe for concurrent use.
type textMaker struct {
	c  *Corpus
	ix *spanIndex // nil: id-based only
}

// cutText is one prompt text and what is needed to count or extend it.
type cutText struct {
	text   string
	tokens int    // the corpus tokenizer's count of text
	spans  []span // where text lies in ix.text, when indexed
	// indexed reports that spans is set; ids, on the id-based path, holds
	// Encode(text) for prefix pool entries.
	indexed bool
	ids     []int
}

// prompt returns a text of n tokens cut at corpus token start (promptAt).
func (m *textMaker) prompt(start, n int) cutText {
	if m.ix != nil {
		if spans, tokens, ok := m.ix.prompt(nil, 0, start, n); ok {
			return cutText{text: m.ix.str(spans), tokens: tokens, spans: spans, indexed: true}
		}
	}
	text, tokens := m.c.promptAt(start, n)
	return cutText{text: text, tokens: tokens}
}

// prefixEntry is prompt for a prefix pool entry: on the id-based path it
// keeps the entry's ids for prefixed.
func (m *textMaker) prefixEntry(start, n int) cutText {
	t := m.prompt(start, n)
	if !t.indexed {
		t.ids = m.c.tok.Encode(t.text)
	}
	return t
}

// prefixed returns prefix followed at token level by n tokens cut at start,
// fixed up to prefix.tokens+n tokens (promptWithPrefix).
func (m *textMaker) prefixed(prefix *cutText, start, n int) cutText {
	if m.ix != nil && prefix.indexed {
		if spans, tokens, ok := m.ix.prompt(prefix.spans, prefix.tokens, start, n); ok {
			return cutText{text: m.ix.str(spans), tokens: tokens, spans: spans, indexed: true}
		}
	}
	ids := prefix.ids
	if ids == nil {
		ids = m.c.tok.Encode(prefix.text)
	}
	text, tokens := m.c.promptWithPrefix(ids, start, n)
	return cutText{text: text, tokens: tokens}
}

// countJoined returns tok's count of the texts joined with " ", as AIPerf
// counts a turn's input. A single text counted by the corpus tokenizer needs
// no second count, and indexed texts are counted through the index. Names,
// not values, are compared: a fake's dynamic type may not be comparable.
func (m *textMaker) countJoined(texts []cutText, tok tokenizer.Tokenizer) int {
	if tok.Name() == m.c.tok.Name() {
		if len(texts) == 1 {
			return texts[0].tokens
		}
		if m.ix != nil && allIndexed(texts) {
			var spans []span
			for i, t := range texts {
				if i > 0 {
					spans = appendSpans(spans, m.ix.space)
				}
				spans = appendSpans(spans, t.spans...)
			}
			return m.ix.count(spans)
		}
	}
	parts := make([]string, len(texts))
	for i, t := range texts {
		parts[i] = t.text
	}
	return tok.Count(strings.Join(parts, " "))
}

func allIndexed(texts []cutText) bool {
	for _, t := range texts {
		if !t.indexed {
			return false
		}
	}
	return true
}
