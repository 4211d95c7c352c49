//go:build !hftokenizers

package tokenizer

// hfSupported is false in builds without the hftokenizers tag: Load then
// refuses every tokenizer but the builtin one with ErrNoHFSupport, before
// touching the disk or network.
const hfSupported = false

// newHF is never called in this build (Load checks hfSupported first).
func newHF(_ string, _, _ []byte) (Tokenizer, error) {
	return nil, ErrNoHFSupport
}
