package dataset

import (
	"errors"
	"strings"
)

// ValidateSynthetic returns the conflicts among cfg's options as one error
// (errors.Join) whose lines name the flags, or nil. These are the rules that
// cfg alone can decide (§4.4, §5.9):
//
//   - prefix prompts (--num-prefix-prompts, --prefix-prompt-length) exclude
//     --shared-system-prompt-length and --user-context-prompt-length;
//   - --system-prompt excludes --shared-system-prompt-length.
//
// Rules that need to know which flags the user gave, or the endpoint, are
// the caller's: --user-context-prompt-length requires an explicit
// --num-dataset-entries; synthetic-only options are rejected with
// --input-file or --public-dataset; rankings options need a rankings
// endpoint; --system-prompt is rejected on completions, embeddings and
// rankings endpoints.
func ValidateSynthetic(cfg *SyntheticConfig) error {
	var errs []error
	var context []string
	if cfg.SharedSystemPromptLength > 0 {
		context = append(context, "--shared-system-prompt-length")
	}
	if cfg.UserContextPromptLength > 0 {
		context = append(context, "--user-context-prompt-length")
	}
	if (cfg.NumPrefixPrompts > 0 || cfg.PrefixPromptLength > 0) && len(context) > 0 {
		errs = append(errs, errors.New("--num-prefix-prompts/--prefix-prompt-length cannot be used with "+
			strings.Join(context, " or ")+": prefix prompts and context prompts are mutually exclusive prompt modes"))
	}
	if cfg.SystemPrompt != "" && cfg.SharedSystemPromptLength > 0 {
		errs = append(errs, errors.New("--system-prompt cannot be used with --shared-system-prompt-length: give the system prompt as text or as a length, not both"))
	}
	return errors.Join(errs...)
}
