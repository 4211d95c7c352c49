//go:build integration && hftokenizers

package runner

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/tokenizer"
)

// llamaEnv returns the llama-server that scripts/llama-server.sh started,
// or skips (fails under AIPERF_TEST_REQUIRE_LLAMA).
func llamaEnv(t *testing.T) (url, model, tokPath, template string) {
	t.Helper()
	url = os.Getenv("AIPERF_TEST_LLAMA_URL")
	if url == "" {
		if os.Getenv("AIPERF_TEST_REQUIRE_LLAMA") != "" {
			t.Fatal("AIPERF_TEST_LLAMA_URL is not set: start the server with scripts/llama-server.sh")
		}
		t.Skip("AIPERF_TEST_LLAMA_URL not set")
	}
	b, err := os.ReadFile(os.Getenv("AIPERF_TEST_LLAMA_CHAT_TEMPLATE"))
	if err != nil {
		t.Fatal(err)
	}
	return url, os.Getenv("AIPERF_TEST_LLAMA_MODEL"), os.Getenv("AIPERF_TEST_LLAMA_TOKENIZER"), string(b)
}

// renderLlama3 renders one user message as the Llama 3 chat template does
// with add_generation_prompt (the test checks the template has this shape):
// BOS, the header, the trimmed content, <|eot_id|>, the assistant header.
func renderLlama3(t *testing.T, template, content string) string {
	t.Helper()
	for _, piece := range []string{"'<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n'+ message['content'] | trim + '<|eot_id|>'",
		"bos_token + content", "'<|start_header_id|>assistant<|end_header_id|>\n\n'"} {
		if !strings.Contains(template, piece) {
			t.Fatalf("the chat template changed: it lacks %q", piece)
		}
	}
	return "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\n" + strings.TrimSpace(content) +
		"<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"
}

// TestLlamaServerTokenCounts benchmarks a real llama.cpp server through
// chat and completions, streaming and not, and checks that the ISL and OSL
// computed with the Llama 3 tokenizer.json equal the server's usage counts:
// completions exactly (plus the BOS the server adds), chat after the chat
// template, rendered and counted here.
func TestLlamaServerTokenCounts(t *testing.T) {
	url, model, tokPath, template := llamaEnv(t)
	tok, err := tokenizer.Load(context.Background(), tokPath, tokenizer.LoadOptions{Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	const osl = 6
	for _, tc := range []struct {
		endpoint  string
		streaming bool
	}{{"completions", false}, {"completions", true}, {"chat", false}, {"chat", true}} {
		name := tc.endpoint
		if tc.streaming {
			name += "-streaming"
		}
		t.Run(name, func(t *testing.T) {
			cfg := testConfig(t, url)
			cfg.Models = []string{model}
			cfg.Tokenizer = tokPath
			cfg.EndpointType = tc.endpoint
			cfg.Streaming = tc.streaming
			cfg.ISLMean, cfg.ISLStddev = 48, 16
			cfg.OSLMean = osl
			cfg.ExtraInputs = []string{"ignore_eos:true"}
			cfg.Concurrency, cfg.RequestCount = 2, 6
			cfg.RequestTimeout = 120 * time.Second
			runOK(t, cfg)

			prompts := promptsBySession(t, cfg.ArtifactDir, tc.endpoint)
			recs := readRecords(t, cfg.ArtifactDir)
			if len(recs) != 6 {
				t.Fatalf("%d records, want 6", len(recs))
			}
			for i, r := range recs {
				if r.Error != nil {
					t.Fatalf("request %d failed: %+v", i, *r.Error)
				}
				isl, _ := r.num("input_sequence_length")
				osLen, _ := r.num("output_sequence_length")
				usagePrompt, ok1 := r.num("usage_prompt_tokens")
				usageOut, ok2 := r.num("usage_completion_tokens")
				if !ok1 || !ok2 {
					t.Fatalf("request %d: no usage in %v", i, r.Metrics)
				}
				prompt := prompts[r.Metadata.ConversationID]
				if want := float64(tok.Count(prompt)); isl != want {
					t.Errorf("request %d: ISL %v, tokenizer.json counts %v", i, isl, want)
				}
				switch tc.endpoint {
				case "completions":
					if usagePrompt != isl+1 {
						t.Errorf("request %d: usage.prompt_tokens %v, want ISL %v + 1 (BOS)", i, usagePrompt, isl)
					}
				case "chat":
					rendered := tok.Count(renderLlama3(t, template, prompt))
					if usagePrompt != float64(rendered) {
						t.Errorf("request %d: usage.prompt_tokens %v, want %d (the rendered chat template; ISL %v)", i, usagePrompt, rendered, isl)
					}
				}
				if osLen != osl || usageOut != osl {
					t.Errorf("request %d: OSL %v, usage.completion_tokens %v, want %d", i, osLen, usageOut, osl)
				}
				if tc.streaming {
					if ttft, ok := r.num("time_to_first_token"); !ok || ttft <= 0 {
						t.Errorf("request %d: TTFT %v %v", i, ttft, ok)
					}
				}
			}
		})
	}
}

// promptsBySession reads inputs.json: the prompt text of each session's
// single turn.
func promptsBySession(t *testing.T, dir, endpoint string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "inputs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var in struct {
		Data []struct {
			SessionID string `json:"session_id"`
			Payloads  []struct {
				Prompt   string `json:"prompt"`
				Messages []struct {
					Content string `json:"content"`
				} `json:"messages"`
			} `json:"payloads"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, s := range in.Data {
		p := s.Payloads[0]
		if endpoint == "chat" {
			out[s.SessionID] = p.Messages[0].Content
		} else {
			out[s.SessionID] = p.Prompt
		}
	}
	return out
}
