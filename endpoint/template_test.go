package endpoint

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/aiperf-go/aiperf/dataset"
)

// chatTemplate renders an OpenAI chat body from the template variables.
const chatTemplate = `{"model": {{ model|tojson }}, "messages": [{"role": "user", "content": {{ text|tojson }}}],
 {% if max_tokens %}"max_tokens": {{ max_tokens }},{% endif %} "stream": {{ stream|tojson }}}`

// mustTemplate returns the template type configured with cfg.
func mustTemplate(t testing.TB, cfg TemplateConfig) *Endpoint {
	t.Helper()
	e := mustLookup(t, "template")
	if err := e.ConfigureTemplate(cfg); err != nil {
		t.Fatal(err)
	}
	return e
}

// TestTemplateGolden compares the bodies of the named templates and of
// inline and file templates with testdata/template (-update rewrites).
func TestTemplateGolden(t *testing.T) {
	file := filepath.Join(t.TempDir(), "body.j2")
	if err := os.WriteFile(file, []byte(`{"inputs": {{ texts|join(" ")|tojson }}, "parameters": {"max_new_tokens": {{ max_tokens|tojson }}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	hello := dataset.Turn{Texts: []string{"Hello there"}, Model: "m", MaxTokens: 16}
	rank := dataset.Turn{Query: "what is a cat?", Passages: []string{"a pet", "an animal"}, Model: "r"}
	tests := []struct {
		golden, source string
		turn           dataset.Turn
		opts           *Options
	}{
		{"nv_embedqa", "nv-embedqa", dataset.Turn{Texts: []string{"a", escText, ""}, Model: "e5"}, nil},
		{"nv_embedqa_extra", "nv-embedqa", dataset.Turn{Texts: []string{"a"}, Model: "e5", Extra: raw(`{"input_type":"passage","text":["turn wins"]}`)},
			&Options{Extra: []Field{field("input_type", `"query"`), field("truncate", `"END"`)}}},
		{"chat_stream", chatTemplate, hello, &Options{Streaming: true}},
		{"chat_no_max", chatTemplate, dataset.Turn{Texts: []string{escText}, Model: "m"}, nil},
		{"file", file, hello, nil},
		{"rankings_vars", `{"q": {{ query|tojson }}, "docs": {{ passages|tojson }}, "all": {{ texts|tojson }},
			"by_name": {{ texts_by_name.passages|tojson }}, "first": {{ passage|tojson }}, "none": {{ text|tojson }},
			"role": {{ role|tojson }}, "n": {{ turns|length }}, "names": [{% for t in turn.texts %}{{ t.name|tojson }}{% if not loop.last %},{% endif %}{% endfor %}]}`, rank, nil},
		{"media_vars", `{"image": {{ image|tojson }}, "audios": {{ audios|tojson }}, "video": {{ videos_by_name.video_url|tojson }}, "dup": 1, "dup": 2}`,
			dataset.Turn{Images: []string{"http://x/i.png"}, Audios: []string{"wav,AAAA"}, Videos: []string{"http://x/v.mp4"}}, nil},
		{"autoescape", `{"text": "{{ text }}", "number": 1.50, "nested": {"a": [true, null, "é\u00e9"]}}`, dataset.Turn{Texts: []string{`a "b" & <c>`}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.golden, func(t *testing.T) {
			got, err := mustTemplate(t, TemplateConfig{Source: tc.source}).Payload(&tc.turn, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join("testdata", "template", tc.golden+".json"), got)
		})
	}
}

// TestTemplateErrors checks that a bad template stops with an error naming
// it, at configuration or at the first body.
func TestTemplateErrors(t *testing.T) {
	turn := &dataset.Turn{Texts: []string{"hi"}, Model: "m"}
	for _, tc := range []struct {
		name   string
		cfg    TemplateConfig
		config bool   // fails in ConfigureTemplate, not Payload
		want   string // in the error
	}{
		{"no source", TemplateConfig{}, true, "--endpoint-template"},
		{"syntax", TemplateConfig{Source: `{"a": {{ text }`}, true, `template "{\"a\": {{ text }"`},
		{"jmespath", TemplateConfig{Source: "nv-embedqa", ResponseField: "choices[0"}, true, `response field "choices[0"`},
		{"invalid json", TemplateConfig{Source: `{"text": {{ text }}}`}, false, `template "{\"text\": {{ text }}}" did not render valid JSON`},
		{"not object", TemplateConfig{Source: `{{ texts|tojson }}`}, false, "rendered a JSON array, want an object"},
		{"render", TemplateConfig{Source: `{"a": {{ text|nosuchfilter }}}`}, false, "template"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := mustLookup(t, "template")
			err := e.ConfigureTemplate(tc.cfg)
			if err == nil && tc.config {
				t.Fatal("ConfigureTemplate: no error")
			}
			if err == nil {
				_, err = e.Payload(turn, nil)
			} else if !tc.config {
				t.Fatalf("ConfigureTemplate: %v", err)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
	unconfigured, err := Lookup("template")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := unconfigured.Payload(turn, nil); err == nil || !strings.Contains(err.Error(), "no template configured") {
		t.Errorf("unconfigured: %v", err)
	}
	if err := mustLookup(t, "chat").ConfigureTemplate(TemplateConfig{Source: "nv-embedqa"}); err == nil {
		t.Error("chat accepted a template")
	}
}

// TestTemplateFromExtra checks AIPerf's --extra-inputs spelling.
func TestTemplateFromExtra(t *testing.T) {
	extra, err := ParseExtraInputs([]string{"payload_template:nv-embedqa", "truncate:END", "response_field:data[0].embedding"})
	if err != nil {
		t.Fatal(err)
	}
	src, rf, rest, err := TemplateFromExtra(extra)
	if err != nil || src != "nv-embedqa" || rf != "data[0].embedding" || len(rest) != 1 || rest[0].Key != "truncate" {
		t.Fatalf("got %q %q %v %v", src, rf, rest, err)
	}
	if len(extra) != 3 {
		t.Error("extra was modified")
	}
	if _, _, _, err := TemplateFromExtra([]Field{field("payload_template", "1")}); err == nil {
		t.Error("a number template was accepted")
	}
}

// TestTemplateConcurrent renders from many goroutines (run with -race).
func TestTemplateConcurrent(t *testing.T) {
	e := mustTemplate(t, TemplateConfig{Source: chatTemplate})
	want, err := e.Payload(&dataset.Turn{Texts: []string{"x"}, Model: "m"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				got, err := e.Payload(&dataset.Turn{Texts: []string{"x"}, Model: "m"}, nil)
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("got %s %v", got, err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkTemplateRender measures the per-request cost of a template body
// against the built-in chat body it imitates.
func BenchmarkTemplateRender(b *testing.B) {
	turn := &dataset.Turn{Texts: []string{strings.Repeat("lorem ipsum ", 50)}, Model: "m", MaxTokens: 100}
	for _, bc := range []struct {
		name string
		e    *Endpoint
	}{
		{"template-chat", mustTemplate(b, TemplateConfig{Source: chatTemplate})},
		{"template-nv-embedqa", mustTemplate(b, TemplateConfig{Source: "nv-embedqa"})},
		{"builtin-chat", mustLookup(b, "chat")},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.e.Payload(turn, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
