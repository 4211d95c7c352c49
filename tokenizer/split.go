package tokenizer

// splitO200k calls piece with the bounds of each piece of the o200k
// pre-tokenizer's split of text (valid UTF-8), in order; each piece is then
// byte-pair encoded on its own. The split is made by hand, as tiktoken's
// backtracking matcher makes it with o200k_base's pattern (its alternatives
// are listed at nextPiece): nextPiece works on bytes and serves stretches
// of plain ASCII (printable ASCII, DEL, tabs and line breaks: most prompts
// and replies), nextPieceUnicode works on runes and serves the rest.
// FuzzO200k and TestO200kRandomText check the split against the pattern on
// Go's regexp package, and TestO200kGroundTruth against tiktoken itself.
// (regexp2, which tiktoken-go runs the pattern on, splits differently from
// tiktoken: it can end a whitespace run at its first line break, and skip
// DEL.)
func splitO200k(text string, piece func(start, end int)) {
	plainEnd := 0 // text[i:plainEnd] is plain ASCII
	for i := 0; i < len(text); {
		if plainEnd <= i {
			plainEnd = i + plainPrefix(text[i:])
		}
		end := -1
		if plainEnd > i {
			// nextPiece looks up to 3 bytes past a piece; where that would
			// cross into other text, the rune splitter decides.
			if e := nextPiece(text[:plainEnd], i); plainEnd == len(text) || e+3 < plainEnd {
				end = e
			}
		}
		if end < 0 {
			end = nextPieceUnicode(text, i)
		}
		piece(i, end)
		i = end
	}
}

// plainPrefix returns the length of the plain-ASCII prefix of s.
func plainPrefix(s string) int {
	for i := 0; i < len(s); i++ {
		if !plainByte(s[i]) {
			return i
		}
	}
	return len(s)
}

// plainByte reports whether b is printable ASCII, DEL, a tab, a carriage
// return or a line feed: the bytes nextPiece classifies.
func plainByte(b byte) bool { return b >= 0x20 && b <= 0x7f || b == '\t' || b == '\n' || b == '\r' }

// ASCII character classes of the o200k pattern, restricted to plain bytes.
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

// nextPiece returns the end of the pre-tokenizer match that starts at i in
// s, plain ASCII, following the o200k pattern's alternatives in order
// (first match wins):
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
	// \s*[\r\n]+: \s* takes the run, then gives back characters until a
	// break follows, so the match ends after the run's last break.
	for k := j - 1; k >= i; k-- {
		if isBreak(s[k]) {
			return k + 1
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
