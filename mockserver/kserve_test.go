package mockserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	ep "github.com/aiperf-go/aiperf/endpoint"
)

// tritonBodies are request bodies of the Triton routes, as aiperf's kserve
// and generate types send them (and in KServe's other legal forms).
var tritonBodies = []struct {
	name, path, body string
	stream           bool
	content          int // tokens in the answer
}{
	{"infer trtllm", "/v2/models/ensemble/infer",
		`{"inputs":[{"name":"text_input","datatype":"BYTES","shape":[1,1],"data":["be brief"]},{"name":"max_tokens","datatype":"INT32","shape":[1,1],"data":[7]},{"name":"exclude_input_in_output","datatype":"BOOL","shape":[1,1],"data":[true]}]}`,
		false, 7},
	{"infer nested data", "/v2/models/ensemble/infer",
		`{"inputs":[{"name":"text_input","datatype":"BYTES","shape":[1,1],"data":[["be brief"]]},{"name":"max_tokens","datatype":"INT32","shape":[1,1],"data":[[3]]}]}`,
		false, 3},
	{"infer vllm", "/v2/models/vllm_model/infer",
		`{"inputs":[{"name":"text_input","datatype":"BYTES","shape":[1],"data":["be brief"]},{"name":"exclude_input_in_output","datatype":"BOOL","shape":[1],"data":[true]},{"name":"sampling_parameters","datatype":"BYTES","shape":[1],"data":["{\"max_tokens\":\"4\"}"]}]}`,
		false, 4},
	{"infer default length", "/v2/models/m/infer",
		`{"inputs":[{"name":"text_input","datatype":"BYTES","shape":[1],"data":["x"]}]}`, false, 5},
	{"generate", "/v2/models/m/generate", `{"text_input":["be brief"],"max_tokens":6}`, false, 6},
	{"generate string", "/v2/models/m/generate", `{"text_input":"be brief","max_tokens":2}`, false, 2},
	{"generate_stream", "/v2/models/m/generate_stream", `{"text_input":["be brief"],"stream":true,"max_tokens":9}`, true, 9},
	{"generate_stream vllm", "/v2/models/m/generate_stream",
		`{"text_input":"be brief","exclude_input_in_output":true,"stream":true,"sampling_parameters":"{\"max_tokens\":\"3\"}"}`, true, 3},
}

// TestTritonRoutes posts each body and parses the answer with the
// endpoint type's parser: the text must hold the planned tokens, and the
// answer names the model of the URL.
func TestTritonRoutes(t *testing.T) {
	s := startServer(t, Config{OutputTokens: 5, TokensPerChunk: 2})
	e, err := ep.Lookup("kserve")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tritonBodies {
		t.Run(tc.name, func(t *testing.T) {
			resp := post(t, s, tc.path, "", tc.body)
			if resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, readAll(t, resp.Body))
			}
			if got := resp.Header.Get("Content-Type") == "text/event-stream"; got != tc.stream {
				t.Fatalf("streamed %v, want %v", got, tc.stream)
			}
			model := strings.Split(tc.path, "/")[3]
			var text strings.Builder
			for _, data := range framedEvents(t, resp.Body, tc.stream) {
				if !strings.Contains(data, `"model_name":"`+model+`"`) {
					t.Errorf("event %s names no model %q", data, model)
				}
				r, _, err := e.Parse([]byte(data))
				if err != nil {
					t.Fatalf("parse %s: %v", data, err)
				}
				text.WriteString(r.Text)
			}
			if n := o200kCount(t, text.String()); n != tc.content {
				t.Errorf("content %q: %d tokens, want %d", text.String(), n, tc.content)
			}
		})
	}
}

func TestTritonBadRequests(t *testing.T) {
	s := startServer(t, Config{})
	for _, tc := range []struct{ path, body string }{
		{"/v2/models/m/infer", `{"inputs":[{"name":"max_tokens","datatype":"INT32","shape":[1],"data":[3]}]}`},
		{"/v2/models/m/infer", `{"inputs":[{"name":"text_input","datatype":"BYTES","shape":[1],"data":[1]}]}`},
		{"/v2/models/m/infer", `{"inputs":[{"name":"text_input","data":["x"]},{"name":"max_tokens","data":[-1]}]}`},
		{"/v2/models/m/infer", `{"inputs":"a TGI prompt"}`},
		{"/v2/models/m/generate", `{"max_tokens":3}`},
		{"/v2/models/m/generate_stream", `{"text_input":"x","sampling_parameters":"{\"max_tokens\":\"many\"}"}`},
		{"/v2/models/m/generate", `{"text_input":{"a":1}}`},
	} {
		resp := post(t, s, tc.path, "", tc.body)
		body := readAll(t, resp.Body)
		var e struct{ Error string }
		if resp.StatusCode != 400 || json.Unmarshal(body, &e) != nil || e.Error == "" {
			t.Errorf("%s %s: status %d body %s; want 400 with Triton's {\"error\":…}", tc.path, tc.body, resp.StatusCode, body)
		}
	}
}

func TestTritonReadiness(t *testing.T) {
	s := startServer(t, Config{})
	for _, path := range []string{"/v2/health/ready", "/v2/health/live", "/v2/models/ensemble/ready", "/v2/models/ensemble"} {
		resp, err := http.Get("http://" + s.Addr() + path)
		if err != nil {
			t.Fatal(err)
		}
		body := readAll(t, resp.Body)
		if resp.StatusCode != 200 {
			t.Errorf("GET %s: %d", path, resp.StatusCode)
		}
		if path == "/v2/models/ensemble" && !strings.Contains(string(body), `"name":"ensemble"`) {
			t.Errorf("metadata %s", body)
		}
	}
}

// FuzzTritonRequest feeds arbitrary bodies to the Triton routes' request
// parsing, which must never panic and must give a non-negative limit.
func FuzzTritonRequest(f *testing.F) {
	for _, tc := range tritonBodies {
		f.Add([]byte(tc.body))
	}
	f.Add([]byte(`{"inputs":[{"name":"text_input","data":[[["x"]],"y"]}]}`))
	f.Add([]byte(`{"text_input":null,"sampling_parameters":"{}"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, route := range []int{tritonInfer, tritonGenerate, tritonGenerateStream} {
			r, err := decodeRequest(body)
			if err != nil {
				return
			}
			if _, err := (kserveFramer{model: "m", route: route}).prepare(r); err == nil && r.MaxTokens != nil && *r.MaxTokens < 0 {
				t.Fatalf("negative limit %d from %s", *r.MaxTokens, body)
			}
		}
	})
}
