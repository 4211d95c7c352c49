package endpoint

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/internal/pyjson"
	"github.com/aiperf-go/aiperf/record"
)

// The Triton backends whose input tensors the kserve type sends
// (Options.Backend), as GenAI-Perf's --backend names them.
const (
	BackendTensorRTLLM = "tensorrtllm"
	BackendVLLM        = "vllm"
)

// Backends lists the valid Options.Backend values; the first is the default.
var Backends = []string{BackendTensorRTLLM, BackendVLLM}

// defaultTRTLLMMaxTokens is the max_tokens GenAI-Perf sends to a
// TensorRT-LLM model when no output length is set
// (DEFAULT_TENSORRTLLM_MAX_TOKENS).
const defaultTRTLLMMaxTokens = 256

// The model name in a path template; see Endpoint.URLPath.
const modelPlaceholder = "{model}"

// kserve is Triton's KServe v2 inference protocol as GenAI-Perf's
// `--service-kind triton --endpoint-type kserve` benchmarks it: POST
// /v2/models/{model}/infer with the backend's input tensors. GenAI-Perf
// streams over gRPC, which aiperf does not speak; a streaming run posts
// the same inputs, as flat JSON values, to Triton's generate_stream
// extension instead, which maps them onto the same tensors.
type kserve struct{}

// tritonGenerate is Triton's generate extension as GenAI-Perf's
// `--endpoint-type generate` benchmarks it: POST
// /v2/models/{model}/generate, or generate_stream when streaming.
type tritonGenerate struct{}

func init() {
	Register(Endpoint{Name: "kserve", Path: "/v2/models/{model}/infer",
		StreamPath: "/v2/models/{model}/generate_stream", Title: "LLM Metrics",
		SupportsStreaming: true, ProducesTokens: true, TokenizesInput: true}, kserve{})
	Register(Endpoint{Name: "generate", Path: "/v2/models/{model}/generate",
		StreamPath: "/v2/models/{model}/generate_stream", Title: "LLM Metrics",
		SupportsStreaming: true, ProducesTokens: true, TokenizesInput: true}, tritonGenerate{})
}

var (
	_ Codec = kserve{}
	_ Codec = tritonGenerate{}
)

// tensor is one KServe v2 input: its name, datatype and encoded data
// (one element, or a JSON array for several), in the order sent.
type tensor struct {
	name, datatype string
	data           []byte
	n              int // elements in data
}

// kserveTensors returns the input tensors GenAI-Perf's converter for
// backend gives turn t, --extra-inputs applied:
//
//	tensorrtllm: text_input BYTES (the first text), max_tokens INT32 (256
//	             when unset), exclude_input_in_output BOOL true, [stream
//	             BOOL true]
//	vllm:        text_input BYTES (every text), exclude_input_in_output
//	             BOOL true, [stream BOOL true], sampling_parameters BYTES
//	             `{"max_tokens":"N"}` (only when set)
//
// An extra field replaces the tensor of its name or adds one of the
// datatype its JSON value suggests (see extraDatatype).
func kserveTensors(t *dataset.Turn, backend string, streaming bool, extra []Field) []tensor {
	texts := nonEmpty(t.Texts)
	var ts []tensor
	switch backend {
	case BackendVLLM:
		if len(texts) == 0 {
			texts = []string{""}
		}
		data := pyjson.AppendString(nil, texts[0])
		if len(texts) > 1 {
			data = stringList(nil, texts)
		}
		ts = append(ts, tensor{"text_input", "BYTES", data, len(texts)},
			tensor{"exclude_input_in_output", "BOOL", []byte("true"), 1})
		if streaming {
			ts = append(ts, tensor{"stream", "BOOL", []byte("true"), 1})
		}
		if t.MaxTokens > 0 {
			sp := `{"max_tokens":"` + strconv.Itoa(t.MaxTokens) + `"}`
			ts = append(ts, tensor{"sampling_parameters", "BYTES", pyjson.AppendString(nil, sp), 1})
		}
	default:
		text := ""
		if len(texts) > 0 {
			text = texts[0]
		}
		maxTokens := t.MaxTokens
		if maxTokens <= 0 {
			maxTokens = defaultTRTLLMMaxTokens
		}
		ts = append(ts, tensor{"text_input", "BYTES", pyjson.AppendString(nil, text), 1},
			tensor{"max_tokens", "INT32", strconv.AppendInt(nil, int64(maxTokens), 10), 1},
			tensor{"exclude_input_in_output", "BOOL", []byte("true"), 1})
		if streaming {
			ts = append(ts, tensor{"stream", "BOOL", []byte("true"), 1})
		}
	}
	for _, f := range extra {
		v := bytes.TrimSpace(f.Value)
		if i := tensorIndex(ts, f.Key); i >= 0 {
			ts[i].data, ts[i].n = v, 1
			continue
		}
		dt, data := extraDatatype(v)
		ts = append(ts, tensor{f.Key, dt, data, 1})
	}
	return ts
}

func tensorIndex(ts []tensor, name string) int {
	for i := range ts {
		if ts[i].name == name {
			return i
		}
	}
	return -1
}

// extraDatatype returns the KServe datatype of an --extra-inputs value and
// its data: BOOL for true/false, INT32 for integers that fit, FP32 for
// other numbers, BYTES for strings, and BYTES holding the JSON text for
// objects, arrays and null (Triton takes structured parameters as JSON
// strings, as vLLM's sampling_parameters).
func extraDatatype(v []byte) (string, []byte) {
	s := string(v)
	switch {
	case s == "true" || s == "false":
		return "BOOL", v
	case len(s) > 0 && s[0] == '"':
		return "BYTES", v
	case len(s) > 0 && (s[0] == '-' || s[0] >= '0' && s[0] <= '9'):
		if n, err := strconv.ParseInt(s, 10, 32); err == nil {
			return "INT32", strconv.AppendInt(nil, n, 10)
		}
		return "FP32", v
	}
	if c, err := appendCompact(nil, v); err == nil {
		v = c
	}
	return "BYTES", pyjson.AppendString(nil, string(v))
}

