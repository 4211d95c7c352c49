package telemetry

import "bytes"

// ServerDedup turns server metrics samples into the lines of
// server_metrics_export.jsonl (see AppendServerRecord), leaving out
// repeated snapshots: a scrape whose metrics equal the previous scrape's
// of the same endpoint is a duplicate.
//
// By default it keeps the first and the last record of each run of
// identical snapshots (A A A B B C D D D D → A A B B C D D), as AIPerf's
// server metrics JSONL writer did before 0.13: the last one shows how long
// the state lasted, so durations and time-weighted averages need no
// guessing. The final run's last record is only known at the end; Flush
// writes it. With FirstOnly, every duplicate is dropped (A B C D), as AIPerf
// 0.13 does.
//
// The zero value is ready to use. A ServerDedup is not safe for concurrent
// use; its memory is two records per endpoint.
type ServerDedup struct {
	// FirstOnly drops every duplicate, as AIPerf 0.13.
	FirstOnly bool
	order     []string
	eps       map[string]*dedupEndpoint
	scratch   []byte
}

// NewServerDedup returns a de-duplicator keeping the first and last record
// of each run of identical snapshots (the zero value does the same).
func NewServerDedup() *ServerDedup { return &ServerDedup{} }

// dedupEndpoint is one endpoint's last record.
type dedupEndpoint struct {
	line   []byte // the previous record
	mstart int    // where its metrics start
	dups   int    // duplicates of it not written
}

// Append appends the lines (each ending in '\n') that sample s adds to the
// file: none for a duplicate or a sample without usable families, one for a
// new snapshot, or two when a run of duplicates ends (its last record, then
// the new one). Samples of another Kind append nothing.
func (w *ServerDedup) Append(dst []byte, s Sample) []byte {
	if s.Kind != KindServer {
		return dst
	}
	rec, mstart := appendServerRecord(w.scratch[:0], s)
	w.scratch = rec
	if mstart < 0 {
		return dst
	}
	if w.eps == nil {
		w.eps = map[string]*dedupEndpoint{}
	}
	ep := w.eps[s.Source]
	if ep == nil {
		ep = &dedupEndpoint{}
		w.eps[s.Source] = ep
		w.order = append(w.order, s.Source)
	} else if bytes.Equal(ep.line[ep.mstart:], rec[mstart:]) {
		ep.dups++
		w.keep(ep, rec, mstart)
		return dst
	} else if ep.dups > 0 {
		if !w.FirstOnly {
			dst = append(append(dst, ep.line...), '\n')
		}
		ep.dups = 0
	}
	dst = append(append(dst, rec...), '\n')
	w.keep(ep, rec, mstart)
	return dst
}

// keep makes rec the endpoint's previous record, swapping buffers so that
// neither is reallocated.
func (w *ServerDedup) keep(ep *dedupEndpoint, rec []byte, mstart int) {
	ep.line, w.scratch = rec, ep.line
	ep.mstart = mstart
}

// Flush appends the last record of every endpoint's unfinished run of
// duplicates (nothing with FirstOnly), in the order the endpoints first
// appeared. Call it at the end; a later call writes only what came after.
func (w *ServerDedup) Flush(dst []byte) []byte {
	for _, url := range w.order {
		ep := w.eps[url]
		if ep.dups > 0 && !w.FirstOnly {
			dst = append(append(dst, ep.line...), '\n')
		}
		ep.dups = 0
	}
	return dst
}
