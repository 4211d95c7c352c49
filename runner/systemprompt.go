package runner

import (
	"fmt"
	"os"
	"unicode/utf8"

	"github.com/aiperf-go/aiperf/dataset"
)

// systemPromptJoin separates --system-prompt from a system message the
// dataset carries itself (AIPerf's SYSTEM_PROMPT_JOIN_SEP): one system
// message, as many servers mishandle two.
const systemPromptJoin = "\n\n"

// systemPromptProblems checks --system-prompt and --system-prompt-file:
// one of them at most, not with the generated system prompt or prefix
// prompts, and a file that reads as UTF-8 text now, so that a missing
// file stops the run before any request.
func (c *Config) systemPromptProblems() []string {
	var p []string
	add := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	given := "--system-prompt"
	switch {
	case c.SystemPrompt != "" && c.SystemPromptFile != "":
		add("--system-prompt and --system-prompt-file are mutually exclusive: give the text or the file, not both")
	case c.SystemPromptFile != "":
		given = "--system-prompt-file"
		if _, err := readSystemPrompt(c.SystemPromptFile); err != nil {
			add("--system-prompt-file: %v", err)
		}
	case c.SystemPrompt == "":
		return nil
	}
	if c.SharedSystemPromptLength > 0 {
		add("%s cannot be used with --shared-system-prompt-length: give the system prompt as text or as a length, not both", given)
	}
	if c.NumPrefixPrompts > 0 || c.PrefixPromptLength > 0 {
		add("%s cannot be used with --num-prefix-prompts/--prefix-prompt-length: prefix prompts and a system prompt are mutually exclusive prompt modes", given)
	}
	return p
}

// readSystemPrompt reads a --system-prompt-file: UTF-8 text, not empty.
func readSystemPrompt(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(b) {
		return "", fmt.Errorf("%s is not UTF-8 text", path)
	}
	if len(b) == 0 {
		return "", fmt.Errorf("%s is empty", path)
	}
	return string(b), nil
}

// systemPromptText returns the verbatim system prompt the flags give, or "".
func (c *Config) systemPromptText() (string, error) {
	if c.SystemPromptFile != "" {
		return readSystemPrompt(c.SystemPromptFile)
	}
	return c.SystemPrompt, nil
}

// prependSystemPrompt gives every conversation the system prompt text,
// before the system message the dataset gave it, if any (joined with a
// blank line, as AIPerf 0.13 joins them).
func prependSystemPrompt(convs []dataset.Conversation, text string) {
	if text == "" {
		return
	}
	for i := range convs {
		if convs[i].SystemPrompt != "" {
			convs[i].SystemPrompt = text + systemPromptJoin + convs[i].SystemPrompt
		} else {
			convs[i].SystemPrompt = text
		}
	}
}
