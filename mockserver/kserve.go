package mockserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/aiperf-go/aiperf/internal/pyjson"
)

// Triton's HTTP API as GenAI-Perf benchmarks it, on the same generation
// engine, timing, token plan and faults as chat:
//
//	POST /v2/models/{model}/infer            KServe v2: input tensors in,
//	                                         {"model_name",…,"outputs":[text_output]} out
//	POST /v2/models/{model}/generate         generate extension: flat JSON in,
//	                                         {"model_name",…,"text_output"} out
//	POST /v2/models/{model}/generate_stream  the same, one SSE event per token chunk
//	GET  /v2/health/ready, /v2/health/live, /v2/models/{model}/ready  200
//	GET  /v2/models/{model}                  model metadata
//
// Errors carry Triton's body, {"error":"…"}, injected faults included.

// Which Triton route a kserveFramer answers.
const (
	tritonInfer = iota
	tritonGenerate
	tritonGenerateStream
)

// kserveFramer frames the answers of one Triton route for the model named
// in its URL.
type kserveFramer struct {
	model string
	route int
}

func init() {
	handle := func(route int) func(s *Server) http.HandlerFunc {
		return func(s *Server) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				sh := &shape{fr: kserveFramer{model: r.PathValue("model"), route: route}}
				s.serveGenerate(&tritonErrors{ResponseWriter: w}, r, epKServe, sh)
			}
		}
	}
	ready := func(*Server) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) }
	}
	routes = append(routes,
		route{"POST /v2/models/{model}/infer", handle(tritonInfer)},
		route{"POST /v2/models/{model}/generate", handle(tritonGenerate)},
		route{"POST /v2/models/{model}/generate_stream", handle(tritonGenerateStream)},
		route{"GET /v2/health/ready", ready},
		route{"GET /v2/health/live", ready},
		route{"GET /v2/models/{model}/ready", ready},
		route{"GET /v2/models/{model}", func(*Server) http.HandlerFunc { return serveTritonModel }})
}

// serveTritonModel answers Triton's model metadata for any model name: an
// ensemble with TensorRT-LLM's main tensors.
func serveTritonModel(w http.ResponseWriter, r *http.Request) {
	b := append([]byte(`{"name":`), pyjson.AppendString(nil, r.PathValue("model"))...)
	b = append(b, `,"versions":["1"],"platform":"ensemble","inputs":[`+
		`{"name":"text_input","datatype":"BYTES","shape":[-1,1]},`+
		`{"name":"max_tokens","datatype":"INT32","shape":[-1,1]},`+
		`{"name":"stream","datatype":"BOOL","shape":[-1,1]}],`+
		`"outputs":[{"name":"text_output","datatype":"BYTES","shape":[-1,-1]}]}`...)
	writeJSON(w, http.StatusOK, b)
}

// tritonTensor is one KServe v2 input tensor of a request.
type tritonTensor struct {
	Name     string          `json:"name"`
	Datatype string          `json:"datatype"`
	Data     json.RawMessage `json:"data"`
}

// inputsField is a request's "inputs": TGI's prompt string or KServe v2's
// input tensors (JSON null leaves both unset).
type inputsField struct {
	text    *string
	tensors []tritonTensor
}

// UnmarshalJSON reads a string or an array of tensors.
func (f *inputsField) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case string(b) == "null":
		return nil
	case len(b) > 0 && b[0] == '[':
		return json.Unmarshal(b, &f.tensors)
	}
	f.text = new(string)
	return json.Unmarshal(b, f.text)
}

func (kserveFramer) reasons() bool { return false }

// prepare reads the prompt and limit: from the text_input and max_tokens
// or sampling_parameters tensors (infer), or from the same names as flat
// members (generate). The route decides streaming.
func (f kserveFramer) prepare(r *request) ([]string, error) {
	r.MaxCompletionTokens = nil
	r.Stream = f.route == tritonGenerateStream
	r.Model = f.model
	if f.route != tritonInfer {
		if r.TextInput == nil {
			return nil, errors.New("text_input: field required")
		}
		texts, err := tensorTexts(r.TextInput)
		if err != nil {
			return nil, fmt.Errorf("text_input: %w", err)
		}
		if r.MaxTokens == nil {
			r.MaxTokens, err = samplingMaxTokens(r.SamplingParameters)
		}
		return texts, err
	}
	if r.Inputs.tensors == nil {
		return nil, errors.New("inputs: input tensors required")
	}
	var texts []string
	seen := false
	r.MaxTokens = nil
	for _, t := range r.Inputs.tensors {
		var err error
		switch t.Name {
		case "text_input":
			seen = true
			texts, err = tensorTexts(t.Data)
		case "max_tokens":
			var n []int
			if err = json.Unmarshal(flatten(t.Data), &n); err == nil && len(n) > 0 {
				r.MaxTokens = &n[0]
			}
		case "sampling_parameters":
			var s []string
			if err = json.Unmarshal(flatten(t.Data), &s); err == nil && len(s) > 0 && r.MaxTokens == nil {
				r.MaxTokens, err = samplingMaxTokens(json.RawMessage(pyjson.AppendString(nil, s[0])))
			}
		}
		if err != nil {
			return nil, fmt.Errorf("input %s: %w", t.Name, err)
		}
	}
	if !seen {
		return nil, errors.New("input text_input: tensor required")
	}
	if r.MaxTokens != nil && *r.MaxTokens < 0 {
		return nil, fmt.Errorf("max tokens %d is negative", *r.MaxTokens)
	}
	return texts, nil
}

