package mockserver

import "net/http"

// The answers of the routes outside the generation engine (embeddings,
// rankings, images, Solido): one-shot bodies, due when their last event
// would be, and event streams, with the schedule's faults applied the same
// way for every route.

// awaitOnce schedules a one-shot (non-streaming) answer to the admitted
// request a: it applies the error fault at once, then waits for its TTFT
// (plus any stall) and applies the other faults the schedule draws (see
// awaitBody). It reports whether the caller should now write its body;
// when false, the request has been answered or abandoned (the client went
// away, or the server closed).
func (s *Server) awaitOnce(w http.ResponseWriter, r *http.Request, a admitted) bool {
	sched := newSchedule(&s.cfg, a.seq, a.arrival, 1)
	if sched.errorFault {
		s.m.faults[faultError].Add(1)
		a.rec.add(EventError, 0)
		writeError(w, s.cfg.ErrorStatus, "server_error", "injected error")
		return false
	}
	if sched.stallAt >= 0 {
		s.m.faults[faultStall].Add(1)
	}
	return s.awaitBody(w, r, a, sched, 1)
}

// awaitBody waits until a body of events events is due under sched (its
// last event's deadline), then applies a reset or a malformed body when
// the schedule draws one. It reports whether the caller should now write
// the body; when false, the request has been answered or abandoned.
func (s *Server) awaitBody(w http.ResponseWriter, r *http.Request, a admitted, sched *schedule, events int) bool {
	var wt waiter
	if !wt.until(r.Context(), s.done, a.arrival.Add(sched.lastDeadline(events))) {
		return false
	}
	if s.resetDue(w, a.rec, sched, -1) {
		return false
	}
	if sched.malformedAt >= 0 {
		s.m.faults[faultMalformed].Add(1)
		a.rec.add(EventMalformed, 0)
		writeJSON(w, http.StatusOK, []byte("{not json"))
		return false
	}
	return true
}

// resetDue injects the connection reset due at event k: for a body
// (k < 0), any reset, else the one before event k. It reports whether the
// response is over.
func (s *Server) resetDue(w http.ResponseWriter, rec *recorder, sched *schedule, k int) bool {
	if sched.resetAt >= 0 && (k < 0 || k == sched.resetAt) {
		s.m.faults[faultReset].Add(1)
		rec.add(EventReset, 0)
		reset(w)
		return true
	}
	return false
}

// startSSE starts an event-stream response: its headers, status 200, and
// the writer of its events, each recorded in rec.
func startSSE(w http.ResponseWriter, rec *recorder) *sse {
	h := w.Header()
	h["Content-Type"] = sseType
	h["Cache-Control"] = noCache
	f, _ := w.(http.Flusher)
	w.WriteHeader(http.StatusOK)
	return &sse{w: w, f: f, rec: rec}
}

// awaitEvent waits (with wt) until event k of a's stream is due under
// sched, and applies the faults due before it: a reset, or a malformed
// event sent first. It reports whether the caller should now send event
// k; when false, the request is over.
func (s *Server) awaitEvent(w http.ResponseWriter, r *http.Request, a admitted, sched *schedule, out *sse, wt *waiter, k int) bool {
	if !wt.until(r.Context(), s.done, a.arrival.Add(sched.nextDeadline())) {
		return false
	}
	if s.resetDue(w, a.rec, sched, k) {
		return false
	}
	if k == sched.malformedAt {
		s.m.faults[faultMalformed].Add(1)
		if !out.send(EventMalformed, 0, malformedEvent) {
			return false
		}
	}
	return true
}
