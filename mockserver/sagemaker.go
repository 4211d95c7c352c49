package mockserver

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
)

// SageMaker runtime routes: POST /endpoints/{name}/invocations answers the
// model container's own response, and
// /endpoints/{name}/invocations-response-stream sends the container's
// stream (its SSE bytes) in PayloadPart events of an AWS event stream
// (application/vnd.amazon.eventstream), each write split over two frames
// at a byte boundary. The container is chosen by the body's shape:
// "messages" is OpenAI chat, "prompt" OpenAI completions, "inputs" TGI
// (streaming on the stream route), "input" OpenAI embeddings (invocations
// only). The endpoint name is not checked. With
// Config.SigV4 every request's signature is checked first.
func init() {
	routes = append(routes,
		route{"POST /endpoints/{name}/invocations", func(s *Server) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) { s.serveSageMaker(w, r, false) }
		}},
		route{"POST /endpoints/{name}/invocations-response-stream", func(s *Server) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) { s.serveSageMaker(w, r, true) }
		}})
}

// serveSageMaker serves one SageMaker invocation.
func (s *Server) serveSageMaker(w http.ResponseWriter, r *http.Request, stream bool) {
	body, ok := s.readAWSRequest(w, r)
	if !ok {
		return
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(body, &keys); err != nil {
		writeAWSError(w, http.StatusBadRequest, "ValidationException", "Received client error (400) from primary: body is not a JSON object")
		return
	}
	ep, sh := epChat, &chatShape
	switch {
	case keys["messages"] != nil:
	case keys["prompt"] != nil:
		ep, sh = epCompletions, &completionShape
	case keys["inputs"] != nil:
		ep, sh = epTGI, &tgiShape
		if stream {
			sh = &tgiStreamShape
		}
	case keys["input"] != nil && !stream:
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		s.serveEmbeddings(w, r)
		return
	default:
		writeAWSError(w, http.StatusBadRequest, "ValidationException", "Received client error (400) from primary: the mock's containers take messages, prompt, inputs or input (embeddings)")
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	if stream {
		w = newEventWriter(w, framePayloadPart)
	}
	s.serveGenerate(w, r, ep, sh)
}
