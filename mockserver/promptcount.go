package mockserver

import (
	"fmt"
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// o200kCounter counts o200k_base tokens exactly as tiktoken-go's Count does.
//
// tiktoken-go splits text with a backtracking regexp (regexp2) that runs at
// ~10 MB/s, so a 3 KB prompt would cost ~300 µs and cap the server at a few
// thousand requests/s. For text made only of printable ASCII, tabs and line
// breaks (most benchmark prompts) the counter runs its own scanner, which
// reproduces the o200k pre-tokenizer pattern for that alphabet, then the same
// byte-pair merge over the same ranks; any other text goes to tiktoken-go.
// FuzzO200kCount checks the two agree.
type o200kCounter struct {
	codec tokenizer.Codec
	ranks map[string]uint32 // token bytes → rank (= token id)
}

// maxFastPiece bounds the pieces merged here; the scan merge is quadratic,
// and longer pieces (long runs of punctuation or spaces) are rare, so the
// whole text then goes to tiktoken-go instead.
const maxFastPiece = 128

var (
	o200kOnce sync.Once
	o200k     *o200kCounter
	o200kErr  error
)

// loadO200k returns the process-wide counter, building its rank table on
// first use (~50 ms, ~15 MB).
func loadO200k() (*o200kCounter, error) {
	o200kOnce.Do(func() {
		codec, err := tokenizer.Get(tokenizer.O200kBase)
		if err != nil {
			o200kErr = fmt.Errorf("load o200k_base: %w", err)
			return
		}
		ranks := make(map[string]uint32, 200_000)
		ids := make([]uint, 1)
		// o200k_base's ordinary tokens are ids 0..199997; Decode reports
		// the gaps and special tokens as errors, which are skipped.
		for id := range 200_000 {
			ids[0] = uint(id)
			if s, err := codec.Decode(ids); err == nil && s != "" {
				ranks[s] = uint32(id)
			}
		}
		o200k = &o200kCounter{codec: codec, ranks: ranks}
	})
	return o200k, o200kErr
}

// Count returns the number of o200k_base tokens in text.
func (c *o200kCounter) Count(text string) int {
	if n, ok := c.countFast(text); ok {
		return n
	}
	n, err := c.codec.Count(text)
	if err != nil {
		// Only ErrorModeStrict reports errors, and it is not used.
		return len(text) / 4
	}
	return n
}

// countFast counts text if every byte is printable ASCII, tab, CR or LF and
// no piece is longer than maxFastPiece; ok is false otherwise.
func (c *o200kCounter) countFast(s string) (n int, ok bool) {
	for i := 0; i < len(s); i++ {
		if b := s[i]; (b < 0x20 || b > 0x7e) && b != '\t' && b != '\n' && b != '\r' {
			return 0, false
		}
	}
	for i := 0; i < len(s); {
		end := nextPiece(s, i)
		piece := s[i:end]
		if _, ok := c.ranks[piece]; ok {
			n++
		} else if len(piece) > maxFastPiece {
			return 0, false
		} else {
			n += c.mergeCount(piece)
		}
		i = end
	}
	return n, true
}

// ASCII character classes of the o200k pattern, restricted to the bytes
// countFast admits.
func isUpper(b byte) bool  { return b >= 'A' && b <= 'Z' }
func isLower(b byte) bool  { return b >= 'a' && b <= 'z' }
func isLetter(b byte) bool { return isUpper(b) || isLower(b) }
func isDigit(b byte) bool  { return b >= '0' && b <= '9' }
func isSpace(b byte) bool  { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }
func isBreak(b byte) bool  { return b == '\n' || b == '\r' }

// isPunct is [^\s\p{L}\p{N}].
func isPunct(b byte) bool { return !isSpace(b) && !isLetter(b) && !isDigit(b) }

// isPrefix is [^\r\n\p{L}\p{N}], the optional character before a word.
func isPrefix(b byte) bool { return !isBreak(b) && !isLetter(b) && !isDigit(b) }

// nextPiece returns the end of the pre-tokenizer match that starts at i,
// following the o200k pattern's alternatives in order (first match wins):
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}…]*[\p{Ll}…]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	[^\r\n\p{L}\p{N}]?[\p{Lu}…]+[\p{Ll}…]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	\p{N}{1,3}
//	 ?[^\s\p{L}\p{N}]+[\r\n/]*
//	\s*[\r\n]+
//	\s+(?!\S)
//	\s+
func nextPiece(s string, i int) int {
	n := len(s)
	c := s[i]
	switch {
	case isLetter(c) || (isPrefix(c) && i+1 < n && isLetter(s[i+1])):
		j := i
		if !isLetter(c) {
			j++
		}
		// Upper run then lower run; with no lower letter the second
		// alternative takes the upper run alone. Classes are disjoint in
		// ASCII, so backtracking never finds a different split.
		for j < n && isUpper(s[j]) {
			j++
		}
		for j < n && isLower(s[j]) {
			j++
		}
		return j + contraction(s, j)
	case isDigit(c):
		j := i
		for j < n && j < i+3 && isDigit(s[j]) {
			j++
		}
		return j
	case isPunct(c) || (c == ' ' && i+1 < n && isPunct(s[i+1])):
		j := i
		if c == ' ' {
			j++
		}
		for j < n && isPunct(s[j]) {
			j++
		}
		for j < n && (isBreak(s[j]) || s[j] == '/') {
			j++
		}
		return j
	}
	// c is whitespace not starting a word or punctuation.
	j := i
	for j < n && isSpace(s[j]) {
		j++
	}
	// \s*[\r\n]+: a backtracking engine would end the match after the
	// run's last break, but tiktoken-go's generated matcher backtracks \s*
	// straight to the run's first break (IndexOfAny, not LastIndexOfAny)
	// and takes the breaks from there; the client counts with tiktoken-go,
	// so this matches it.
	for k := i; k < j; k++ {
		if isBreak(s[k]) {
			for k < j && isBreak(s[k]) {
				k++
			}
			return k
		}
	}
	// \s+(?!\S): the whole run at the end of text, else all but its last
	// character when that leaves at least one.
	if j == n {
		return j
	}
	if j-i >= 2 {
		return j - 1
	}
	return j // \s+
}

// contraction returns the length of an optional (?i:'s|'t|'re|'ve|'m|'ll|'d)
// at s[j:].
func contraction(s string, j int) int {
	if j+1 >= len(s) || s[j] != '\'' {
		return 0
	}
	switch s[j+1] | 0x20 {
	case 's', 't', 'm', 'd':
		return 2
	case 'r', 'v':
		if j+2 < len(s) && s[j+2]|0x20 == 'e' {
			return 3
		}
	case 'l':
		if j+2 < len(s) && s[j+2]|0x20 == 'l' {
			return 3
		}
	}
	return 0
}

// mergeCount returns the number of tokens byte-pair merging gives piece:
// repeatedly merge the adjacent pair whose concatenation has the lowest
// rank (leftmost on ties) until no pair is a token, as tiktoken does.
func (c *o200kCounter) mergeCount(piece string) int {
	var buf [maxFastPiece + 1]int
	bounds := buf[:0]
	for i := range len(piece) + 1 {
		bounds = append(bounds, i)
	}
	for len(bounds) > 2 {
		best, at := uint32(1<<32-1), -1
		for k := 0; k+2 < len(bounds); k++ {
			if r, ok := c.ranks[piece[bounds[k]:bounds[k+2]]]; ok && r < best {
				best, at = r, k
			}
		}
		if at < 0 {
			break
		}
		bounds = append(bounds[:at+1], bounds[at+2:]...)
	}
	return len(bounds) - 1
}
