package tokenizer

import (
	"unicode"
	"unicode/utf8"
)

// Unicode character classes of the o200k pattern. The two letter classes
// overlap (Lm, Lo and marks are in both), which nextPieceUnicode's
// backtracking accounts for; \s is Unicode White_Space, which is what both
// tiktoken and regexp2 match.
var (
	upperish = []*unicode.RangeTable{unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M}
	lowerish = []*unicode.RangeTable{unicode.Ll, unicode.Lm, unicode.Lo, unicode.M}
)

func isUpperish(r rune) bool { return unicode.In(r, upperish...) }
func isLowerish(r rune) bool { return unicode.In(r, lowerish...) }
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }

// isPunctRune is [^\s\p{L}\p{N}] (marks included).
func isPunctRune(r rune) bool { return !unicode.IsSpace(r) && !isWordRune(r) }

// isPrefixRune is [^\r\n\p{L}\p{N}], the optional character before a word.
func isPrefixRune(r rune) bool { return r != '\r' && r != '\n' && !isWordRune(r) }

// runeAt decodes the rune at s[i:] (s is valid UTF-8).
func runeAt(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// runOf returns the end of the run of runes in class from i.
func runOf(s string, i int, class func(rune) bool) int {
	for i < len(s) {
		r, n := runeAt(s, i)
		if !class(r) {
			break
		}
		i += n
	}
	return i
}

// nextPieceUnicode is nextPiece for any valid UTF-8 text: it returns the
// end of the o200k pre-tokenizer match that starts at i, taking the
// pattern's alternatives in order as a backtracking matcher does.
func nextPieceUnicode(s string, i int) int {
	r, size := runeAt(s, i)
	// P? tries with the prefix first, then without it.
	starts := []int{i}
	if isPrefixRune(r) {
		starts = []int{i + size, i}
	}
	for _, j := range starts { // [P]?[U]*[L]+(C)?
		if end, ok := upperThenLower(s, j); ok {
			return end + contractionAt(s, end)
		}
	}
	for _, j := range starts { // [P]?[U]+[L]*(C)?
		if k := runOf(s, j, isUpperish); k > j {
			end := runOf(s, k, isLowerish)
			return end + contractionAt(s, end)
		}
	}
	if unicode.IsNumber(r) { // \p{N}{1,3}
		end := i
		for range 3 {
			if end == len(s) {
				break
			}
			r, n := runeAt(s, end)
			if !unicode.IsNumber(r) {
				break
			}
			end += n
		}
		return end
	}
	j := i // " ?[^\s\p{L}\p{N}]+[\r\n/]*"
	if r == ' ' && i+1 < len(s) {
		j = i + 1
	}
	if k := runOf(s, j, isPunctRune); k > j {
		return runOf(s, k, func(r rune) bool { return r == '\r' || r == '\n' || r == '/' })
	}
	// r is whitespace.
	k := runOf(s, i, unicode.IsSpace)
	for m := k - 1; m >= i; m-- { // \s*[\r\n]+: after the run's last break
		if s[m] == '\r' || s[m] == '\n' {
			return m + 1
		}
	}
	if k == len(s) { // \s+(?!\S)
		return k
	}
	_, last := utf8.DecodeLastRuneInString(s[i:k])
	if k-last > i {
		return k - last
	}
	return k // \s+
}

// upperThenLower matches [U]*[L]+ at j with backtracking: the U run as long
// as a lower-ish rune follows it, else given back to its last lower-ish
// rune (Lm, Lo and marks are both), from which the L run goes on.
func upperThenLower(s string, j int) (int, bool) {
	k := runOf(s, j, isUpperish)
	if k < len(s) {
		if r, _ := runeAt(s, k); isLowerish(r) {
			return runOf(s, k, isLowerish), true
		}
	}
	for m := k; m > j; {
		r, n := utf8.DecodeLastRuneInString(s[j:m])
		m -= n
		if isLowerish(r) {
			return runOf(s, m, isLowerish), true
		}
	}
	return 0, false
}

// contractionAt returns the length of an optional
// (?i:'s|'t|'re|'ve|'m|'ll|'d) at s[j:]; case folding makes ſ (U+017F) an s.
func contractionAt(s string, j int) int {
	if j+1 >= len(s) || s[j] != '\'' {
		return 0
	}
	if n := contraction(s, j); n > 0 {
		return n
	}
	if r, n := runeAt(s, j+1); r == 'ſ' {
		return 1 + n
	}
	return 0
}
