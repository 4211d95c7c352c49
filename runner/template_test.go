package runner

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// chatTemplateBody is a template of an OpenAI chat body.
const chatTemplateBody = `{"model": {{ model|tojson }}, "messages": [{"role": "user", "content": {{ text|tojson }}}], "stream": {{ stream|tojson }}}`

// TestTemplateAndSolidoEndToEnd runs the template and solido_rag types
// against the mock server and checks exact token counts.
func TestTemplateAndSolidoEndToEnd(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{OutputTokens: 5, TokensPerChunk: 2})
	for _, tc := range []struct {
		name, typ, path, template, field string
		extra                            []string
		streaming                        bool
		osl                              float64 // 0: no output tokens (embeddings)
	}{
		{"chat stream field", "template", "/v1/chat/completions", chatTemplateBody, "choices[0].delta.content", nil, true, 5},
		{"chat body field", "template", "/v1/chat/completions", chatTemplateBody, "choices[0].message.content", nil, false, 5},
		{"chat stream auto", "template", "/v1/chat/completions", chatTemplateBody, "", nil, true, 5},
		{"completions aiperf spelling", "template", "/v1/completions", "", "",
			[]string{`payload_template:{"model": {{ model|tojson }}, "prompt": {{ text|tojson }}}`, "response_field:choices[0].text", "ignore_eos:true"}, false, 5},
		{"embeddings auto", "template", "/v1/embeddings", `{"model": {{ model|tojson }}, "input": {{ texts|tojson }}}`, "", nil, false, 0},
		{"solido stream", "solido_rag", "", "", "", nil, true, 5},
		{"solido body", "solido_rag", "", "", "", nil, false, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, srv.URL())
			cfg.EndpointType, cfg.EndpointPath, cfg.Streaming = tc.typ, tc.path, tc.streaming
			cfg.EndpointTemplate, cfg.EndpointResponseField, cfg.ExtraInputs = tc.template, tc.field, tc.extra
			cfg.RequestCount = 4
			res := runOK(t, cfg)
			if res.Summary.Valid != 4 {
				t.Fatalf("%d valid, errors %+v", res.Summary.Valid, res.Summary.Errors)
			}
			for _, r := range readRecords(t, cfg.ArtifactDir) {
				if isl, _ := r.num("input_sequence_length"); isl != 32 {
					t.Errorf("isl %v, want 32", isl)
				}
				osl, ok := r.num("output_sequence_length")
				if tc.osl == 0 && ok || osl != tc.osl {
					t.Errorf("osl %v (present %v), want %v", osl, ok, tc.osl)
				}
				if _, ttft := r.num("time_to_first_token"); ttft != tc.streaming {
					t.Errorf("ttft present %v, streaming %v", ttft, tc.streaming)
				}
			}
		})
	}
}

// TestTemplateErrorRecords checks that a missing response field and an
// HTTP error become error records, and a template that renders invalid
// JSON stops the run before it sends, naming the template.
func TestTemplateErrorRecords(t *testing.T) {
	for _, tc := range []struct {
		name     string
		mock     mockserver.Config
		field    string
		wantType string
		wantMsg  string
	}{
		{"missing field", mockserver.Config{OutputTokens: 3}, "choices[0].message.nope", "ResponseParseError", `response field "choices[0].message.nope" not found`},
		{"http error", mockserver.Config{OutputTokens: 3, ErrorRate: 1}, "", "Internal Server Error", "injected error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := mocktest.Start(t, tc.mock)
			cfg := testConfig(t, srv.URL())
			cfg.EndpointType, cfg.EndpointPath = "template", "/v1/chat/completions"
			cfg.EndpointTemplate, cfg.EndpointResponseField = chatTemplateBody, tc.field
			cfg.RequestCount = 2
			if _, err := Run(context.Background(), cfg, Options{}); err == nil || !strings.Contains(err.Error(), "every request failed") {
				t.Fatalf("run error %v, want every request failed", err)
			}
			recs := readRecords(t, cfg.ArtifactDir)
			if len(recs) != 2 {
				t.Fatalf("%d records", len(recs))
			}
			for _, r := range recs {
				if r.Error == nil || r.Error.Type != tc.wantType || !strings.Contains(r.Error.Message, tc.wantMsg) {
					t.Fatalf("error %+v, want %s with %q", r.Error, tc.wantType, tc.wantMsg)
				}
			}
		})
	}
	t.Run("invalid json", func(t *testing.T) {
		srv := mocktest.Start(t, mockserver.Config{})
		cfg := testConfig(t, srv.URL())
		cfg.EndpointType, cfg.EndpointPath = "template", "/v1/chat/completions"
		cfg.EndpointTemplate = `{"prompt": {{ text }}}`
		cfg.RequestCount = 2
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		_, err := Run(context.Background(), cfg, Options{})
		if err == nil || !strings.Contains(err.Error(), `template "{\"prompt\": {{ text }}}" did not render valid JSON`) {
			t.Fatalf("run error %v", err)
		}
	})
}

// TestTemplateValidation checks the exit-2 configuration errors.
func TestTemplateValidation(t *testing.T) {
	for _, tc := range []struct {
		name               string
		typ, path, tpl, rf string
		extra              []string
		want               string // in the one problem; "" for valid
	}{
		{"ok", "template", "/v1/embeddings", "nv-embedqa", "", nil, ""},
		{"ok aiperf spelling", "template", "/x", "", "", []string{"payload_template:nv-embedqa"}, ""},
		{"no endpoint", "template", "", "nv-embedqa", "", nil, "--endpoint-type template has no default path: give the server's path with --endpoint"},
		{"no template", "template", "/x", "", "", nil, "--endpoint-type template needs --endpoint-template"},
		{"bad syntax", "template", "/x", `{"a": {% if %}}`, "", nil, "--endpoint-template: endpoint: template"},
		{"bad field", "template", "/x", "nv-embedqa", "a[", nil, `--endpoint-template: endpoint: response field "a["`},
		{"not template", "chat", "", "nv-embedqa", "", nil, "apply only to --endpoint-type template"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, "http://localhost:1")
			cfg.EndpointType, cfg.EndpointPath, cfg.EndpointTemplate, cfg.EndpointResponseField = tc.typ, tc.path, tc.tpl, tc.rf
			cfg.ExtraInputs = tc.extra
			err := cfg.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var ce *ConfigError
			if !errors.As(err, &ce) || len(ce.Problems) != 1 || !strings.Contains(ce.Problems[0], tc.want) {
				t.Fatalf("error %v, want one problem with %q", err, tc.want)
			}
		})
	}
}
