// Package tokenizer turns text into token ids and back for prompt synthesis
// and client-side token counting.
package tokenizer

// Tokenizer encodes and decodes text. Encode never adds special tokens;
// Decode skips special tokens, as AIPerf does. Implementations are safe for
// concurrent use.
type Tokenizer interface {
	// Name identifies the tokenizer (e.g. "builtin").
	Name() string
	// Encode returns the token ids of text.
	Encode(text string) []int
	// Decode returns the text of ids.
	Decode(ids []int) string
	// Count returns len(Encode(text)), possibly faster.
	Count(text string) int
}

// Specials is implemented by tokenizers that know their special tokens, as
// the mooncake block algorithm needs (§4.3).
type Specials interface {
	// BlockSeparator returns the BOS token id, or else the EOS token id;
	// ok is false when the tokenizer has neither.
	BlockSeparator() (id int, ok bool)
	// DecodeWithSpecial returns the text of ids with special tokens kept
	// (skip_special_tokens=False).
	DecodeWithSpecial(ids []int) string
}
