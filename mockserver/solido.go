package mockserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// The Solido RAG prompt API (aiperf's solido_rag endpoint type).
func init() {
	routes = append(routes, route{"POST /rag/api/prompt", func(s *Server) http.HandlerFunc { return s.serveSolido }})
}

// solidoRequest is the part of a Solido RAG request the server reads.
type solidoRequest struct {
	Query          []string `json:"query"`
	InferenceModel string   `json:"inference_model"`
	Stream         bool     `json:"stream"`
	MaxTokens      *int     `json:"max_tokens"`
}

// solidoSources are the retrieved documents every answer cites.
const solidoSources = `[{"document":"sde_user_guide.pdf","page":12,"score":0.91},{"document":"sde_release_notes.pdf","page":3,"score":0.74}]`

// serveSolido answers POST /rag/api/prompt: Config.OutputTokens words of
// content (max_tokens, when the body has it, instead), as
// server-sent events of {"content":…} (the first also carrying "sources")
// when the client accepts text/event-stream or the body asks "stream":true,
// else one {"content":…,"sources":[…]} body. Timing and faults follow the
// configuration as for chat; requests count as chat requests in the mock's
// metrics and do not drive the simulated vLLM engine. A query that is not a
// non-empty list of strings is a 400.
func (s *Server) serveSolido(w http.ResponseWriter, r *http.Request) {
	a, body, ok := s.admitRaw(w, r, epChat)
	if !ok {
		return
	}
	defer a.done()
	var req solidoRequest
	if err := json.Unmarshal(body, &req); err != nil || len(req.Query) == 0 {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "query must be a non-empty list of strings")
		return
	}
	s.m.promptTokens.Add(uint64(s.countPrompt(req.Query)))
	n := s.cfg.OutputTokens
	if req.MaxTokens != nil && *req.MaxTokens >= 0 {
		n = *req.MaxTokens
	}
	tpc := s.cfg.TokensPerChunk
	events := (n + tpc - 1) / tpc
	sched := newSchedule(&s.cfg, a.seq, a.arrival, events)
	if sched.errorFault {
		s.m.faults[faultError].Add(1)
		a.rec.add(EventError, 0)
		writeError(w, s.cfg.ErrorStatus, "server_error", "injected error")
		return
	}
	if sched.stallAt >= 0 {
		s.m.faults[faultStall].Add(1)
	}
	start := int(a.seq*97) & (words.n - 1)
	var wt waiter
	if !req.Stream && !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		if !s.awaitBody(w, r, a, sched, events) {
			return
		}
		b := append(words.appendTokens([]byte(`{"content":"`), start, n), `","sources":`+solidoSources+`}`...)
		s.m.contentTokens.Add(uint64(n))
		a.rec.add(EventBody, n)
		writeJSON(w, http.StatusOK, b)
		return
	}
	out := startSSE(w, a.rec)
	var b []byte
	for k := range max(events, 1) {
		if !s.awaitEvent(w, r, a, sched, out, &wt, k) {
			return
		}
		from, count := k*tpc, min(tpc, n-k*tpc)
		count = max(count, 0)
		b = words.appendTokens(append(b[:0], `data: {"content":"`...), start+from, count)
		b = append(b, '"')
		if k == 0 {
			b = append(b, `,"sources":`+solidoSources...)
		}
		b = append(b, "}\n\n"...)
		s.m.contentTokens.Add(uint64(count))
		if !out.send(EventContent, count, b) {
			return
		}
		if k == 0 {
			s.m.observeTTFT(time.Since(a.arrival))
		}
	}
}
