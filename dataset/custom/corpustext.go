package custom

import (
	"strings"
	"unicode/utf8"
)

// corpusText is the decoded rotated corpus with each token's byte offset, so
// a window of ids decodes to a substring. It is valid for a tokenizer whose
// decoding concatenates the pieces of the single ids, when every piece is
// valid UTF-8 on its own (byte-level BPE splits characters across ids).
type corpusText struct {
	text string
	off  []int32 // off[k]: offset of id k; off[len(ids)] = len(text)
	sep  string
}

// newCorpusText decodes ids piece by piece; it returns nil when a piece is
// not valid UTF-8 by itself, so decoding must see whole sequences.
func newCorpusText(ids []int, decode func([]int) string, sep int, hasSep bool) *corpusText {
	pieces := make(map[int]string)
	piece := func(id int) (string, bool) {
		s, ok := pieces[id]
		if !ok {
			s = decode([]int{id})
			pieces[id] = s
		}
		return s, !strings.ContainsRune(s, utf8.RuneError)
	}
	c := &corpusText{off: make([]int32, len(ids)+1)}
	if hasSep {
		s, ok := piece(sep)
		if !ok {
			return nil
		}
		c.sep = s
	}
	var b strings.Builder
	for k, id := range ids {
		s, ok := piece(id)
		if !ok {
			return nil
		}
		c.off[k] = int32(b.Len())
		b.WriteString(s)
	}
	c.off[len(ids)] = int32(b.Len())
	c.text = b.String()
	return c
}

// each calls f with the consecutive substrings that make up refs' text.
func (c *corpusText) each(refs []blockRef, f func(string)) {
	n := len(c.off) - 1
	for _, r := range refs {
		f(c.sep)
		start, left := int(r.start), int(r.n)
		for left > 0 {
			end := min(start+left, n)
			f(c.text[c.off[start]:c.off[end]])
			left -= end - start
			start = 0
		}
	}
}

// size returns the byte length of refs' text.
func (c *corpusText) size(refs []blockRef) int {
	n := 0
	c.each(refs, func(s string) { n += len(s) })
	return n
}

// join returns the text of refs, whose byte length is size.
func (c *corpusText) join(refs []blockRef, size int) string {
	var b strings.Builder
	b.Grow(size)
	c.each(refs, func(s string) { b.WriteString(s) })
	return b.String()
}
