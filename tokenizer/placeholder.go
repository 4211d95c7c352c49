package tokenizer

import "strings"

// placeholderModels are the model names AIPerf treats as stand-ins for a
// mock server; with no real tokenizer to load for them it switches to the
// builtin one.
var placeholderModels = []string{"mock-model", "test-model", "fake-model"}

// IsPlaceholderModel reports whether name is one of AIPerf's placeholder
// model names (mock-model, test-model, fake-model), compared
// case-insensitively after trimming surrounding space. For such a name the
// caller should use Builtin instead of loading a tokenizer named after the
// model.
func IsPlaceholderModel(name string) bool {
	name = strings.TrimSpace(name)
	for _, p := range placeholderModels {
		if strings.EqualFold(name, p) {
			return true
		}
	}
	return false
}
