package endpoint

import (
	"strings"
	"testing"
)

// templateParseCases are response bodies or stream messages for the
// template type, with a response field or auto-detected.
var templateParseCases = []struct {
	name, field string
	streaming   bool
	data        string
	text        string
	embeddings  int
	ok          bool
	err         string // in the error; "" for none
}{
	{"chat field", "choices[0].message.content", false, `{"object":"chat.completion","choices":[{"message":{"content":"hi"}}]}`, "hi", 0, true, ""},
	{"field missing", "choices[0].message.content", false, `{"choices":[]}`, "", 0, false, `response field "choices[0].message.content" not found`},
	{"field null", "output", false, `{"output":null}`, "", 0, false, "not found"},
	{"field missing streaming", "choices[0].delta.content", true, `{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2}}`, "", 0, true, ""},
	{"field empty", "choices[0].delta.content", false, `{"choices":[{"delta":{"role":"assistant","content":""}}]}`, "", 0, false, ""},
	{"field embedding", "data[0].embedding", false, `{"data":[{"embedding":[0.1,0.2]}]}`, "", 1, true, ""},
	{"field embeddings", "vectors", false, `{"vectors":[[1,2],[3,4],[5,6]]}`, "", 3, true, ""},
	{"field rankings", "results", false, `{"results":[{"index":0,"score":0.9},{"index":1,"score":0.1}]}`, "", 2, true, ""},
	{"field number", "n", false, `{"n":3}`, "", 0, false, ""},
	{"field runtime error", "length(n)", false, `{"n":3}`, "", 0, false, `response field "length(n)"`},
	{"field text", "text", false, `{"content":"auto"}`, "auto", 0, true, ""},
	{"auto openai embeddings", "", false, `{"object":"list","data":[{"object":"embedding","embedding":[1]},{"object":"embedding","embedding":[2]}]}`, "", 2, true, ""},
	{"auto embeddings list", "", false, `{"embeddings":[[1,2],[3,4]]}`, "", 2, true, ""},
	{"auto embedding", "", false, `{"embedding":[1,2]}`, "", 1, true, ""},
	{"auto rankings", "", false, `{"rankings":[{"index":0,"logit":1.5}]}`, "", 1, true, ""},
	{"auto results empty", "", false, `{"results":[],"text":"not reached"}`, "", 0, false, ""},
	{"auto text", "", false, `{"generated_text":"x","response":"the answer"}`, "the answer", 0, true, ""},
	{"auto text list", "", false, `{"output":["a","b","c"]}`, "abc", 0, true, ""},
	{"auto completions", "", false, `{"object":"text_completion","choices":[{"text":" world"}],"usage":{"completion_tokens":1}}`, " world", 0, true, ""},
	{"auto chat chunk", "", false, `{"choices":[{"delta":{"content":"tok"}}]}`, "tok", 0, true, ""},
	{"auto top-level list", "", false, `[{"index":0,"score":0.5}]`, "", 1, true, ""},
	{"auto top-level string", "", false, `"just text"`, "just text", 0, true, ""},
	{"auto nothing", "", false, `{"id":"x"}`, "", 0, false, ""},
	{"plain text", "", false, `Hello, plain world`, "Hello, plain world", 0, true, ""},
	{"plain text with field", "choices[0].text", false, `not json {`, "not json {", 0, true, ""},
	{"server error", "", false, `{"error":{"message":"overloaded","type":"server_error"}}`, "", 0, false, "overloaded"},
	{"error null ignored", "", false, `{"error":null,"text":"fine"}`, "fine", 0, true, ""},
	{"done", "", true, `[DONE]`, "", 0, false, ""},
}

// TestTemplateParse checks JMESPath extraction, strictness and auto-detection.
func TestTemplateParse(t *testing.T) {
	for _, tc := range templateParseCases {
		t.Run(tc.name, func(t *testing.T) {
			e := mustTemplate(t, TemplateConfig{Source: "nv-embedqa", ResponseField: tc.field, Streaming: tc.streaming})
			resp, ok, err := e.Parse([]byte(tc.data))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if ok != tc.ok || resp.Text != tc.text || resp.Embeddings() != tc.embeddings {
				t.Errorf("got ok=%v text=%q embeddings=%d, want ok=%v text=%q embeddings=%d",
					ok, resp.Text, resp.Embeddings(), tc.ok, tc.text, tc.embeddings)
			}
		})
	}
}

// TestTemplateParseUsage checks that an OpenAI usage object is kept.
func TestTemplateParseUsage(t *testing.T) {
	e := mustTemplate(t, TemplateConfig{Source: "nv-embedqa"})
	resp, ok, err := e.Parse([]byte(`{"choices":[{"text":"a"}],"usage":{"prompt_tokens":5,"completion_tokens":1}}`))
	if err != nil || !ok || resp.Usage == nil || *resp.Usage.PromptTokens != 5 {
		t.Fatalf("got %+v %v %v", resp, ok, err)
	}
}

// FuzzTemplateParse checks that the template parser never panics and that
// ok matches the content found, with and without a response field.
func FuzzTemplateParse(f *testing.F) {
	for _, tc := range templateParseCases {
		f.Add(tc.field, tc.streaming, []byte(tc.data))
	}
	f.Fuzz(func(t *testing.T, field string, streaming bool, data []byte) {
		e := mustLookup(t, "template")
		if err := e.ConfigureTemplate(TemplateConfig{Source: "nv-embedqa", ResponseField: field, Streaming: streaming}); err != nil {
			return // not a valid expression
		}
		resp, ok, err := e.Parse(data)
		if err != nil && ok {
			t.Fatalf("ok with error %v", err)
		}
		if ok != (resp.HasContent() || resp.Usage != nil) {
			t.Fatalf("ok=%v for %+v", ok, resp)
		}
		if resp.Text != "" && resp.Embeddings() != 0 {
			t.Fatalf("both text and embeddings: %+v", resp)
		}
	})
}
