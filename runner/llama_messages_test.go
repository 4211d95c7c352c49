//go:build integration && hftokenizers

package runner

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/tokenizer"
)

// TestLlamaServerMessages benchmarks the real llama.cpp server through its
// Anthropic Messages API (POST /v1/messages) and its OpenAI Responses API
// (POST /v1/responses, whose events carry no output or content index),
// streaming and not, and checks
// exact token counts: OSL, counted with the Llama 3 tokenizer.json, equals
// usage.output_tokens and the requested limit (ignore_eos); the
// server's input tokens (input_tokens plus cache_read_input_tokens, which
// llama.cpp reports apart when streaming) equal the rendered chat template.
func TestLlamaServerMessages(t *testing.T) {
	url, model, tokPath, template := llamaEnv(t)
	tok, err := tokenizer.Load(context.Background(), tokPath, tokenizer.LoadOptions{Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	const osl = 6
	for _, tc := range []struct {
		typ       string
		streaming bool
	}{{"messages", false}, {"messages", true}, {"responses", false}, {"responses", true}} {
		name, streaming := tc.typ, tc.streaming
		if streaming {
			name += "-streaming"
		}
		t.Run(name, func(t *testing.T) {
			cfg := testConfig(t, url)
			cfg.Models = []string{model}
			cfg.Tokenizer = tokPath
			cfg.EndpointType = tc.typ
			cfg.Streaming = streaming
			cfg.ISLMean, cfg.ISLStddev = 48, 16
			cfg.OSLMean = osl
			cfg.ExtraInputs = []string{"ignore_eos:true"}
			cfg.Concurrency, cfg.RequestCount = 2, 6
			cfg.RequestTimeout = 120 * time.Second
			runOK(t, cfg)

			prompts := userPromptsBySession(t, cfg.ArtifactDir)
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
				if rendered := tok.Count(renderLlama3(t, template, prompt)); usagePrompt != float64(rendered) {
					t.Errorf("request %d: input tokens %v, want %d (the rendered chat template; ISL %v)", i, usagePrompt, rendered, isl)
				}
				if osLen != osl || usageOut != osl {
					t.Errorf("request %d: OSL %v, usage output_tokens %v, want %d", i, osLen, usageOut, osl)
				}
				if streaming {
					if ttft, ok := r.num("time_to_first_token"); !ok || ttft <= 0 {
						t.Errorf("request %d: TTFT %v %v", i, ttft, ok)
					}
				}
			}
		})
	}
}

// userPromptsBySession reads inputs.json: the content of the first item of
// each session's first payload's "messages" (Anthropic) or "input"
// (Responses).
func userPromptsBySession(t *testing.T, dir string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "inputs.json"))
	if err != nil {
		t.Fatal(err)
	}
	type item struct {
		Content string `json:"content"`
	}
	var in struct {
		Data []struct {
			SessionID string `json:"session_id"`
			Payloads  []struct {
				Messages []item `json:"messages"`
				Input    []item `json:"input"`
			} `json:"payloads"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, s := range in.Data {
		p := s.Payloads[0]
		items := append(p.Messages, p.Input...)
		if len(items) == 0 {
			t.Fatalf("session %s: no messages or input", s.SessionID)
		}
		out[s.SessionID] = items[0].Content
	}
	return out
}
