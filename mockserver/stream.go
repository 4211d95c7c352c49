package mockserver

import (
	"net/http"
	"time"
)

var (
	doneEvent      = []byte("data: [DONE]\n\n")
	malformedEvent = []byte("data: {not json\n\n")
)

// sse writes server-sent events, each flushed on its own.
type sse struct {
	w   http.ResponseWriter
	f   http.Flusher
	rec *recorder
	err error
}

// send records, writes and flushes one event; after a write error it does
// nothing and reports false.
func (e *sse) send(kind EventKind, tokens int, b []byte) bool {
	if e.err != nil {
		return false
	}
	e.rec.add(kind, tokens)
	if _, e.err = e.w.Write(b); e.err != nil {
		return false
	}
	if e.f != nil {
		e.f.Flush()
	}
	return true
}

// stream sends the response as server-sent events: the role chunk at once
// (chat), each token event at its deadline, then usage and [DONE]; a shape
// with a framer sends its own start, token and end events instead. A
// response of zero tokens still sends one (empty) event carrying the
// finish reason, at the TTFT deadline.
func (g *generation) stream(w http.ResponseWriter, r *http.Request) {
	s := g.s
	out := startSSE(w, g.rec)

	hp, bp := eventPool.Get().(*[]byte), eventPool.Get().(*[]byte)
	head := append((*hp)[:0], "data: "...)
	head = g.sh.appendHead(head, g.sh.chunkObject, g.seq, g.arrival.Unix(), g.req.Model)
	b := (*bp)[:0]
	defer func() {
		*hp, *bp = head[:0], b[:0]
		eventPool.Put(hp)
		eventPool.Put(bp)
	}()

	fr := g.sh.fr
	if fr != nil {
		if b = fr.start(b[:0], g); len(b) > 0 && !out.send(EventRole, 0, b) {
			return
		}
	} else if g.sh.chat && !s.cfg.NoRoleChunk {
		b = g.sh.appendChunkChoice(append(b[:0], head...), fieldRole, 0, 0, "")
		b = append(b, "]}\n\n"...)
		if !out.send(EventRole, 0, b) {
			return
		}
	}
	ctx := r.Context()
	tpc := s.cfg.TokensPerChunk
	sched := g.sched
	if sched.stallAt >= 0 {
		s.m.faults[faultStall].Add(1)
	}
	last := max(g.nEvents, 1) - 1
	for k := range last + 1 {
		at := g.arrival.Add(sched.nextDeadline())
		if !g.wait.until(ctx, s.done, at) {
			return
		}
		if k == sched.resetAt {
			s.m.faults[faultReset].Add(1)
			g.rec.add(EventReset, 0)
			reset(w)
			return
		}
		if k == sched.malformedAt {
			s.m.faults[faultMalformed].Add(1)
			if !out.send(EventMalformed, 0, malformedEvent) {
				return
			}
		}
		field, kind, from, count := fieldContent, EventContent, 0, 0
		switch {
		case k < g.rEvents:
			field, kind = fieldReasoning, EventReasoning
			from = k * tpc
			count = min(tpc, g.plan.reasoning-from)
			s.m.reasoningTokens.Add(uint64(count))
		case g.nEvents > 0:
			from = (k - g.rEvents) * tpc
			count = min(tpc, g.plan.content-from)
			s.m.contentTokens.Add(uint64(count))
			from += g.plan.reasoning
		}
		finish := ""
		if k == last {
			finish = g.plan.finish
		}
		if fr != nil {
			b = fr.token(b[:0], g, k, field, g.start+from, count, k == last)
		} else {
			b = g.sh.appendChunkChoice(append(b[:0], head...), field, g.start+from, count, finish)
			b = append(b, "]}\n\n"...)
		}
		if !out.send(kind, count, b) {
			return
		}
		s.engine.token(&g.er, count, at)
		if k == 0 {
			s.m.observeTTFT(time.Since(g.arrival))
		}
	}
	s.engine.finished(&g.er, g.plan.finish)
	if fr != nil {
		if b = fr.end(b[:0], g); len(b) > 0 {
			out.send(EventUsage, 0, b)
		}
		return
	}
	if !s.cfg.NoUsage && g.req.StreamOptions.IncludeUsage {
		b = append(append(b[:0], head...), `],"usage":`...)
		b = appendUsage(b, g.usage)
		b = append(b, "}\n\n"...)
		if !out.send(EventUsage, 0, b) {
			return
		}
	}
	out.send(EventDone, 0, doneEvent)
}
