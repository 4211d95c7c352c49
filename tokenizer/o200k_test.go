package tokenizer

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
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

// The reference split: o200k_base's pattern on Go's regexp package, whose
// leftmost-first matching is what a backtracking matcher (tiktoken's)
// gives. RE2 lacks the pattern's one lookahead, \s+(?!\S), and its \s is
// ASCII, so the pattern is restated: ws is Unicode White_Space, and the
// lookahead alternative becomes two, a run at the end of the text, and a
// run followed by one more space that the match then leaves out (group 1).
// regexp2, which runs the pattern as written, differs from tiktoken (it
// ends a whitespace run at its first line break, and skips DEL where a
// match should start), so it cannot serve.
const ws = `\t-\r \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}`

var o200kRE2 = regexp.MustCompile(`^(?:` +
	`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
	`|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?` +
	`|\p{N}{1,3}` +
	`| ?[^` + ws + `\p{L}\p{N}]+[\r\n/]*` +
	`|[` + ws + `]*[\r\n]+` +
	`|[` + ws + `]+\z` +
	`|([` + ws + `]+)[` + ws + `]` +
	`|[` + ws + `]+)`)

// regexpSplit splits text as splitO200k does, with o200kRE2.
func regexpSplit(text string, piece func(start, end int)) {
	for i := 0; i < len(text); {
		m := o200kRE2.FindStringSubmatchIndex(text[i:])
		if m == nil {
			panic(fmt.Sprintf("no match in %q at byte %d", text, i))
		}
		end := m[1]
		if m[2] >= 0 {
			end = m[3]
		}
		piece(i, i+end)
		i += end
	}
}

// regexpIDs encodes text as ourOrdinaryIDs does, but split by the regexp.
func regexpIDs(b *bpe, text string) []int {
	out := []int{}
	text = replaceInvalid(text)
	regexpSplit(text, func(start, end int) {
		b.piece(text[start:end], func(r int) { out = append(out, r) })
	})
	return out
}

// TestO200kCorpusMatchesTiktoken: the whole embedded Shakespeare corpus,
// and runs of one character long enough for the heap merge, encode to
// tiktoken-go's ids (on this text its generated split agrees with
// tiktoken's; TestO200kGroundTruth compares with tiktoken itself).
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
		if i := firstDiff(got, want); i >= 0 {
			t.Errorf("%d-byte text: %d ids, tiktoken-go %d; first difference at %d", len(text), len(got), len(want), i)
		}
	}
}

// naiveMerge is byte-pair merging as tiktoken defines it, at its simplest:
// from single bytes, merge the adjacent pair with the lowest rank (the
// leftmost of equal ones) until no pair is a token.
func naiveMerge(b *bpe, piece string) []int {
	bounds := make([]int, len(piece)+1)
	for i := range bounds {
		bounds[i] = i
	}
	for {
		best, at := -1, -1
		for k := 0; k+2 < len(bounds); k++ {
			if r := b.rank(piece[bounds[k]:bounds[k+2]]); r >= 0 && (best < 0 || r < best) {
				best, at = r, k
			}
		}
		if at < 0 {
			break
		}
		bounds = append(bounds[:at+1], bounds[at+2:]...)
	}
	ids := make([]int, len(bounds)-1)
	for k := range ids {
		ids[k] = b.rank(piece[bounds[k]:bounds[k+1]])
	}
	return ids
}

// FuzzO200k: for any text (valid UTF-8 or not) and the same text mapped
// onto the plain-ASCII alphabet, the hand split gives the regexp's ids;
// the heap merge of the text as one piece gives the naive merge's; and
// decoding any window of ids gives tiktoken-go's text.
func FuzzO200k(f *testing.F) {
	for _, s := range []string{"hello world", "naïve café", "\xe2\x82", "a\xffb\xf0\x9f", "  \n\n\t x", "1234567 ok's", "🦙🦙",
		"HELLO world's", "I'm we'RE they'll", "foo\r\n\tbar  ", "x+=y//z/\n", " !!!\n/", "  \n  x", "..hello", "ABCdef'Ll",
		"\n  \n", " \r\n \n\n x", "a\x7fb \x7f\x7f", strings.Repeat("-", 300), strings.Repeat("ab", 100)} {
		f.Add(s)
	}
	c := replacingTiktoken(f)
	b, err := loadO200k()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, text := range []string{text, toASCII(text), toUnicode(text)} {
			if got, want := ourOrdinaryIDs(b, text), regexpIDs(b, text); !slices.Equal(got, want) {
				t.Fatalf("%q: %v, split by regexp %v", text, got, want)
			}
		}
		if piece := replaceInvalid(text); len(piece) <= 256 {
			var got []int
			b.merge(piece, func(r int) { got = append(got, r) })
			if want := naiveMerge(b, piece); piece != "" && !slices.Equal(got, want) {
				t.Fatalf("merge %q: %v, naive %v", piece, got, want)
			}
		}
		// Decoding a window of the ids may cut a character in two.
		ids := ourOrdinaryIDs(b, text)
		ids = ids[len(ids)/3:]
		in := make([]uint, len(ids))
		for i, id := range ids {
			in[i] = uint(id)
		}
		want, err := c.Decode(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := replaceInvalid(string(b.decode(nil, ids))); got != want {
			t.Fatalf("decode %v: %q, tiktoken-go %q", ids, got, want)
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
const asciiAlphabet = "aeZQ09 '  \t\n\r\n/.-,!sStTmMdDlLrRvVeE\x7f"

// toASCII maps s onto asciiAlphabet, so that fuzzed bytes exercise the
// plain-ASCII split rather than the regexp.
func toASCII(s string) string {
	b := []byte(s)
	for i := range b {
		b[i] = asciiAlphabet[int(b[i])%len(asciiAlphabet)]
	}
	return string(b)
}

// unicodeAlphabet has a rune of every class the pattern tells apart,
// including those in both letter classes (Lm, Lo, marks), titlecase,
// numbers other than digits, spaces beyond ASCII, and ſ (an s under (?i)).
var unicodeAlphabet = []rune("aZ'sStTlLdD \n\r\t/.!0É é ǅʰ中ا\u0301\u0903٣Ⅻ½\u00a0\u3000\u2028\u0085—«ſ🦙\x7f\v")

// toUnicode maps s onto unicodeAlphabet, so that fuzzed bytes exercise the
// rune splitter's backtracking.
func toUnicode(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		sb.WriteRune(unicodeAlphabet[int(s[i])%len(unicodeAlphabet)])
	}
	return sb.String()
}

// TestO200kRandomText compares the hand split's ids with the reference
// split's on random strings drawn from asciiAlphabet, from all of plain
// ASCII (the byte splitter) and from unicodeAlphabet (the rune splitter).
func TestO200kRandomText(t *testing.T) {
	b, err := loadO200k()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var plain []rune
	for c := rune(0x20); c <= 0x7f; c++ {
		plain = append(plain, c)
	}
	plain = append(plain, '\t', '\n', '\r')
	for i := range 6000 {
		alphabet := []rune(asciiAlphabet)
		switch i % 3 {
		case 1:
			alphabet = plain
		case 2:
			alphabet = unicodeAlphabet
		}
		s := make([]rune, 1+rng.IntN(40))
		for j := range s {
			s[j] = alphabet[rng.IntN(len(alphabet))]
		}
		text := string(s)
		if i%3 != 2 && plainPrefix(text) != len(text) {
			t.Fatalf("%q is not plain ASCII", text)
		}
		if got, want := ourOrdinaryIDs(b, text), regexpIDs(b, text); !slices.Equal(got, want) {
			t.Fatalf("%q: %v, reference split %v", text, got, want)
		}
	}
}

// groundTruthDir is the directory scripts/tokenizers.sh testdata writes:
// <model>/{tokenizer.json,tokenizer_config.json,ids.json} and text.txt, and
// o200k/{text.txt,ids.json}.
// Tests that need it skip when AIPERF_TEST_TOKENIZER_DATA is unset, unless
// AIPERF_TEST_REQUIRE_TOKENIZERS=1 (make test sets both) makes that a
// failure.
func groundTruthDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("AIPERF_TEST_TOKENIZER_DATA")
	if dir == "" {
		if os.Getenv("AIPERF_TEST_REQUIRE_TOKENIZERS") == "1" {
			t.Fatal("AIPERF_TEST_TOKENIZER_DATA is unset; run: export AIPERF_TEST_TOKENIZER_DATA=$(scripts/tokenizers.sh testdata)")
		}
		t.Skip("AIPERF_TEST_TOKENIZER_DATA is unset (scripts/tokenizers.sh testdata makes the data)")
	}
	return dir
}

// TestO200kGroundTruth: the builtin tokenizer's ordinary encoding equals
// OpenAI's tiktoken's (the npm package, its Rust core as WebAssembly) on
// 100 KB of Shakespeare, the mixed fixture and o200k_extra.txt (whitespace
// runs around line breaks, DEL: where tiktoken-go differs from tiktoken),
// through the regexp split (text.txt) and the plain-ASCII one (ascii.txt).
func TestO200kGroundTruth(t *testing.T) {
	dir := filepath.Join(groundTruthDir(t), "o200k")
	var truth struct {
		Files []struct {
			Name       string `json:"name"`
			TextSHA256 string `json:"text_sha256"`
			IDs        []int  `json:"ids"`
		} `json:"files"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "ids.json"))
	if err == nil {
		err = json.Unmarshal(b, &truth)
	}
	if err != nil {
		t.Fatal(err)
	}
	enc, err := loadO200k()
	if err != nil {
		t.Fatal(err)
	}
	if len(truth.Files) != 2 {
		t.Fatalf("%d files of ids, want text.txt and ascii.txt", len(truth.Files))
	}
	for _, f := range truth.Files {
		text, err := os.ReadFile(filepath.Join(dir, f.Name))
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(text); hex.EncodeToString(sum[:]) != f.TextSHA256 {
			t.Fatalf("%s is not the text the ids were made from", f.Name)
		}
		if ascii := f.Name == "ascii.txt"; (plainPrefix(string(text)) == len(text)) != ascii {
			t.Fatalf("%s: plain ASCII %v, want %v", f.Name, !ascii, ascii)
		}
		got := ourOrdinaryIDs(enc, string(text))
		if i := firstDiff(got, f.IDs); i >= 0 {
			t.Fatalf("%s: %d ids, want %d; first difference at %d: got %v, want %v", f.Name, len(got), len(f.IDs),
				i, window(got, i), window(f.IDs, i))
		}
		t.Logf("%s: %d ids equal tiktoken's", f.Name, len(got))
	}
}

func firstDiff(a, b []int) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

func window(ids []int, i int) []int { return ids[max(0, i-3):min(len(ids), i+4)] }
