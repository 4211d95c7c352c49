package runner

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// framedTypes are the endpoint types whose mock answers are framed by the
// mock's TGI, Responses and Anthropic framers, with whether they carry
// reasoning and server usage (streaming, non-streaming).
var framedTypes = []struct {
	typ                      string
	reasons                  bool
	streamUsage, statusUsage bool
}{
	{"huggingface_generate", false, true, false},
	{"responses", true, true, true},
	{"messages", true, true, true},
}

// TestFramedTypesTokenCountsExact runs each type against the mock, with
// several tokens per chunk and reasoning before content, and checks the
// client's token counts against the mock's plan and its usage, both
// counted on the client and taken from the server (--use-server-token-count).
func TestFramedTypesTokenCountsExact(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{TokensPerChunk: 3, OutputTokens: 20, ReasoningTokens: 7, ITL: time.Millisecond})
	for _, ft := range framedTypes {
		for _, streaming := range []bool{true, false} {
			for _, server := range []bool{false, true} {
				if server && !(streaming && ft.streamUsage || !streaming && ft.statusUsage) {
					continue
				}
				name := fmt.Sprintf("%s/streaming=%v/server-counts=%v", ft.typ, streaming, server)
				t.Run(name, func(t *testing.T) {
					cfg := testConfig(t, srv.URL())
					cfg.EndpointType, cfg.Streaming, cfg.UseServerTokenCount = ft.typ, streaming, server
					cfg.Concurrency, cfg.RequestCount, cfg.OSLMean = 2, 4, 20
					res := runOK(t, cfg)
					if res.Summary.Valid != 4 {
						t.Fatalf("%d valid, errors %+v", res.Summary.Valid, res.Summary.Errors)
					}
					// Anthropic reports no reasoning tokens: with server counts
					// the thinking counts as output, as in AIPerf.
					wantOut, wantReason, reasons := 20.0, 0.0, ft.reasons && !(server && ft.typ == "messages")
					if reasons {
						wantOut, wantReason = 13, 7
					}
					for _, r := range readRecords(t, cfg.ArtifactDir) {
						osl, _ := r.num("output_sequence_length")
						out, _ := r.num("output_token_count")
						reason, hasReason := r.num("reasoning_token_count")
						if osl != 20 || out != wantOut || reason != wantReason || hasReason != reasons {
							t.Fatalf("osl %v output %v reasoning %v (%v); want 20 = %v + %v", osl, out, reason, hasReason, wantOut, wantReason)
						}
						if usage, ok := r.num("usage_completion_tokens"); ok != (streaming && ft.streamUsage || !streaming && ft.statusUsage) || ok && usage != 20 {
							t.Fatalf("usage_completion_tokens %v (%v)", usage, ok)
						}
						// TGI reports no prompt tokens: with server counts there
						// is no ISL.
						isl, hasISL := r.num("input_sequence_length")
						prompt, hasPrompt := r.num("usage_prompt_tokens")
						if hasISL != (!server || ft.typ != "huggingface_generate") || hasISL && isl != 32 || hasPrompt && prompt != 32 {
							t.Fatalf("isl %v (%v), usage prompt %v; want 32", isl, hasISL, prompt)
						}
						_, hasTTFT := r.num("time_to_first_token")
						if hasTTFT != streaming {
							t.Fatalf("time_to_first_token present %v, streaming %v", hasTTFT, streaming)
						}
					}
				})
			}
		}
	}
}

// TestFramedTypesFailuresAreRecords checks that the mock's faults, and the
// error framings of each API (an `event: error` message, an error payload,
// a stream cut in the middle of an event), become error records, written
// in each layout as its AIPerf version does (see errWant): the default 1.4
// (0.13) and 1.0 (0.8).
func TestFramedTypesFailuresAreRecords(t *testing.T) {
	type errCase struct {
		name    string
		mock    mockserver.Config
		handler http.HandlerFunc // instead of the mock
		want    errWant
	}
	sse := func(body string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write([]byte(body))
		}
	}
	errorPayload := map[string]string{
		"huggingface_generate": `data:{"error":"Request failed during generation: Server error: CUDA out of memory","error_type":"generation"}` + "\n\n",
		"responses":            "data: {\"type\":\"error\",\"code\":\"server_error\",\"message\":\"boom\",\"param\":null}\n\n",
		"messages":             "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":3}}}\n\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
	}
	wantPayloadType := map[string]string{"huggingface_generate": "ServerError", "responses": "server_error", "messages": "overloaded_error"}
	for _, ft := range framedTypes {
		cases := []errCase{
			{"http 500", mockserver.Config{ErrorRate: 1, ErrorStatus: 500}, nil, httpErr(500, "Internal Server Error")},
			{"reset mid-stream", mockserver.Config{ResetRate: 1, OutputTokens: 10}, nil, resetStreamErr},
			{"malformed event", mockserver.Config{MalformedRate: 1, OutputTokens: 10}, nil, otherErr("ResponseParseError")},
			{"event error", mockserver.Config{}, sse("event: error\ndata: {\"type\":\"error\",\"error\":{\"message\":\"x\"}}\n\n"), eventErr},
			{"error payload", mockserver.Config{}, sse(errorPayload[ft.typ]), otherErr(wantPayloadType[ft.typ])},
			{"truncated stream", mockserver.Config{}, sse("data: {\"type\":\"ping\""), truncatedStreamErr},
		}
		for _, tc := range cases {
			for _, schema := range []string{"", "1.0"} {
				t.Run(ft.typ+"/"+tc.name+"/schema="+schemaName(schema), func(t *testing.T) {
					checkFailedRun(t, ft.typ, true, tc.mock, tc.handler, schema, tc.want)
				})
			}
		}
	}
}

// TestFramedTypesRequests checks the path and headers each type sends.
func TestFramedTypesRequests(t *testing.T) {
	type seen struct{ path, auth, key, version string }
	got := make(chan seen, 16)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusNotFound) // the run's /metrics probe
			return
		}
		got <- seen{r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("X-Api-Key"), r.Header.Get("Anthropic-Version")}
		w.WriteHeader(http.StatusBadRequest)
	}))
	t.Cleanup(hs.Close)
	for _, tc := range []struct {
		typ       string
		streaming bool
		want      seen
	}{
		{"huggingface_generate", false, seen{"/generate", "Bearer k", "", ""}},
		{"huggingface_generate", true, seen{"/generate_stream", "Bearer k", "", ""}},
		{"responses", true, seen{"/v1/responses", "Bearer k", "", ""}},
		{"messages", true, seen{"/v1/messages", "", "k", "2023-06-01"}},
	} {
		cfg := testConfig(t, hs.URL)
		cfg.EndpointType, cfg.Streaming, cfg.APIKey = tc.typ, tc.streaming, "k"
		cfg.RequestCount = 1
		_, _ = Run(context.Background(), cfg, Options{})
		select {
		case s := <-got:
			if s != tc.want {
				t.Errorf("%s streaming=%v: got %+v, want %+v", tc.typ, tc.streaming, s, tc.want)
			}
		default:
			t.Errorf("%s: no request", tc.typ)
		}
		for len(got) > 0 {
			<-got
		}
	}
}
