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
