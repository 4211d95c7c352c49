package runner

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// tritonRuns are the Triton endpoint types and backends run against the
// mock: KServe v2 infer for both backends (generate_stream when
// streaming) and the generate extension.
var tritonRuns = []struct{ typ, backend string }{
	{"kserve", ""},
	{"kserve", "vllm"},
	{"generate", ""},
}

// TestTritonTokenCountsExact runs each Triton type against the mock and
// checks the client's token counts against the mock's plan: Triton
// reports no usage, so output and input are counted on the client.
func TestTritonTokenCountsExact(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{TokensPerChunk: 3, OutputTokens: 50, ITL: time.Millisecond})
	for _, tr := range tritonRuns {
		for _, streaming := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s-%s/streaming=%v", tr.typ, tr.backend, streaming), func(t *testing.T) {
				cfg := testConfig(t, srv.URL())
				cfg.EndpointType, cfg.Backend, cfg.Streaming = tr.typ, tr.backend, streaming
				cfg.Concurrency, cfg.RequestCount, cfg.OSLMean = 2, 4, 20
				res := runOK(t, cfg)
				if res.Summary.Valid != 4 {
					t.Fatalf("%d valid, errors %+v", res.Summary.Valid, res.Summary.Errors)
				}
				for _, r := range readRecords(t, cfg.ArtifactDir) {
					osl, _ := r.num("output_sequence_length")
					isl, _ := r.num("input_sequence_length")
					_, hasTTFT := r.num("time_to_first_token")
					if osl != 20 || isl != 32 || hasTTFT != streaming {
						t.Fatalf("osl %v isl %v ttft %v; want 20, 32, %v", osl, isl, hasTTFT, streaming)
					}
				}
			})
		}
	}
}

// TestTritonDefaultMaxTokens checks that kserve's TensorRT-LLM tensors
// carry GenAI-Perf's max_tokens 256 when no output length is set, which
// the mock honours.
func TestTritonDefaultMaxTokens(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{TokensPerChunk: 16, OutputTokens: 1000})
	cfg := testConfig(t, srv.URL())
	cfg.EndpointType, cfg.RequestCount = "kserve", 2
	runOK(t, cfg)
	for _, r := range readRecords(t, cfg.ArtifactDir) {
		if osl, _ := r.num("output_sequence_length"); osl != 256 {
			t.Fatalf("osl %v, want 256", osl)
		}
	}
}

// TestTritonFailuresAreRecords checks that the mock's faults (Triton's
// {"error":…} body), a Triton error event, a malformed event and a stream
// cut in the middle of an event become error records.
func TestTritonFailuresAreRecords(t *testing.T) {
	sse := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte(body))
		}
	}
	tritonError := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":"Request for unknown model: 'mock-model' is not found"}`))
	}
	for _, tc := range []struct {
		name      string
		typ       string
		streaming bool
		mock      mockserver.Config
		handler   http.HandlerFunc // instead of the mock
		want      errWant
	}{
		{"http 500 infer", "kserve", false, mockserver.Config{ErrorRate: 1, ErrorStatus: 500}, nil, httpErr(500, "Internal Server Error")},
		{"http 503 stream", "generate", true, mockserver.Config{ErrorRate: 1, ErrorStatus: 503}, nil, httpErr(503, "Service Unavailable")},
		{"http 400 triton body", "kserve", false, mockserver.Config{}, tritonError, httpErr(400, "Bad Request")},
		{"reset mid-stream", "kserve", true, mockserver.Config{ResetRate: 1, OutputTokens: 10}, nil, resetStreamErr},
		{"reset infer", "kserve", false, mockserver.Config{ResetRate: 1, OutputTokens: 10}, nil, resetErr},
		{"malformed event", "generate", true, mockserver.Config{MalformedRate: 1, OutputTokens: 10}, nil, otherErr("ResponseParseError")},
		{"malformed body", "kserve", false, mockserver.Config{MalformedRate: 1, OutputTokens: 10}, nil, otherErr("ResponseParseError")},
		{"error event", "kserve", true, mockserver.Config{}, sse("data: {\"error\":\"in ensemble 'ensemble', Executor failed\"}\n\n"), otherErr("ServerError")},
		{"truncated stream", "generate", true, mockserver.Config{}, sse(`data: {"model_name":"m","text_output":"a`), truncatedStreamErr},
	} {
		for _, schema := range []string{"", "1.0"} {
			t.Run(tc.name+"/schema="+schemaName(schema), func(t *testing.T) {
				checkFailedRun(t, tc.typ, tc.streaming, tc.mock, tc.handler, schema, tc.want)
			})
		}
	}
}

