package endpoint

import (
	"encoding/json"
	"flag"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/dataset"
)

var update = flag.Bool("update", false, "rewrite testdata golden files from the code's output")

// escText exercises every escaping rule; the golden files were produced from
// the same string by Python's json.dumps(ensure_ascii=False,
// separators=(",", ":")), which escapes as orjson does.
const escText = "He said \"hi\" \\ back\nline2\r\ttab <b>&amp;</b> é 日本 🚀 \x01\x1f\x7f \u2028\u2029 \b\f"

func field(k, v string) Field { return Field{Key: k, Value: json.RawMessage(v)} }

func mustLookup(t testing.TB, name string) *Endpoint {
	t.Helper()
	e, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	if e.Name == "template" { // it needs a template; tests of none call Lookup
		if err := e.ConfigureTemplate(TemplateConfig{Source: "nv-embedqa"}); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func TestPayloadGolden(t *testing.T) {
	hello := []string{"Hello"}
	tests := []struct {
		golden   string
		endpoint string
		turn     dataset.Turn
		opts     *Options
	}{
		{"chat_basic", "chat", dataset.Turn{Texts: hello, Model: "mock-model"}, nil},
		{"chat_stream_max", "chat", dataset.Turn{Texts: hello, Model: "m", MaxTokens: 128}, &Options{Streaming: true}},
		{"chat_legacy", "chat", dataset.Turn{Texts: hello, Model: "m", MaxTokens: 64}, &Options{LegacyMaxTokens: true}},
		{"chat_legacy_stream", "chat", dataset.Turn{Texts: hello, Model: "m", MaxTokens: 64},
			&Options{LegacyMaxTokens: true, Streaming: true}},
		{"chat_multi_text", "chat", dataset.Turn{Texts: []string{"a", "", "b"}, Model: "m"}, nil},
		{"chat_role", "chat", dataset.Turn{Role: "system", Texts: []string{"Be brief."}, Model: "m"}, nil},
		{"chat_escape", "chat", dataset.Turn{Texts: []string{escText}, Model: "m\"odel"}, nil},
		{"chat_extra", "chat", dataset.Turn{Texts: hello, Model: "m", MaxTokens: 100}, &Options{Extra: []Field{
			field("max_completion_tokens", "10"), field("ignore_eos", "true"), field("stream", "true"),
			field("nvext", `{ "top_k": 5, "s": "x y" }`), field("ignore_eos", "false"),
		}}},
		{"chat_extra_new_key", "chat", dataset.Turn{Texts: hello, Model: "m"}, &Options{Streaming: true, Extra: []Field{
			field("max_tokens", "5"), field("stream_options", `{"include_usage":false}`),
		}}},
		{"chat_no_text", "chat", dataset.Turn{Model: "m"}, nil},
		{"completions_one", "completions", dataset.Turn{Texts: hello, Model: "m"}, nil},
		{"completions_batch_stream", "completions", dataset.Turn{Texts: []string{"a", "b"}, Model: "m", MaxTokens: 50},
			&Options{Streaming: true}},
		{"completions_escape", "completions", dataset.Turn{Texts: []string{escText}, Model: "m", MaxTokens: 1}, nil},
		{"completions_extra", "completions", dataset.Turn{Texts: hello, Model: "m"}, &Options{Extra: []Field{
			field("prompt", `"override"`), field("temperature", "0.7"),
		}}},
		{"embeddings", "embeddings", dataset.Turn{Texts: hello, Model: "e5", MaxTokens: 10}, &Options{Streaming: true}},
		{"embeddings_batch_extra", "embeddings", dataset.Turn{Texts: []string{"a", "b c", ""}, Model: "e5"},
			&Options{Extra: []Field{field("encoding_format", `"float"`), field("model", `"e6"`)}}},
	}
	for _, tc := range tests {
		t.Run(tc.golden, func(t *testing.T) {
			got, err := mustLookup(t, tc.endpoint).Payload(&tc.turn, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join("testdata", "payload", tc.golden+".json"), got)
		})
	}
}

func TestPayloadErrors(t *testing.T) {
	turn := &dataset.Turn{Texts: []string{"x"}, Model: "m"}
	if _, err := (&Endpoint{Name: "reranker"}).Payload(turn, nil); err == nil {
		t.Error("unknown endpoint: no error")
	}
	_, err := mustLookup(t, "chat").Payload(turn, &Options{Extra: []Field{field("bad", "{nope")}})
	if err == nil || !strings.Contains(err.Error(), `"bad"`) {
		t.Errorf("invalid extra: err = %v, want one naming the key", err)
	}
}

func BenchmarkPayload(b *testing.B) {
	e := mustLookup(b, "chat")
	turn := &dataset.Turn{Texts: []string{strings.Repeat("lorem ipsum dolor sit amet ", 200)}, Model: "m", MaxTokens: 100}
	opts := &Options{Streaming: true, Extra: []Field{field("ignore_eos", "true")}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Payload(turn, opts); err != nil {
			b.Fatal(err)
		}
	}
}
