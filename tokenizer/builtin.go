package tokenizer

import (
	"fmt"
	"strings"
	"sync"
)

// BuiltinName is the Name of the builtin tokenizer and the value of
// --tokenizer that selects it.
const BuiltinName = "builtin"

// o200kSpecial are o200k_base's special tokens. Their text in the input
// encodes to their ids, as AIPerf's builtin tokenizer does
// (tiktoken encode with allowed_special="all") and as HF tokenizers treat
// their own special-token text.
var o200kSpecial = []struct {
	text string
	id   int
}{
	{"<|endoftext|>", 199999},
	{"<|endofprompt|>", 200018},
}

// o200kMergeable is the number of ordinary (mergeable) tokens in o200k_base:
// ids 0..199997. The special tokens <|endoftext|> (199999) and
// <|endofprompt|> (200018) lie above it, and so does the unused id 199998.
const o200kMergeable = 199998

// Builtin returns the offline tokenizer: tiktoken's o200k_base encoding, as
// AIPerf's --tokenizer builtin. Its Name is "builtin". The first call builds
// its tables (about 10 ms); every call returns the same process-wide
// instance, which is safe for concurrent use. Encode adds no special token
// of its own, but special-token text in the input ("<|endoftext|>",
// "<|endofprompt|>") becomes that token's id, as in AIPerf
// (allowed_special="all"); Decode skips special and unknown ids, so such
// text does not round-trip. Invalid UTF-8, in the input or in decoded text
// (a window that cuts a multi-byte character), becomes U+FFFD as tiktoken's
// errors="replace" makes it.
func Builtin() (Tokenizer, error) { return builtinOnce() }

var builtinOnce = sync.OnceValues(func() (Tokenizer, error) {
	enc, err := loadO200k()
	if err != nil {
		return nil, fmt.Errorf("builtin tokenizer: %w", err)
	}
	return &builtin{enc: enc}, nil
})

// builtin adapts the o200k_base byte-pair encoding to Tokenizer. The
// encoding only reads its tables and keeps its working state per call, so
// it is safe for concurrent use.
type builtin struct {
	enc *bpe
}

var _ Tokenizer = (*builtin)(nil)

func (b *builtin) Name() string { return BuiltinName }

func (b *builtin) Encode(text string) []int {
	out := []int{}
	b.ids(text, func(id int) { out = append(out, id) })
	return out
}

// ids calls yield with the id of each token of text in order: special-token
// text ("<|endoftext|>", "<|endofprompt|>") is that token, the text between
// is byte-pair encoded.
func (b *builtin) ids(text string, yield func(id int)) {
	for text != "" {
		at, idx := -1, 0
		if strings.Contains(text, "<|") {
			for i, sp := range o200kSpecial {
				if j := strings.Index(text, sp.text); j >= 0 && (at < 0 || j < at) {
					at, idx = j, i
				}
			}
		}
		if at < 0 {
			b.enc.encode(replaceInvalid(text), yield)
			return
		}
		if at > 0 {
			b.enc.encode(replaceInvalid(text[:at]), yield)
		}
		yield(o200kSpecial[idx].id)
		text = text[at+len(o200kSpecial[idx].text):]
	}
}

func (b *builtin) Decode(ids []int) string {
	return replaceInvalid(string(b.enc.decode(nil, ids)))
}

func (b *builtin) Count(text string) int {
	n := 0
	b.ids(text, func(int) { n++ })
	return n
}

var _ Specials = (*builtin)(nil)

// o200kEOS is o200k_base's end-of-text token, <|endoftext|>. o200k_base has
// no BOS token.
const o200kEOS = 199999

// BlockSeparator returns o200k_base's EOS id, 199999 (<|endoftext|>): it
// has no BOS, so AIPerf's "bos_token_id or eos_token_id" is the EOS.
func (b *builtin) BlockSeparator() (int, bool) { return o200kEOS, true }

// DecodeWithSpecial returns the text of ids with the special tokens'
// text kept ("<|endoftext|>", "<|endofprompt|>"), as
// skip_special_tokens=False does. Unknown ids are skipped, as in Decode.
func (b *builtin) DecodeWithSpecial(ids []int) string {
	var sb strings.Builder
	start := 0
	for i, id := range ids {
		for _, sp := range o200kSpecial {
			if id == sp.id {
				sb.WriteString(b.Decode(ids[start:i]))
				sb.WriteString(sp.text)
				start = i + 1
				break
			}
		}
	}
	sb.WriteString(b.Decode(ids[start:]))
	return sb.String()
}