// TestTritonMockErrorBody checks that the mock answers a fault with
// Triton's error body.
func TestTritonMockErrorBody(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{ErrorRate: 1, ErrorStatus: 500})
	resp, err := http.Post(srv.URL()+"/v2/models/m/generate", "application/json", strings.NewReader(`{"text_input":"hi"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 500 || string(b) != `{"error":"injected error"}` {
		t.Fatalf("status %d body %s", resp.StatusCode, b)
	}
}

// TestTritonRequests checks the path, headers and body each type and
// backend sends.
func TestTritonRequests(t *testing.T) {
	type seen struct{ path, auth, body string }
	got := make(chan seen, 16)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusNotFound) // the run's /metrics probe
			return
		}
		b, _ := io.ReadAll(r.Body)
		got <- seen{r.URL.EscapedPath(), r.Header.Get("Authorization"), string(b)}
		w.WriteHeader(http.StatusBadRequest)
	}))
	t.Cleanup(hs.Close)
	for _, tc := range []struct {
		typ, backend string
		streaming    bool
		path, body   string // body: a part the body must hold
	}{
		{"kserve", "", false, "/v2/models/my%20model/infer", `{"name":"max_tokens","datatype":"INT32","shape":[1,1],"data":[7]}`},
		{"kserve", "tensorrtllm", true, "/v2/models/my%20model/generate_stream", `"max_tokens":7,"exclude_input_in_output":true,"stream":true}`},
		{"kserve", "vllm", false, "/v2/models/my%20model/infer", `{"name":"sampling_parameters","datatype":"BYTES","shape":[1],"data":["{\"max_tokens\":\"7\"}"]}`},
		{"kserve", "vllm", true, "/v2/models/my%20model/generate_stream", `"stream":true,"sampling_parameters":"{\"max_tokens\":\"7\"}"}`},
		{"generate", "", false, "/v2/models/my%20model/generate", `"max_tokens":7}`},
		{"generate", "", true, "/v2/models/my%20model/generate_stream", `"stream":true,"max_tokens":7}`},
	} {
		cfg := testConfig(t, hs.URL)
		cfg.Models = []string{"my model"}
		cfg.EndpointType, cfg.Backend, cfg.Streaming, cfg.APIKey = tc.typ, tc.backend, tc.streaming, "k"
		cfg.RequestCount, cfg.OSLMean = 1, 7
		cfg.Tokenizer = "builtin" // the model name is no tokenizer
		_, _ = Run(context.Background(), cfg, Options{})
		select {
		case s := <-got:
			if s.path != tc.path || s.auth != "Bearer k" || !strings.Contains(s.body, tc.body) {
				t.Errorf("%s/%s streaming=%v: got %+v, want path %s and body with %s", tc.typ, tc.backend, tc.streaming, s, tc.path, tc.body)
			}
		default:
			t.Errorf("%s: no request", tc.typ)
		}
		for len(got) > 0 {
			<-got
		}
	}
}

// TestTritonValidate checks the --service-kind and --backend mapping and
// its exit-2 problems.
func TestTritonValidate(t *testing.T) {
	for _, tc := range []struct {
		name       string
		kind, typ  string
		backend    string
		typeSet    bool
		models     []string
		batch      int
		wantType   string
		wantErrSub string // "" = valid
	}{
		{name: "triton defaults to kserve", kind: "Triton", typ: "chat", wantType: "kserve"},
		{name: "triton vllm", kind: "triton", typ: "chat", backend: "VLLM", wantType: "kserve"},
		{name: "triton generate", kind: "triton", typ: "generate", typeSet: true, wantType: "generate"},
		{name: "openai keeps chat", kind: "openai", typ: "chat", wantType: "chat"},
		{name: "generate alone", typ: "generate", typeSet: true, wantType: "generate"},
		{name: "triton chat", kind: "triton", typ: "chat", typeSet: true, wantErrSub: "--service-kind triton works with --endpoint-type kserve"},
		{name: "openai kserve", kind: "openai", typ: "kserve", typeSet: true, wantErrSub: "use --service-kind triton"},
		{name: "grpc", kind: "dynamic_grpc", typ: "chat", wantErrSub: "not supported: aiperf speaks HTTP only"},
		{name: "engine", kind: "tensorrtllm_engine", typ: "chat", wantErrSub: "not supported"},
		{name: "unknown kind", kind: "tgi", typ: "chat", wantErrSub: `--service-kind "tgi" is not valid`},
		{name: "bad backend", kind: "triton", backend: "tensorrtllm_engine", typ: "chat", wantErrSub: `--backend "tensorrtllm_engine" is not valid`},
		{name: "backend without kserve", backend: "vllm", typ: "chat", wantErrSub: "--backend applies only to --endpoint-type kserve"},
		{name: "two models", kind: "triton", typ: "chat", models: []string{"a", "b"}, wantErrSub: "give one --model"},
		{name: "batch", kind: "triton", typ: "chat", batch: 2, wantErrSub: "--prompt-batch-size 2 is not supported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, "localhost:8000")
			cfg.ServiceKind, cfg.EndpointType, cfg.Backend = tc.kind, tc.typ, tc.backend
			if tc.typeSet {
				cfg.FlagsSet = append(cfg.FlagsSet, "endpoint-type")
			}
			if tc.models != nil {
				cfg.Models = tc.models
			}
			if tc.batch > 0 {
				cfg.PromptBatchSize = tc.batch
			}
			cfg.ApplyServiceKind()
			err := cfg.Validate()
			if tc.wantErrSub == "" {
				if err != nil || cfg.EndpointType != tc.wantType {
					t.Fatalf("type %q err %v; want %q, nil", cfg.EndpointType, err, tc.wantType)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErrSub) {
				t.Fatalf("err = %v, want one containing %q", err, tc.wantErrSub)
			}
		})
	}
}
