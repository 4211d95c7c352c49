package tokenizer

import (
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The expected ids below come from OpenAI's tiktoken itself (the npm package
// "tiktoken" 1.0.22, the Rust core compiled to WASM, encode_ordinary with
// o200k_base), not from the library under test.
var o200kCases = []struct {
	text string
	ids  []int
}{
	{"hello world", []int{24912, 2375}},
	{"Hello, world!", []int{13225, 11, 2375, 0}},
	{"First Citizen:\nBefore we proceed any further, hear me speak.",
		[]int{7127, 84479, 734, 13036, 581, 18988, 1062, 6544, 11, 9598, 668, 10591, 13}},
	{" the quick brown fox jumps over the lazy dog",
		[]int{290, 4853, 19705, 68347, 65613, 1072, 290, 29082, 6446}},
	{"supercalifragilistic", []int{17789, 5842, 366, 17764, 311, 6207}},
	// With allowed_special="all", as AIPerf's builtin tokenizer encodes.
	{"<|endoftext|>", []int{199999}},
	{"hello<|endoftext|> world", []int{24912, 199999, 2375}},
	{"a<|endofprompt|><|endoftext|>b", []int{64, 200018, 199999, 65}},
	{"<|endoftext", []int{27, 91, 419, 1440, 919}},
	{"x <|endoftext|>\n", []int{87, 220, 199999, 198}},
	{"", []int{}},
	{"  ", []int{256}},
	{"日本語のテキスト", []int{9048, 40909, 3385, 16056, 18368, 38236}},
	{"1234567", []int{7633, 19354, 22}},
	{"🦙 llama", []int{4103, 99, 247, 69693}},
	{"naïve café", []int{1503, 9954, 737, 30469}},
}

// withoutSpecial is text as Decode gives it back: special tokens skipped.
func withoutSpecial(text string) string {
	for _, sp := range o200kSpecial {
		text = strings.ReplaceAll(text, sp.text, "")
	}
	return text
}

func builtinForTest(t testing.TB) Tokenizer {
	t.Helper()
	tok, err := Builtin()
	if err != nil {
		t.Fatalf("Builtin: %v", err)
	}
	return tok
}

func TestBuiltinEncodeKnownIDs(t *testing.T) {
	tok := builtinForTest(t)
	if got := tok.Name(); got != "builtin" {
		t.Errorf("Name() = %q, want builtin", got)
	}
	for _, tc := range o200kCases {
		t.Run(tc.text, func(t *testing.T) {
			got := tok.Encode(tc.text)
			if !slices.Equal(got, tc.ids) {
				t.Errorf("Encode(%q) = %v, want %v", tc.text, got, tc.ids)
			}
			if n := tok.Count(tc.text); n != len(tc.ids) {
				t.Errorf("Count(%q) = %d, want %d", tc.text, n, len(tc.ids))
			}
			if back, want := tok.Decode(tc.ids), withoutSpecial(tc.text); back != want {
				t.Errorf("Decode(%v) = %q, want %q", tc.ids, back, want)
			}
		})
	}
}

func TestBuiltinDecode(t *testing.T) {
	tok := builtinForTest(t)
	tests := []struct {
		name string
		ids  []int
		want string
	}{
		{"nil", nil, ""},
		{"special tokens skipped", []int{24912, 199999, 2375, 200018}, "hello world"},
		{"unknown ids skipped", []int{-1, 24912, 199998, 1 << 30, 2375}, "hello world"},
		// 4103 is the first bytes of the 4-byte llama emoji: one U+FFFD, as
		// tiktoken's errors="replace" decode gives.
		{"partial character", []int{4103}, "\uFFFD"},
		{"partial then rest", []int{4103, 99, 247}, "🦙"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tok.Decode(tc.ids); got != tc.want {
				t.Errorf("Decode(%v) = %q, want %q", tc.ids, got, tc.want)
			}
		})
	}
}

// TestBuiltinEveryIDDecodes guards the o200kMergeable bound of the
// vocabulary: tiktoken-go's table has no id at it (TestO200kVocabFile
// checks every id below it), and every id below it decodes to its bytes.
func TestBuiltinEveryIDDecodes(t *testing.T) {
	if _, err := tiktokenO200k(t).Decode([]uint{o200kMergeable}); err == nil {
		t.Errorf("id %d decoded; the mergeable range is larger than assumed", o200kMergeable)
	}
	b := builtinForTest(t).(*builtin)
	for id := range o200kMergeable {
		if tok := b.enc.token(id); tok == "" || b.enc.rank(tok) != id {
			t.Fatalf("id %d: token %q ranks %d", id, tok, b.enc.rank(tok))
		}
	}
}

func TestBuiltinRoundTrip(t *testing.T) {
	tok := builtinForTest(t)
	texts := []string{
		"To be, or not to be, that is the question:",
		"  leading and trailing spaces  ",
		"tabs\tand\nnewlines\r\n",
		"mixed ünïcödé, 中文, and emoji 🎉🎉",
		strings.Repeat("abc ", 500),
		"<|endoftext",
	}
	for _, text := range texts {
		ids := tok.Encode(text)
		if got := tok.Decode(ids); got != text {
			t.Errorf("Decode(Encode(%q)) = %q", text, got)
		}
		if again := tok.Encode(tok.Decode(ids)); !slices.Equal(again, ids) {
			t.Errorf("Encode(Decode(ids)) of %q changed the ids", text)
		}
	}
}

func TestBuiltinSameInstance(t *testing.T) {
	a, b := builtinForTest(t), builtinForTest(t)
	if a != b {
		t.Error("Builtin returned two different instances")
	}
}

// TestBuiltinConcurrent is meaningful under -race: many goroutines share the
// one instance, including its first call.
func TestBuiltinConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tok, err := Builtin()
			if err != nil {
				errs <- err.Error()
				return
			}
			for i := range 20 {
				tc := o200kCases[(g+i)%len(o200kCases)]
				if got := tok.Encode(tc.text); !slices.Equal(got, tc.ids) {
					errs <- "encode " + tc.text
				}
				if got := tok.Decode(tc.ids); got != withoutSpecial(tc.text) {
					errs <- "decode " + tc.text
				}
				if got := tok.Count(tc.text); got != len(tc.ids) {
					errs <- "count " + tc.text
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestIsPlaceholderModel(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"mock-model", true},
		{"test-model", true},
		{"fake-model", true},
		{"Mock-Model", true},
		{"FAKE-MODEL", true},
		{" test-model ", true},
		{"", false},
		{"gpt2", false},
		{"mock-model-2", false},
		{"my-mock-model", false},
		{"meta-llama/Llama-3.1-8B-Instruct", false},
	}
	for _, tc := range tests {
		if got := IsPlaceholderModel(tc.name); got != tc.want {
			t.Errorf("IsPlaceholderModel(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func BenchmarkBuiltinCount(b *testing.B) {
	tok := builtinForTest(b)
	text := strings.Repeat("Before we proceed any further, hear me speak. ", 50)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		tok.Count(text)
	}
}

func BenchmarkBuiltinCountMixed(b *testing.B) {
	tok := builtinForTest(b)
	mixed, err := os.ReadFile("testdata/mixed.txt")
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat(string(mixed), 10)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		tok.Count(text)
	}
}