// tensorTexts reads a BYTES value: a string, or a (nested) list of them.
func tensorTexts(raw json.RawMessage) ([]string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return []string{s}, nil
	}
	var texts []string
	if err := json.Unmarshal(flatten(raw), &texts); err != nil {
		return nil, errors.New("must be a string or a list of strings")
	}
	return texts, nil
}

// flatten removes the inner brackets of a nested JSON array of scalars
// ([[1],[2]] → [1,2]), as KServe accepts data in either form.
func flatten(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '[' || !bytes.Contains(raw[1:len(raw)-1], []byte("[")) {
		return raw
	}
	var nested []json.RawMessage
	if json.Unmarshal(raw, &nested) != nil {
		return raw
	}
	out := []byte{'['}
	for i, n := range nested {
		if i > 0 {
			out = append(out, ',')
		}
		n = flatten(n)
		if len(n) > 1 && n[0] == '[' {
			n = n[1 : len(n)-1]
		}
		out = append(out, n...)
	}
	return append(out, ']')
}

// samplingMaxTokens reads max_tokens from vLLM's sampling_parameters, a
// JSON string holding an object whose max_tokens is a number or a numeric
// string (GenAI-Perf sends "N"); nil when absent.
func samplingMaxTokens(raw json.RawMessage) (*int, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, errors.New("sampling_parameters: must be a JSON string")
	}
	var sp struct {
		MaxTokens json.RawMessage `json:"max_tokens"`
	}
	if err := json.Unmarshal([]byte(s), &sp); err != nil {
		return nil, fmt.Errorf("sampling_parameters: %w", err)
	}
	if sp.MaxTokens == nil {
		return nil, nil
	}
	v := bytes.Trim(sp.MaxTokens, `"`)
	n, err := strconv.Atoi(string(v))
	if err != nil || n < 0 {
		return nil, fmt.Errorf("sampling_parameters: max_tokens %s is not a count", sp.MaxTokens)
	}
	return &n, nil
}

// appendTritonHead appends `{"model_name":…,"model_version":"1",`.
func (f kserveFramer) appendHead(b []byte) []byte {
	b = append(b, `{"model_name":`...)
	b = pyjson.AppendString(b, f.model)
	return append(b, `,"model_version":"1",`...)
}

func (kserveFramer) start(b []byte, _ *generation) []byte { return b }

// token appends `data: {"model_name":…,"model_version":"1","text_output":…}`.
func (f kserveFramer) token(b []byte, _ *generation, _, _, from, count int, _ bool) []byte {
	b = f.appendHead(append(b, "data: "...))
	b = append(b, `"text_output":"`...)
	b = words.appendTokens(b, from, count)
	return append(b, "\"}\n\n"...)
}

func (kserveFramer) end(b []byte, _ *generation) []byte { return b }

// body appends the infer response, or the generate one.
func (f kserveFramer) body(b []byte, g *generation) []byte {
	b = f.appendHead(b)
	if f.route != tritonInfer {
		b = append(b, `"text_output":"`...)
		b = words.appendTokens(b, g.start, g.plan.content)
		return append(b, `"}`...)
	}
	b = append(b, `"outputs":[{"name":"text_output","datatype":"BYTES","shape":[1],"data":["`...)
	b = words.appendTokens(b, g.start, g.plan.content)
	return append(b, `"]}]}`...)
}

// tritonErrors rewrites the OpenAI-style error bodies of the shared
// engine (writeError) into Triton's {"error":"message"}.
type tritonErrors struct {
	http.ResponseWriter
	failed bool
}

// WriteHeader drops the Content-Length of an error body, which changes.
func (w *tritonErrors) WriteHeader(status int) {
	if status >= 400 {
		w.failed = true
		w.Header().Del("Content-Length")
	}
	w.ResponseWriter.WriteHeader(status)
}

// Write passes b on, or Triton's form of an error body.
func (w *tritonErrors) Write(b []byte) (int, error) {
	if !w.failed {
		return w.ResponseWriter.Write(b)
	}
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(b, &e) != nil || e.Error.Message == "" {
		return w.ResponseWriter.Write(b)
	}
	out := append([]byte(`{"error":`), pyjson.AppendString(nil, e.Error.Message)...)
	if _, err := w.ResponseWriter.Write(append(out, '}')); err != nil {
		return 0, err
	}
	return len(b), nil
}

// Flush flushes the underlying writer (streamed events).
func (w *tritonErrors) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer (the reset
// fault hijacks the connection).
func (w *tritonErrors) Unwrap() http.ResponseWriter { return w.ResponseWriter }
