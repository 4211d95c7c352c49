package endpoint

import (
	"net/http"
	"testing"

	"github.com/aiperf-go/aiperf/dataset"
)

func TestKServeRequestGolden(t *testing.T) {
	hi := oneTurn(dataset.Turn{Texts: []string{"hi \"q\" é"}, Model: "m", MaxTokens: 100})
	two := oneTurn(dataset.Turn{Texts: []string{"a", "", "b"}, Model: "m"})
	extra := []Field{field("temperature", "0.5"), field("top_k", "4"), field("ignore_eos", "true"),
		field("bad_words", `""`), field("max_tokens", "9"), field("stop", `["x"]`)}
	vllm := func(o Options) *Options { o.Backend = BackendVLLM; return &o }
	checkRequestGolden(t, []requestCase{
		{"kserve_trtllm", "kserve", hi, 0, nil, nil},
		{"kserve_trtllm_default_max_tokens", "kserve", two, 0, nil, &Options{Backend: BackendTensorRTLLM}},
		{"kserve_trtllm_extra", "kserve", hi, 0, nil, &Options{Extra: extra}},
		{"kserve_trtllm_stream", "kserve", hi, 0, nil, &Options{Streaming: true, Extra: extra[:1]}},
		{"kserve_trtllm_turn_extra", "kserve", oneTurn(dataset.Turn{Texts: []string{"x"}, Model: "m",
			Extra: raw(`{"parameters":{"priority":1}}`)}), 0, nil, nil},
		{"kserve_vllm", "kserve", hi, 0, nil, vllm(Options{})},
		{"kserve_vllm_no_max_tokens_two_texts", "kserve", two, 0, nil, vllm(Options{Extra: extra[:2]})},
		{"kserve_vllm_stream", "kserve", hi, 0, nil, vllm(Options{Streaming: true})},
		{"generate", "generate", hi, 0, nil, nil},
		{"generate_stream_extra", "generate", two, 0, nil, &Options{Streaming: true, Extra: extra[:2]}},
	})
}

func TestTritonURLPath(t *testing.T) {
	for _, tc := range []struct {
		typ, model string
		streaming  bool
		want       string
	}{
		{"kserve", "ensemble", false, "/v2/models/ensemble/infer"},
		{"kserve", "ensemble", true, "/v2/models/ensemble/generate_stream"},
		{"generate", "llama 3/x", false, "/v2/models/llama%203%2Fx/generate"},
		{"generate", "m", true, "/v2/models/m/generate_stream"},
		{"chat", "m", false, "/v1/chat/completions"},
	} {
		if got := mustLookup(t, tc.typ).URLPath(tc.model, tc.streaming); got != tc.want {
			t.Errorf("%s URLPath(%q, %v) = %q, want %q", tc.typ, tc.model, tc.streaming, got, tc.want)
		}
	}
	h := http.Header{}
	mustLookup(t, "kserve").Authorize(h, "k")
	if h.Get("Authorization") != "Bearer k" {
		t.Errorf("headers %v", h)
	}
}

var tritonParseCases = []parseCase{
	{name: "infer body", endpoint: "kserve", ok: true, text: "Hello world",
		data: `{"model_name":"ensemble","model_version":"1","outputs":[{"name":"output_log_probs","datatype":"FP32","shape":[1],"data":[0.5]},{"name":"text_output","datatype":"BYTES","shape":[1],"data":["Hello world"]}]}`},
	{name: "infer body two strings", endpoint: "kserve", ok: true, text: "ab",
		data: `{"outputs":[{"name":"text_output","datatype":"BYTES","shape":[1,2],"data":["a","b"]}]}`},
	{name: "infer no text_output", endpoint: "kserve",
		data: `{"outputs":[{"name":"other","datatype":"INT32","shape":[1],"data":[1]}]}`},
	{name: "infer empty text", endpoint: "kserve", data: `{"outputs":[{"name":"text_output","data":[""]}]}`},
	{name: "infer data not strings", endpoint: "kserve", err: true, data: `{"outputs":[{"name":"text_output","data":[1]}]}`},
	{name: "infer outputs not array", endpoint: "kserve", err: true, data: `{"outputs":{}}`},
	{name: "infer output not object", endpoint: "kserve", err: true, data: `{"outputs":[1]}`},
	{name: "generate event", endpoint: "kserve", ok: true, text: " world",
		data: `{"model_name":"m","model_version":"1","text_output":" world"}`},
	{name: "generate body", endpoint: "generate", ok: true, text: "all of it",
		data: `{"model_name":"m","model_version":"1","text_output":"all of it"}`},
	{name: "generate empty event", endpoint: "generate", data: `{"model_name":"m","text_output":""}`},
	{name: "generate text not string", endpoint: "generate", err: true, data: `{"text_output":5}`},
	{name: "triton error", endpoint: "generate", err: true,
		data: `{"error":"Request for unknown model: 'x' is not found"}`},
	{name: "triton error infer", endpoint: "kserve", err: true, data: `{"error":"in ensemble 'ensemble', failed"}`},
	{name: "not object", endpoint: "kserve", err: true, data: `["x"]`},
}

func TestTritonParse(t *testing.T) { runParseCases(t, tritonParseCases) }

func TestTritonParseServerError(t *testing.T) {
	_, _, err := mustLookup(t, "kserve").Parse([]byte(`{"error":"model not ready"}`))
	se, ok := err.(*ServerError)
	if !ok || se.Message != "model not ready" {
		t.Fatalf("err = %#v, want *ServerError with the message", err)
	}
}

func TestExtraDatatype(t *testing.T) {
	for _, tc := range []struct{ in, dt, data string }{
		{"true", "BOOL", "true"},
		{"7", "INT32", "7"},
		{"-7", "INT32", "-7"},
		{"1e3", "FP32", "1e3"},
		{"0.5", "FP32", "0.5"},
		{"4294967296", "FP32", "4294967296"},
		{`"s"`, "BYTES", `"s"`},
		{`{"a": 1}`, "BYTES", `"{\"a\":1}"`},
		{`null`, "BYTES", `"null"`},
	} {
		dt, data := extraDatatype([]byte(tc.in))
		if dt != tc.dt || string(data) != tc.data {
			t.Errorf("extraDatatype(%s) = %s %s, want %s %s", tc.in, dt, data, tc.dt, tc.data)
		}
	}
}

func FuzzParseKServe(f *testing.F) {
	for _, tc := range tritonParseCases {
		f.Add([]byte(tc.data))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var st Stream
		fuzzCodec(t, mustLookup(t, "kserve"), &st, data)
	})
}

func FuzzParseTritonGenerate(f *testing.F) {
	for _, tc := range tritonParseCases {
		f.Add([]byte(tc.data))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var st Stream
		fuzzCodec(t, mustLookup(t, "generate"), &st, data)
	})
}
