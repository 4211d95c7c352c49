package mockserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/pyjson"
)

// Bedrock runtime routes, driven by the same generation engine (timing,
// token counts, faults) as the OpenAI routes:
//
//   - POST /model/{modelId}/converse answers a Converse body
//     ({"output":{"message":…},"stopReason","usage":{"inputTokens",
//     "outputTokens","totalTokens"},"metrics"}); /converse-stream sends
//     messageStart, one contentBlockDelta per token chunk
//     (reasoningContent deltas in block 0 first when there is reasoning),
//     contentBlockStop, messageStop and metadata (usage) events of an AWS
//     event stream.
//   - POST /model/{modelId}/invoke takes an Anthropic Messages body
//     (anthropic_version, no model) and answers the Anthropic message;
//     /invoke-with-response-stream sends each Anthropic stream event as
//     the base64 "bytes" of a "chunk" event.
//
// With Config.SigV4 every request's signature is checked first.
func init() {
	routes = append(routes,
		route{"POST /model/{model}/converse", func(s *Server) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) { s.serveConverse(w, r, false) }
		}},
		route{"POST /model/{model}/converse-stream", func(s *Server) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) { s.serveConverse(w, r, true) }
		}},
		route{"POST /model/{model}/invoke", func(s *Server) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) { s.serveInvokeModel(w, r, false) }
		}},
		route{"POST /model/{model}/invoke-with-response-stream", func(s *Server) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) { s.serveInvokeModel(w, r, true) }
		}})
}

// converseRequest is the part of a Converse body the mock reads.
type converseRequest struct {
	Messages []struct {
		Role    string `json:"role"`
		Content []struct {
			Text *string `json:"text"`
		} `json:"content"`
	} `json:"messages"`
	System []struct {
		Text string `json:"text"`
	} `json:"system"`
	InferenceConfig struct {
		MaxTokens *int `json:"maxTokens"`
	} `json:"inferenceConfig"`
}

// serveConverse serves Converse and ConverseStream: the body is rewritten
// as a chat request (system and message texts, maxTokens as max_tokens)
// for the generation engine, whose events converseFramer writes.
func (s *Server) serveConverse(w http.ResponseWriter, r *http.Request, stream bool) {
	body, ok := s.readAWSRequest(w, r)
	if !ok {
		return
	}
	var cr converseRequest
	if err := json.Unmarshal(body, &cr); err != nil || len(cr.Messages) == 0 {
		writeAWSError(w, http.StatusBadRequest, "ValidationException", "messages: a non-empty list of messages is required")
		return
	}
	b := append([]byte(`{"model":`), pyjson.AppendString(nil, r.PathValue("model"))...)
	b = append(b, `,"messages":[`...)
	n := 0
	add := func(role string, texts []string) {
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = append(b, `{"role":`...)
		b = pyjson.AppendString(b, role)
		b = append(b, `,"content":`...)
		b = pyjson.AppendString(b, strings.Join(texts, "\n"))
		b = append(b, '}')
	}
	if len(cr.System) > 0 {
		var texts []string
		for _, t := range cr.System {
			texts = append(texts, t.Text)
		}
		add("system", texts)
	}
	for _, m := range cr.Messages {
		var texts []string
		for _, c := range m.Content {
			if c.Text != nil {
				texts = append(texts, *c.Text)
			}
		}
		add(m.Role, texts)
	}
	b = append(b, ']')
	if cr.InferenceConfig.MaxTokens != nil {
		b = append(b, `,"max_tokens":`...)
		b = strconv.AppendInt(b, int64(*cr.InferenceConfig.MaxTokens), 10)
	}
	b = append(b, `,"stream":`...)
	b = strconv.AppendBool(b, stream)
	b = append(b, '}')
	r.Body = io.NopCloser(bytes.NewReader(b))
	r.ContentLength = int64(len(b))
	if stream {
		w = newEventWriter(w, frameEvents)
	}
	s.serveGenerate(w, r, epMessages, &converseShape)
}

// serveInvokeModel serves InvokeModel(WithResponseStream) with an
// Anthropic Messages body: the model (from the path) and stream members
// are added for the messages route's framer.
func (s *Server) serveInvokeModel(w http.ResponseWriter, r *http.Request, stream bool) {
	body, ok := s.readAWSRequest(w, r)
	if !ok {
		return
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		writeAWSError(w, http.StatusBadRequest, "ValidationException", "Malformed input request: body is not a JSON object")
		return
	}
	if string(m["anthropic_version"]) == "" {
		writeAWSError(w, http.StatusBadRequest, "ValidationException", "Malformed input request: #: required key [anthropic_version] not found")
		return
	}
	delete(m, "anthropic_version")
	m["model"] = pyjson.AppendString(nil, r.PathValue("model"))
	m["stream"] = json.RawMessage(strconv.FormatBool(stream))
	b, _ := json.Marshal(m)
	r.Body = io.NopCloser(bytes.NewReader(b))
	r.ContentLength = int64(len(b))
	if stream {
		w = newEventWriter(w, frameChunks)
	}
	s.serveGenerate(w, r, epMessages, &anthropicShape)
}
