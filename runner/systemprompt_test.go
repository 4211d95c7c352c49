package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// firstMessages returns the messages of every payload in inputs.json.
func firstMessages(t *testing.T, dir string) [][]struct{ Role, Content string } {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "inputs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var in struct {
		Data []struct {
			Payloads []struct {
				Messages []struct{ Role, Content string } `json:"messages"`
			} `json:"payloads"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	var out [][]struct{ Role, Content string }
	for _, d := range in.Data {
		for _, p := range d.Payloads {
			out = append(out, p.Messages)
		}
	}
	return out
}

// TestSystemPrompt: --system-prompt (or its file) leads every chat body as
// a system message, joined before a multi_turn file's own system turn with
// a blank line, and under 1.4 each request's input_sequence_length counts
// it: it equals the prompt tokens the mock server counted in the body.
func TestSystemPrompt(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{OutputTokens: 2})
	const text = "You are a terse assistant. Answer in one line."
	file := writeFile(t, "system.txt", text)
	multi := writeFile(t, "multi.jsonl", `{"session_id": "a", "turns": [{"role": "system", "text": "Speak French."}, {"text": "hello there"}]}
{"session_id": "b", "turns": [{"text": "good morning"}]}
`)
	for _, tc := range []struct {
		name  string
		mod   func(*Config)
		wants []string // system message of each payload, in order
	}{
		{"synthetic text", func(c *Config) { c.SystemPrompt = text }, nil},
		{"synthetic file", func(c *Config) { c.SystemPromptFile = file }, nil},
		{"multi_turn file", func(c *Config) {
			c.SystemPrompt, c.InputFile, c.CustomDatasetType = text, multi, "multi_turn"
		}, []string{text + "\n\nSpeak French.", text}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, srv.URL())
			cfg.Tokenizer, cfg.RequestCount, cfg.NumDatasetEntries = "builtin", 4, 2
			tc.mod(cfg)
			if tc.wants != nil {
				cfg.RequestCount = 2 // one request per conversation
			}
			runOK(t, cfg)
			payloads := firstMessages(t, cfg.ArtifactDir)
			if len(payloads) == 0 {
				t.Fatal("inputs.json holds no payload")
			}
			for i, msgs := range payloads {
				want := text
				if tc.wants != nil {
					want = tc.wants[i]
				}
				if len(msgs) < 2 || msgs[0].Role != "system" || msgs[0].Content != want {
					t.Errorf("payload %d: messages %+v, want a leading system message %q", i, msgs, want)
				}
			}
			for _, r := range readRecords(t, cfg.ArtifactDir) {
				isl, ok1 := r.num("input_sequence_length")
				usage, ok2 := r.num("usage_prompt_tokens")
				if !ok1 || !ok2 || isl != usage {
					t.Errorf("record %s: input_sequence_length %v, the server counted %v", r.Metadata.XRequestID, isl, usage)
				}
			}
		})
	}
}

// TestSystemPromptProblems: the flags' conflicts and a missing file stop
// the run at validation, each naming the flags.
func TestSystemPromptProblems(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"both", func(c *Config) { c.SystemPrompt, c.SystemPromptFile = "a", "b" }, "--system-prompt and --system-prompt-file are mutually exclusive"},
		{"missing file", func(c *Config) { c.SystemPromptFile = filepath.Join(t.TempDir(), "none.txt") }, "--system-prompt-file: open"},
		{"with length", func(c *Config) { c.SystemPrompt, c.SharedSystemPromptLength = "a", 10 }, "--system-prompt cannot be used with --shared-system-prompt-length"},
		{"file with prefix", func(c *Config) { c.SystemPromptFile, c.NumPrefixPrompts = writeFile(t, "s.txt", "x"), 2 }, "--system-prompt-file cannot be used with --num-prefix-prompts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, "http://127.0.0.1:1")
			tc.mod(cfg)
			err := cfg.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate: %v, want %q", err, tc.want)
			}
		})
	}
}
