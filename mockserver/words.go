package mockserver

import "strings"

// wordList holds common English words, each exactly one o200k_base token
// when preceded by a space. The pre-tokenizer splits text before every
// " word", so the concatenation of N of them is exactly N tokens, which lets
// a client count generated tokens exactly (words_test.go checks this).
// Its length is a power of two so that indexing can mask instead of divide.
var wordList = strings.Fields(`
the of and to in is it that was for on are as with his they at be this
from have or by one had not but what all were when we there can an your
which their said if do will each about how up out them then she many some
so these would other into has more her two like him see time could no make
than first been its who now people my made over did down only way find use
may water long little very after words called just where most know get
through back much go good new write our me man too any day same right look
think also around another came come work three word must because does part
even place well such here take why things help put years different away
again off went old number great tell men say small every found still
between name should home big give air line set own under read last never
us left end along while might next sound below saw something thought both
few those always looked show large often together asked house world going
want school important until form food keep children feet land side without
boy once animals life enough took sometimes four head above kind began
almost live page got earth need far hand high year mother light parts
country father let night following picture being study second eyes soon
times story boys since white days ever paper hard near sentence better
best across during today others
`)

// words is the generated text: wordList, each with a leading space, repeated
// twice so that any run of up to len(wordList) consecutive words starting
// anywhere in the cycle is one substring.
var words = newWordText(wordList)

type wordText struct {
	text string // all words, twice, each with a leading space
	offs []int  // offs[i] is where word i (mod len) starts; offs[2n] = len(text)
	n    int    // number of distinct words, a power of two
}

func newWordText(list []string) wordText {
	n := len(list)
	if n == 0 || n&(n-1) != 0 {
		panic("mockserver: word list length must be a power of two")
	}
	var b strings.Builder
	offs := make([]int, 0, 2*n+1)
	for range 2 {
		for _, w := range list {
			offs = append(offs, b.Len())
			b.WriteByte(' ')
			b.WriteString(w)
		}
	}
	offs = append(offs, b.Len())
	return wordText{text: b.String(), offs: offs, n: n}
}

// appendTokens appends the text of tokens [from, from+count) of the endless
// word cycle to dst. The text never needs JSON escaping.
func (w *wordText) appendTokens(dst []byte, from, count int) []byte {
	for count > 0 {
		i := from & (w.n - 1)
		k := min(count, w.n)
		dst = append(dst, w.text[w.offs[i]:w.offs[i+k]]...)
		from += k
		count -= k
	}
	return dst
}
