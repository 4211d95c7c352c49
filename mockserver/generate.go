package mockserver

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// generation is one chat or completion request being answered.
type generation struct {
	s       *Server
	sh      *shape
	req     *request
	seq     uint64
	arrival time.Time
	plan    tokenPlan
	usage   usage
	start   int // first word of the cycle
	rec     *recorder
	sched   *schedule
	rEvents int // reasoning events
	nEvents int // token events
	wait    waiter
	er      engineReq // its state in the simulated vLLM engine
}

// serveGenerate answers POST /v1/chat/completions and /v1/completions, and
// the routes of the framed shapes (TGI, Responses, Anthropic), whose
// prompt texts and limits decodeRequest has put in req.texts and
// req.MaxTokens.
func (s *Server) serveGenerate(w http.ResponseWriter, r *http.Request, ep endpoint, sh *shape) {
	a, ok := s.admit(w, r, ep)
	if !ok {
		return
	}
	defer a.done()
	arrival, seq, rec, req := a.arrival, a.seq, a.rec, a.req
	texts, ids := req.chatTexts(), 0
	if sh.fr != nil {
		var err error
		if texts, err = sh.fr.prepare(req); err != nil {
			writeError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
			return
		}
	} else if !sh.chat {
		in, err := parseInputs(req.Prompt)
		if err != nil {
			writeError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
			return
		}
		texts, ids = in.texts, in.tokens
	}

	g := &generation{s: s, sh: sh, req: req, seq: seq, arrival: arrival, rec: rec}
	g.plan = s.cfg.planTokens(req, sh.chat || (sh.fr != nil && sh.fr.reasons()))
	g.usage = usage{prompt: s.countPrompt(texts) + ids, completion: g.plan.total(), reasoning: g.plan.reasoning}
	s.m.promptTokens.Add(uint64(g.usage.prompt))
	g.start = int(seq*97) & (words.n - 1)
	tpc := s.cfg.TokensPerChunk
	g.rEvents = (g.plan.reasoning + tpc - 1) / tpc
	g.nEvents = g.rEvents + (g.plan.content+tpc-1)/tpc
	g.sched = newSchedule(&s.cfg, seq, arrival, g.nEvents)

	if g.sched.errorFault {
		s.m.faults[faultError].Add(1)
		rec.add(EventError, 0)
		writeError(w, s.cfg.ErrorStatus, "server_error", "injected error")
		return
	}
	reserve := 0 // a non-streaming response holds its KV cache for the whole completion at once
	if !req.Stream {
		reserve = g.plan.total()
	}
	s.engine.start(&g.er, arrival, g.usage.prompt, reserve)
	defer s.engine.end(&g.er)
	if req.Stream {
		g.stream(w, r)
	} else {
		g.respond(w, r)
	}
}

// respond sends a non-streaming response when its last token is due.
func (g *generation) respond(w http.ResponseWriter, r *http.Request) {
	s := g.s
	ttft := g.sched.next
	at := g.arrival.Add(g.sched.lastDeadline(g.nEvents))
	if g.sched.stallAt >= 0 {
		s.m.faults[faultStall].Add(1)
	}
	if !g.wait.until(r.Context(), s.done, at) {
		return
	}
	if g.sched.resetAt >= 0 {
		s.m.faults[faultReset].Add(1)
		g.rec.add(EventReset, 0)
		reset(w)
		return
	}
	if g.sched.malformedAt >= 0 {
		s.m.faults[faultMalformed].Add(1)
		g.rec.add(EventMalformed, 0)
		writeJSON(w, http.StatusOK, []byte("{not json"))
		return
	}
	bp := eventPool.Get().(*[]byte)
	var b []byte
	if g.sh.fr != nil {
		b = g.sh.fr.body((*bp)[:0], g)
	} else {
		b = g.sh.appendHead((*bp)[:0], g.sh.object, g.seq, g.arrival.Unix(), g.req.Model)
		b = g.sh.appendBodyChoice(b, g.plan, g.start)
		b = append(b, ']')
		if !s.cfg.NoUsage {
			b = append(b, `,"usage":`...)
			b = appendUsage(b, g.usage)
		}
		b = append(b, '}')
	}
	s.m.contentTokens.Add(uint64(g.plan.content))
	s.m.reasoningTokens.Add(uint64(g.plan.reasoning))
	s.engine.body(&g.er, ttft, at, g.nEvents, g.plan.total(), g.plan.finish)
	g.rec.add(EventBody, g.plan.total())
	writeJSON(w, http.StatusOK, b)
	*bp = b
	eventPool.Put(bp)
}

// eventPool holds buffers for building events and bodies.
var eventPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// reset aborts the connection: with a TCP RST where the connection can be
// hijacked, else by aborting the handler (http.ErrAbortHandler), which
// closes it without ending the response.
func reset(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}
