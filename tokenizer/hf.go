//go:build hftokenizers

package tokenizer

import (
	"math"
	"runtime"
	"strings"

	hf "github.com/daulet/tokenizers"
)

// hfSupported is true in builds with the hftokenizers tag, which link the
// Rust Hugging Face tokenizers library (libtokenizers.a).
const hfSupported = true

// hfTokenizer is a Hugging Face fast tokenizer (tokenizer.json) run by the
// Rust tokenizers library through github.com/daulet/tokenizers.
//
// It is safe for concurrent use without a lock: the Rust side encodes and
// decodes through a shared reference (&Tokenizer, which is Sync) and keeps
// no per-call state in the handle. The handle is freed when the
// hfTokenizer becomes unreachable; every method keeps it alive until its
// C call returns.
type hfTokenizer struct {
	name   string
	tk     *hf.Tokenizer
	config hfConfig
}

var (
	_ Tokenizer = (*hfTokenizer)(nil)
	_ Specials  = (*hfTokenizer)(nil)
)

// newHF builds a tokenizer from the bytes of a tokenizer.json and, when not
// nil, of its tokenizer_config.json (for the BOS and EOS tokens and
// clean_up_tokenization_spaces).
func newHF(name string, tokJSON, cfgJSON []byte) (Tokenizer, error) {
	cfg, err := parseConfig(tokJSON, cfgJSON)
	if err != nil {
		return nil, err
	}
	// Special-token text in the input becomes the special token, as in
	// transformers (split_special_tokens=False); that is the library's
	// default (no WithEncodeSpecialTokens).
	tk, err := hf.FromBytes(tokJSON)
	if err != nil {
		return nil, err
	}
	h := &hfTokenizer{name: name, tk: tk, config: cfg}
	runtime.AddCleanup(h, func(tk *hf.Tokenizer) { _ = tk.Close() }, tk)
	return h, nil
}

// Name is the model id or path the tokenizer was loaded as.
func (h *hfTokenizer) Name() string { return h.name }

// Encode returns text's ids without special tokens added
// (add_special_tokens=False); special-token text in text still becomes its
// token. The C interface takes NUL-terminated strings, so NUL bytes are
// dropped from text first; invalid UTF-8 is read as U+FFFD.
func (h *hfTokenizer) Encode(text string) []int {
	enc := h.tk.EncodeWithOptions(cString(text), false)
	runtime.KeepAlive(h)
	out := make([]int, len(enc.IDs))
	for i, id := range enc.IDs {
		out[i] = int(id)
	}
	return out
}

// Count returns len(Encode(text)).
func (h *hfTokenizer) Count(text string) int {
	enc := h.tk.EncodeWithOptions(cString(text), false)
	runtime.KeepAlive(h)
	return len(enc.IDs)
}

// Decode returns the text of ids with special tokens skipped
// (skip_special_tokens=True), with spaces before punctuation cleaned up
// when the config's clean_up_tokenization_spaces is true, as transformers
// decodes. Ids outside the vocabulary are skipped. A text with a NUL byte
// cannot cross the C interface: it decodes to "".
func (h *hfTokenizer) Decode(ids []int) string {
	return h.decode(ids, true)
}

// DecodeWithSpecial returns the text of ids with special tokens kept
// (skip_special_tokens=False), cleaned up as Decode does; the mooncake
// prompt builder decodes so.
func (h *hfTokenizer) DecodeWithSpecial(ids []int) string {
	return h.decode(ids, false)
}

// BlockSeparator returns AIPerf's "bos_token_id or eos_token_id": the BOS
// id unless it is absent or 0, else the EOS id; ok is false when neither
// applies.
func (h *hfTokenizer) BlockSeparator() (int, bool) {
	return h.config.blockSeparator()
}

func (h *hfTokenizer) decode(ids []int, skipSpecial bool) string {
	in := make([]uint32, 0, len(ids))
	for _, id := range ids {
		if id >= 0 && uint64(id) <= math.MaxUint32 {
			in = append(in, uint32(id))
		}
	}
	text := h.tk.Decode(in, skipSpecial)
	runtime.KeepAlive(h)
	if h.config.cleanUp {
		text = cleanUpTokenization(text)
	}
	return text
}

// cString drops the NUL bytes that would end a C string early.
func cString(s string) string {
	if strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(s, "\x00", "")
}
