package mockserver

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// asciiAlphabet is weighted towards the characters whose handling differs
// between the pattern's alternatives.
const asciiAlphabet = "aeZQ09 '  \t\n\r\n/.-,!sStTmMdDlLrRvVeE"

// toASCII maps s onto asciiAlphabet, so that fuzzed bytes exercise the fast
// path rather than the fallback.
func toASCII(s string) string {
	b := []byte(s)
	for i := range b {
		b[i] = asciiAlphabet[int(b[i])%len(asciiAlphabet)]
	}
	return string(b)
}

// FuzzO200kCount checks the fast counter against tiktoken-go itself, on
// the input and on the input mapped to the fast path's alphabet.
func FuzzO200kCount(f *testing.F) {
	for _, s := range []string{
		"", "hello", " Hello world", "HELLO world's", "I'm we'RE they'll", "a  b   c\n\n d",
		"foo\r\n\tbar  ", "1234567 89", "x+=y//z/\n", " !!!\n/", "  \n  x", "..hello", "ABCdef'Ll",
		"\n  \n", " \r\n \n\n x", "The quick brown fox jumps over the lazy dog.", "tab\tsep\tvalues\n",
		"e=mc^2; π", "naïve café", strings.Repeat("-", 300), strings.Repeat("ab", 100),
	} {
		f.Add(s)
	}
	c, err := loadO200k()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, s := range []string{s, toASCII(s)} {
			want, err := c.codec.Count(s)
			if err != nil {
				t.Skip()
			}
			if got := c.Count(s); got != want {
				t.Fatalf("Count(%q) = %d, tiktoken-go says %d", s, got, want)
			}
		}
	})
}

// TestO200kCountRandomASCII compares the fast path with tiktoken-go on
// random strings drawn from asciiAlphabet and from all printable ASCII.
func TestO200kCountRandomASCII(t *testing.T) {
	c, err := loadO200k()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var printable []byte
	for b := byte(0x20); b < 0x7f; b++ {
		printable = append(printable, b)
	}
	printable = append(printable, '\t', '\n', '\r')
	for i := range 3000 {
		alphabet := asciiAlphabet
		if i%2 == 1 {
			alphabet = string(printable)
		}
		b := make([]byte, 1+rng.IntN(40))
		for j := range b {
			b[j] = alphabet[rng.IntN(len(alphabet))]
		}
		s := string(b)
		if _, ok := c.countFast(s); !ok {
			t.Fatalf("countFast(%q) fell back", s)
		}
		want, _ := c.codec.Count(s)
		if got := c.Count(s); got != want {
			t.Fatalf("Count(%q) = %d, tiktoken-go says %d", s, got, want)
		}
	}
}

func BenchmarkO200kCount(b *testing.B) {
	c, err := loadO200k()
	if err != nil {
		b.Fatal(err)
	}
	s := strings.Repeat("The quick brown fox jumps over the lazy dog, said Alice to the Queen. ", 40)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		c.Count(s)
	}
}
