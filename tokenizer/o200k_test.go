package tokenizer

import (
	"bytes"
	"flag"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	tiktoken "github.com/tiktoken-go/tokenizer"
)

var updateVocab = flag.Bool("update", false, "rewrite o200k_base.vocab from tiktoken-go's o200k_base table")

// tiktokenO200k returns tiktoken-go's o200k_base codec, the independent
// implementation the compact one is checked against.
func tiktokenO200k(t testing.TB) tiktoken.Codec {
	t.Helper()
	c, err := tiktoken.Get(tiktoken.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestO200kVocabFile: the embedded vocabulary holds, for every rank, the
// bytes tiktoken-go's o200k_base table has for that id (-update rewrites
// it from that table).
func TestO200kVocabFile(t *testing.T) {
	c := tiktokenO200k(t)
	var lengths, data bytes.Buffer
	for id := range o200kMergeable {
		tok, err := c.Decode([]uint{uint(id)})
		if err != nil || tok == "" || len(tok) > 255 {
			t.Fatalf("id %d: %q, %v", id, tok, err)
		}
		lengths.WriteByte(byte(len(tok)))
		data.WriteString(tok)
	}
	want := append(lengths.Bytes(), data.Bytes()...)
	if *updateVocab {
		if err := os.WriteFile("o200k_base.vocab", want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if o200kVocabFile != string(want) {
		t.Fatal("o200k_base.vocab differs from tiktoken-go's table; run go test ./tokenizer -run O200kVocabFile -update")
	}
}

// ordinaryIDs encodes text with tiktoken-go in errors="replace" mode.
func ordinaryIDs(t testing.TB, c tiktoken.Codec, text string) []int {
	t.Helper()
	ids, _, err := c.Encode(text)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = int(id)
	}
	return out
}

func replacingTiktoken(t testing.TB) tiktoken.Codec {
	t.Helper()
	c := tiktokenO200k(t)
	c.SetErrorMode(tiktoken.ErrorModeReplace) // the codec is shared: set once, same value
	return c
}

func ourOrdinaryIDs(b *bpe, text string) []int {
	out := []int{}
	b.encode(replaceInvalid(text), func(r int) { out = append(out, r) })
	return out
}

// TestO200kCorpusMatchesTiktoken: the whole embedded Shakespeare corpus,
// and runs of one character long enough for the heap merge, encode to
// tiktoken-go's ids.
func TestO200kCorpusMatchesTiktoken(t *testing.T) {
	c := replacingTiktoken(t)
	b, err := loadO200k()
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{corpusForTest(t), strings.Repeat(" ", 5000), strings.Repeat("a", 3000),
		strings.Repeat("ab", 1000) + "!", strings.Repeat("=-", 700), strings.Repeat("\n", 300) + "x"}
	for _, text := range texts {
		got, want := ourOrdinaryIDs(b, text), ordinaryIDs(t, c, text)
		if !slices.Equal(got, want) {
			i := 0
			for i < min(len(got), len(want)) && got[i] == want[i] {
				i++
			}
			t.Errorf("%d-byte text: %d ids, tiktoken-go %d; first difference at id %d", len(text), len(got), len(want), i)
		}
	}
}

// FuzzO200kMatchesTiktoken: any text, valid UTF-8 or not, and the same
// text mapped onto the plain-ASCII split's alphabet, encode to tiktoken-go's
// ids, and any ids decode to its text.
func FuzzO200kMatchesTiktoken(f *testing.F) {
	for _, s := range []string{"hello world", "naïve café", "\xe2\x82", "a\xffb\xf0\x9f", "  \n\n\t x", "1234567 ok's", "🦙🦙",
		"HELLO world's", "I'm we'RE they'll", "foo\r\n\tbar  ", "x+=y//z/\n", " !!!\n/", "  \n  x", "..hello", "ABCdef'Ll",
		"\n  \n", " \r\n \n\n x", strings.Repeat("-", 300), strings.Repeat("ab", 100)} {
		f.Add(s)
	}
	c := replacingTiktoken(f)
	b, err := loadO200k()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, text := range []string{text, toASCII(text)} {
			want := ordinaryIDs(t, c, text)
			if got := ourOrdinaryIDs(b, text); !slices.Equal(got, want) {
				t.Fatalf("%q: %v, tiktoken-go %v", text, got, want)
			}
		}
		want := ordinaryIDs(t, c, text)
		// Decoding a window of the ids may cut a character in two.
		ids := want[len(want)/3:]
		in := make([]uint, len(ids))
		for i, id := range ids {
			in[i] = uint(id)
		}
		wantText, err := c.Decode(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := replaceInvalid(string(b.decode(nil, ids))); got != wantText {
			t.Fatalf("decode %v: %q, tiktoken-go %q", ids, got, wantText)
		}
	})
}

// corpusForTest reads the synthetic-prompt corpus (package dataset embeds
// it; this package cannot import dataset).
func corpusForTest(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("../dataset/corpus/shakespeare.txt")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// asciiAlphabet is weighted towards the characters whose handling differs
// between the pattern's alternatives.
const asciiAlphabet = "aeZQ09 '  \t\n\r\n/.-,!sStTmMdDlLrRvVeE"

// toASCII maps s onto asciiAlphabet, so that fuzzed bytes exercise the
// plain-ASCII split rather than the regexp.
func toASCII(s string) string {
	b := []byte(s)
	for i := range b {
		b[i] = asciiAlphabet[int(b[i])%len(asciiAlphabet)]
	}
	return string(b)
}

// TestO200kRandomASCII compares the plain-ASCII split's ids with
// tiktoken-go's on random strings drawn from asciiAlphabet and from all
// printable ASCII.
func TestO200kRandomASCII(t *testing.T) {
	c := replacingTiktoken(t)
	b, err := loadO200k()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var printable []byte
	for c := byte(0x20); c < 0x7f; c++ {
		printable = append(printable, c)
	}
	printable = append(printable, '\t', '\n', '\r')
	for i := range 3000 {
		alphabet := asciiAlphabet
		if i%2 == 1 {
			alphabet = string(printable)
		}
		s := make([]byte, 1+rng.IntN(40))
		for j := range s {
			s[j] = alphabet[rng.IntN(len(alphabet))]
		}
		if !plainASCII(string(s)) {
			t.Fatalf("%q is not plain ASCII", s)
		}
		if got, want := ourOrdinaryIDs(b, string(s)), ordinaryIDs(t, c, string(s)); !slices.Equal(got, want) {
			t.Fatalf("%q: %v, tiktoken-go %v", s, got, want)
		}
	}
}