// Members builds the infer request {"inputs":[{"name":…,"datatype":…,
// "shape":[…],"data":[…]},…]} of kserveTensors, or, when streaming, the
// generate_stream body of the same tensors as flat values plus
// "stream":true. The shapes are GenAI-Perf's: TensorRT-LLM's batched
// ensemble takes [1,1] (perf_analyzer's --shape text_input:1), vLLM's
// unbatched model [n]. The run's --extra-inputs become tensors (kserve is
// a runExtraOwner); the turn's Extra is merged at the top level. The
// system prompt, history, media and Messages are not sent.
func (kserve) Members(members []Member, t *dataset.Turn, c *Context, streaming bool) ([]Member, error) {
	backend := c.Options.Backend
	ts := kserveTensors(t, backend, streaming, c.Options.Extra)
	if streaming {
		for _, x := range ts {
			members = append(members, Member{x.name, x.data})
		}
		return members, nil
	}
	var b []byte
	b = append(b, '[')
	for i, x := range ts {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"name":`...)
		b = pyjson.AppendString(b, x.name)
		b = append(b, `,"datatype":"`...)
		b = append(b, x.datatype...)
		b = append(b, `","shape":[`...)
		if backend != BackendVLLM {
			b = append(b, "1,"...)
		}
		b = strconv.AppendInt(b, int64(x.n), 10)
		b = append(b, `],"data":`...)
		if x.n > 1 || (len(x.data) > 0 && x.data[0] == '[') {
			b = append(b, x.data...)
		} else {
			b = append(append(append(b, '['), x.data...), ']')
		}
		b = append(b, '}')
	}
	b = append(b, ']')
	return append(members, Member{"inputs", b}), nil
}

func (kserve) ownsRunExtra() {}

// Authorize sets "Authorization: Bearer <key>" when key is not empty
// (Triton has none of its own; a gateway in front of it may).
func (kserve) Authorize(h http.Header, key string) { bearer(h, key) }

// Parse reads an infer response, whose text is the data of its output
// named text_output (the strings joined), or a generate(_stream) body or
// event, {"text_output":…}. A Triton error {"error":"…"} gives a
// *ServerError; a response without text gives ok=false.
func (kserve) Parse(v *fastjson.Value) (resp record.Response, ok bool, err error) {
	return parseTriton(v)
}

// Members builds GenAI-Perf's generate body {"text_input":[texts],
// ["stream":true], ["max_tokens":N]}: text_input is the list of the
// turn's texts as GenAI-Perf sends it, stream is sent only when
// streaming, max_tokens only when set. --extra-inputs and the turn's
// Extra are merged at the top level.
func (tritonGenerate) Members(members []Member, t *dataset.Turn, _ *Context, streaming bool) ([]Member, error) {
	members = append(members, Member{"text_input", stringList(nil, nonEmpty(t.Texts))})
	if streaming {
		members = append(members, Member{"stream", []byte("true")})
	}
	if t.MaxTokens > 0 {
		members = append(members, Member{"max_tokens", strconv.AppendInt(nil, int64(t.MaxTokens), 10)})
	}
	return members, nil
}

// Authorize sets "Authorization: Bearer <key>" when key is not empty.
func (tritonGenerate) Authorize(h http.Header, key string) { bearer(h, key) }

// Parse reads a generate body or generate_stream event as kserve's Parse
// does.
func (tritonGenerate) Parse(v *fastjson.Value) (resp record.Response, ok bool, err error) {
	return parseTriton(v)
}

func bearer(h http.Header, key string) {
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
}

// parseTriton parses a KServe v2 infer response or a generate extension
// body or event (see kserve.Parse).
func parseTriton(v *fastjson.Value) (resp record.Response, ok bool, err error) {
	if v.Type() != fastjson.TypeObject {
		return resp, false, fmt.Errorf("endpoint: parse response: %s is not an object", v.Type())
	}
	if present(v.Get("error")) != nil {
		return resp, false, serverError(v)
	}
	outputs, err := array(v, "outputs")
	if err != nil {
		return resp, false, err
	}
	if outputs == nil {
		if resp.Text, err = str(v, "text_output"); err != nil {
			return resp, false, err
		}
		return resp, resp.Text != "", nil
	}
	for _, o := range outputs {
		if o.Type() != fastjson.TypeObject {
			return resp, false, fmt.Errorf("endpoint: parse response: output is %s, not an object", o.Type())
		}
		if name, _ := str(o, "name"); name != "text_output" {
			continue
		}
		data, err := array(o, "data")
		if err != nil {
			return resp, false, err
		}
		var sb strings.Builder
		for _, d := range data {
			s, err := d.StringBytes()
			if err != nil {
				return resp, false, fmt.Errorf("endpoint: parse response: text_output data: %w", err)
			}
			sb.Write(s)
		}
		resp.Text = sb.String()
		break
	}
	return resp, resp.Text != "", nil
}

// expandModel replaces the model placeholder of a path template with the
// model name, escaped as one path segment.
func expandModel(path, model string) string {
	if !strings.Contains(path, modelPlaceholder) {
		return path
	}
	return strings.ReplaceAll(path, modelPlaceholder, url.PathEscape(model))
}
