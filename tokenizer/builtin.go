package tokenizer

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	tiktoken "github.com/tiktoken-go/tokenizer"
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

var (
	builtinOnce sync.Once
	builtinTok  *builtin
	builtinErr  error
)

// Builtin returns the offline tokenizer: tiktoken's o200k_base encoding, as
// AIPerf's --tokenizer builtin. Its Name is "builtin". The first call builds
// the codec (about 25 ms); every call returns the same process-wide instance,
// which is safe for concurrent use. Encode adds no special token of its own,
// but special-token text in the input ("<|endoftext|>", "<|endofprompt|>")
// becomes that token's id, as in AIPerf (allowed_special="all"); Decode skips
// special and unknown ids, so such text does not round-trip, and replaces
// invalid UTF-8 (a window that cuts a multi-byte character) with U+FFFD, as
// tiktoken's decode does.
func Builtin() (Tokenizer, error) {
	builtinOnce.Do(func() {
		codec, err := tiktoken.Get(tiktoken.O200kBase)
		if err != nil {
			builtinErr = fmt.Errorf("builtin tokenizer: %w", err)
			return
		}
		// Set before the codec is shared: the mode is a plain field.
		codec.SetErrorMode(tiktoken.ErrorModeReplace)
		builtinTok = &builtin{codec: codec}
	})
	if builtinErr != nil {
		return nil, builtinErr
	}
	return builtinTok, nil
}

// builtin adapts a tiktoken codec to Tokenizer. The codec is safe for
// concurrent use: its regexp hands out per-call runners and its reverse
// vocabulary is built under a sync.Once.
type builtin struct {
	codec tiktoken.Codec
}

var _ Tokenizer = (*builtin)(nil)

func (b *builtin) Name() string { return BuiltinName }

func (b *builtin) Encode(text string) []int {
	var out []int
	b.segments(text, func(seg string, special int) {
		if special >= 0 {
			out = append(out, special)
			return
		}
		// tokenize only fails in ErrorModeStrict or on a regexp timeout,
		// neither of which this codec has.
		ids, _, _ := b.codec.Encode(seg)
		out = slices.Grow(out, len(ids))
		for _, id := range ids {
			out = append(out, int(id))
		}
	})
	if out == nil {
		out = []int{}
	}
	return out
}

// segments calls yield for each ordinary stretch of text (special -1) and
// each special token (its id), in order.
func (b *builtin) segments(text string, yield func(seg string, special int)) {
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
			yield(text, -1)
			return
		}
		if at > 0 {
			yield(text[:at], -1)
		}
		yield("", o200kSpecial[idx].id)
		text = text[at+len(o200kSpecial[idx].text):]
	}
}

func (b *builtin) Decode(ids []int) string {
	in := make([]uint, 0, len(ids))
	for _, id := range ids {
		if id >= 0 && id < o200kMergeable {
			in = append(in, uint(id))
		}
	}
	// Every id below o200kMergeable has a piece (tested), so with
	// ErrorModeReplace the codec cannot fail here.
	text, _ := b.codec.Decode(in)
	return text
}

func (b *builtin) Count(text string) int {
	total := 0
	b.segments(text, func(seg string, special int) {
		if special >= 0 {
			total++
			return
		}
		n, _ := b.codec.Count(seg)
		total += n
	})
	return total
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
