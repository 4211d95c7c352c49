//go:build hftokenizers

package tokenizer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// daulet's module carries Meta-Llama-3-8B-Instruct's tokenizer.json (with
// the TemplateProcessing post-processor that adds <|begin_of_text|>) and
// expected ids for it.
func dauletLlama3(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/daulet/tokenizers").Output()
	if err != nil {
		t.Fatalf("go list -m github.com/daulet/tokenizers: %v", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "test", "data", "Meta-Llama-3-8B-Instruct.json")
}

var (
	loadedMu sync.Mutex
	loaded   = map[string]Tokenizer{}
)

// loadHF loads the tokenizer file or directory at path once per test
// binary: parsing a 128k-vocabulary tokenizer.json takes about a second.
func loadHF(t *testing.T, path string) Tokenizer {
	t.Helper()
	loadedMu.Lock()
	defer loadedMu.Unlock()
	if tok, ok := loaded[path]; ok {
		return tok
	}
	tok, err := Load(context.Background(), path, LoadOptions{Offline: true, HFHome: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	loaded[path] = tok
	return tok
}

// The Rust library's ids equal those of an independent encoder (the
// @lenml/tokenizers JavaScript port of transformers.js) on 100 KB of
// Shakespeare plus mixed text (numbers, scripts, emoji, code, special-token
// text, NFD accents).
func TestHFGroundTruth(t *testing.T) {
	dir := groundTruthDir(t)
	text, err := os.ReadFile(filepath.Join(dir, "text.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, model := range []string{"llama3", "qwen3"} {
		t.Run(model, func(t *testing.T) {
			var truth struct {
				TextSHA256 string `json:"text_sha256"`
				IDs        []int  `json:"ids"`
			}
			b, err := os.ReadFile(filepath.Join(dir, model, "ids.json"))
			if err == nil {
				err = json.Unmarshal(b, &truth)
			}
			if err != nil {
				t.Fatal(err)
			}
			if sum := sha256.Sum256(text); hex.EncodeToString(sum[:]) != truth.TextSHA256 {
				t.Fatal("text.txt is not the text the ids were made from")
			}
			tok := loadHF(t, filepath.Join(dir, model))
			got := tok.Encode(string(text))
			if i := firstDiff(got, truth.IDs); i >= 0 {
				t.Fatalf("%d ids, want %d; first difference at %d: got %v, want %v", len(got), len(truth.IDs),
					i, window(got, i), window(truth.IDs, i))
			}
			t.Logf("%d ids equal the independent encoder's", len(got))
			if n := tok.Count(string(text)); n != len(truth.IDs) {
				t.Errorf("Count = %d, want %d", n, len(truth.IDs))
			}
			// Decoding gives the text back, up to what the tokenizer changes:
			// Llama 3's config asks for transformers' space clean-up (tested
			// against hand-worked cases in TestCleanUpTokenization), Qwen3
			// normalizes to NFC (the fixture's two NFD words).
			want := string(text)
			if model == "llama3" {
				want = cleanUpTokenization(want)
			} else {
				want = strings.NewReplacer("cafe\u0301", "café", "nai\u0308ve", "naïve").Replace(want)
			}
			if got := tok.(Specials).DecodeWithSpecial(truth.IDs); got != want {
				t.Errorf("DecodeWithSpecial differs from the text at byte %d", firstByteDiff(got, want))
			}
		})
	}
}

func TestHFSpecials(t *testing.T) {
	tests := []struct {
		name string
		path func(t *testing.T) string
		sep  int
	}{
		{"llama3 with config", func(t *testing.T) string { return filepath.Join(groundTruthDir(t), "llama3") }, 128000},
		{"llama3 bare tokenizer.json", dauletLlama3, 128000},
		{"qwen3: no BOS, EOS <|im_end|>", func(t *testing.T) string { return filepath.Join(groundTruthDir(t), "qwen3") }, 151645},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.path(t)
			tok := loadHF(t, path)
			if tok.Name() != path {
				t.Errorf("Name = %q, want %q", tok.Name(), path)
			}
			sp, ok := tok.(Specials)
			if !ok {
				t.Fatal("not Specials")
			}
			if id, ok := sp.BlockSeparator(); id != tt.sep || !ok {
				t.Errorf("BlockSeparator = %d, %v, want %d", id, ok, tt.sep)
			}
		})
	}
}

// Ids from daulet's own fixture for "brown fox jumps over the lazy dog".
var brownFox = []int{0x10019, 0x9bff, 0x89ec, 0x39f, 0x117, 0x3eb5, 0x162f}

func TestHFEncodeDecode(t *testing.T) {
	tok := loadHF(t, dauletLlama3(t))
	sp := tok.(Specials)
	const text = "brown fox jumps over the lazy dog"
	// This tokenizer.json's post-processor would add <|begin_of_text|>
	// (128000) with add_special_tokens=True; Encode must not.
	if got := tok.Encode(text); !slices.Equal(got, brownFox) {
		t.Errorf("Encode = %v, want %v", got, brownFox)
	}
	withSpecials := append(append([]int{128000}, brownFox...), 128001)
	if got := tok.Decode(withSpecials); got != text {
		t.Errorf("Decode skipped no specials: %q", got)
	}
	if got, want := sp.DecodeWithSpecial(withSpecials), "<|begin_of_text|>"+text+"<|end_of_text|>"; got != want {
		t.Errorf("DecodeWithSpecial = %q, want %q", got, want)
	}
	// Special-token text in the input is that token (split_special_tokens=False).
	if got := tok.Encode("<|begin_of_text|>" + text); !slices.Equal(got, append([]int{128000}, brownFox...)) {
		t.Errorf("Encode(special text) = %v", got)
	}
	cases := []struct {
		name string
		got  any
		want any
	}{
		{"empty encode", tok.Encode(""), []int{}},
		{"empty count", tok.Count(""), 0},
		{"empty decode", tok.Decode(nil), ""},
		{"unknown and negative ids skipped", tok.Decode(append([]int{-1, 1 << 40, 999999}, brownFox...)), text},
		{"NUL dropped", tok.Encode("brown\x00 fox jumps over the lazy dog"), brownFox},
	}
	for _, c := range cases {
		if !equalAny(c.got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
}

func equalAny(a, b any) bool {
	if x, ok := a.([]int); ok {
		y, ok := b.([]int)
		return ok && slices.Equal(x, y) && (x == nil) == (y == nil)
	}
	return a == b
}

// One tokenizer serves many goroutines (run with -race).
func TestHFConcurrent(t *testing.T) {
	tok := loadHF(t, dauletLlama3(t))
	texts := []string{"brown fox jumps over the lazy dog", "Hello, world!", "日本語のテキスト", ""}
	want := make([][]int, len(texts))
	for i, s := range texts {
		want[i] = tok.Encode(s)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				k := (g + i) % len(texts)
				if got := tok.Encode(texts[k]); !slices.Equal(got, want[k]) {
					t.Errorf("concurrent Encode(%q) = %v, want %v", texts[k], got, want[k])
					return
				}
				if got := tok.Decode(want[k]); got != texts[k] {
					t.Errorf("concurrent Decode = %q, want %q", got, texts[k])
					return
				}
			}
		})
	}
	wg.Wait()
}

// wordLevelJSON is a tiny tokenizer.json: whole words, split on
// whitespace and punctuation, decoded joined by spaces.
const wordLevelJSON = `{"version":"1.0","truncation":null,"padding":null,
"added_tokens":[{"id":0,"content":"<s>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true}],
"normalizer":null,"pre_tokenizer":{"type":"Whitespace"},"post_processor":null,"decoder":null,
"model":{"type":"WordLevel","vocab":{"<s>":0,"[UNK]":1,"Hello":2,",":3,"world":4,"!":5},"unk_token":"[UNK]"}}`

// Load through the hub: download, then load again offline from the cache.
func TestHFLoadFromHub(t *testing.T) {
	fake := newFakeHub(t, map[string]*fakeRepo{"org/tiny": {
		commit: llamaCommit, gated: true, lfs: map[string]bool{"tokenizer.json": true},
		files: map[string]string{"tokenizer.json": wordLevelJSON,
			"tokenizer_config.json": `{"bos_token":"<s>","clean_up_tokenization_spaces":true}`},
	}})
	home := t.TempDir()
	for _, offline := range []bool{false, true} {
		tok, err := Load(context.Background(), "org/tiny", LoadOptions{Endpoint: fake.srv.URL, HFHome: home,
			Token: fakeToken, Offline: offline, TrustRemoteCode: true})
		if err != nil {
			t.Fatalf("offline=%v: %v", offline, err)
		}
		ids := tok.Encode("Hello, world!")
		if want := []int{2, 3, 4, 5}; tok.Name() != "org/tiny" || !slices.Equal(ids, want) {
			t.Errorf("offline=%v: Name %q, ids %v, want %v", offline, tok.Name(), ids, want)
		}
		// The decoder joins words with spaces; the config's
		// clean_up_tokenization_spaces then removes those before
		// punctuation. DecodeWithSpecial keeps <s>.
		if got := tok.Decode(append([]int{0}, ids...)); got != "Hello, world!" {
			t.Errorf("offline=%v: Decode = %q, want the cleaned-up text", offline, got)
		}
		if got := tok.(Specials).DecodeWithSpecial(append([]int{0}, ids...)); got != "<s> Hello, world!" {
			t.Errorf("offline=%v: DecodeWithSpecial = %q", offline, got)
		}
		if id, ok := tok.(Specials).BlockSeparator(); id != 0 || ok {
			// BOS id 0 is falsy in AIPerf's "bos_token_id or eos_token_id".
			t.Errorf("BlockSeparator = %d, %v, want none", id, ok)
		}
	}
	if gets := fake.count("GET"); gets != 2 {
		t.Errorf("%d downloads, want 2", gets)
	}
}

// A tokenizer.json the Rust library rejects fails Load with its path.
func TestHFLoadInvalid(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{tokenizerFile: `{"model":{"type":"Nope"}}`})
	_, err := Load(context.Background(), dir, LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, tokenizerFile)) {
		t.Errorf("error = %v, want it to name the file", err)
	}
}

func firstByteDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
