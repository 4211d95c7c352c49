package endpoint

import (
	"net/http"
	"testing"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/record"
)

func TestTGIRequestGolden(t *testing.T) {
	extra := []Field{field("temperature", "0.5"), field("max_new_tokens", "9"), field("do_sample", "true")}
	checkRequestGolden(t, []requestCase{
		{"tgi_stream", "huggingface_generate", threeTurns, 1, nil, &Options{Streaming: true}},
		{"tgi_no_max_tokens", "huggingface_generate", oneTurn(dataset.Turn{Texts: []string{"a", "", "b \"q\" é"}, Model: "m"}), 0, nil, nil},
		{"tgi_extra_in_parameters", "huggingface_generate", oneTurn(dataset.Turn{Texts: []string{"hi"}, Model: "m", MaxTokens: 100,
			Extra: raw(`{"truncate":true}`)}), 0, nil, &Options{Extra: extra}},
		{"tgi_turn_extra_replaces_parameters", "huggingface_generate", oneTurn(dataset.Turn{Texts: []string{"hi"}, Model: "m", MaxTokens: 100,
			Extra: raw(`{"parameters":{"seed":1}}`)}), 0, nil, &Options{Extra: extra}},
	})
}

func TestTGIURLPath(t *testing.T) {
	e := mustLookup(t, "huggingface_generate")
	if e.URLPath("m", false) != "/generate" || e.URLPath("m", true) != "/generate_stream" {
		t.Errorf("paths %q %q", e.URLPath("m", false), e.URLPath("m", true))
	}
	if c := mustLookup(t, "chat"); c.URLPath("m", true) != "/v1/chat/completions" {
		t.Errorf("chat stream path %q", c.URLPath("m", true))
	}
	h := http.Header{}
	e.Authorize(h, "k")
	if h.Get("Authorization") != "Bearer k" {
		t.Errorf("headers %v", h)
	}
}

var tgiParseCases = []parseCase{
	{name: "tgi body", endpoint: "huggingface_generate", ok: true, text: "Hello world",
		data: `{"generated_text":"Hello world"}`},
	{name: "tgi body list", endpoint: "huggingface_generate", ok: true, text: "a",
		data: `[{"generated_text":"a"},{"generated_text":"b"}]`},
	{name: "tgi body details", endpoint: "huggingface_generate", ok: true, text: "x y",
		usage: &record.Usage{CompletionTokens: n(2)},
		data:  `{"generated_text":"x y","details":{"finish_reason":"length","generated_tokens":2,"seed":null}}`},
	{name: "tgi empty body", endpoint: "huggingface_generate", data: `{"generated_text":""}`},
	{name: "tgi empty list", endpoint: "huggingface_generate", data: `[]`},
	{name: "tgi stream token", endpoint: "huggingface_generate", ok: true, text: " world",
		data: `{"index":2,"token":{"id":1917,"text":" world","logprob":-0.1,"special":false},"generated_text":null,"details":null}`},
	{name: "tgi stream last event", endpoint: "huggingface_generate", ok: true, text: "!",
		usage: &record.Usage{CompletionTokens: n(3)},
		data:  `{"index":3,"token":{"id":0,"text":"!","logprob":0,"special":false},"generated_text":"Hello world!","details":{"finish_reason":"length","generated_tokens":3,"seed":null}}`},
	{name: "tgi special empty token", endpoint: "huggingface_generate",
		data: `{"index":4,"token":{"id":2,"text":"","special":true},"generated_text":"all of it","details":null}`},
	{name: "tgi error", endpoint: "huggingface_generate", err: true, data: `{"error":"Input validation error","error_type":"validation"}`},
	{name: "tgi token not object", endpoint: "huggingface_generate", err: true, data: `{"token":"x"}`},
	{name: "tgi not object", endpoint: "huggingface_generate", err: true, data: `"x"`},
}

func TestTGIParse(t *testing.T) { runParseCases(t, tgiParseCases) }

func FuzzParseTGI(f *testing.F) {
	for _, tc := range tgiParseCases {
		f.Add([]byte(tc.data))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var st Stream
		fuzzCodec(t, mustLookup(t, "huggingface_generate"), &st, data)
	})
}
