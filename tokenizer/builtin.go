package tokenizer

import (
	"fmt"
	"sync"

	tiktoken "github.com/tiktoken-go/tokenizer"
)

// BuiltinName is the Name of the builtin tokenizer and the value of
// --tokenizer that selects it.
const BuiltinName = "builtin"

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
// which is safe for concurrent use. Encode treats special-token text such as
// "<|endoftext|>" as ordinary text and never adds special tokens; Decode skips
// special and unknown ids and replaces invalid UTF-8 (a window that cuts a
// multi-byte character) with U+FFFD, as tiktoken's decode does.
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
	// tokenize only fails in ErrorModeStrict or on a regexp timeout, neither
	// of which this codec has; a failure would surface as a short count.
	ids, _, _ := b.codec.Encode(text)
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = int(id)
	}
	return out
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
	n, _ := b.codec.Count(text)
	return n
}
