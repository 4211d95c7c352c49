package runner

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/record"
)

// queueSize bounds the records waiting for processing.
const queueSize = 8192

// processed is a record with its computed metric values. Unless the raw
// export is on, the record keeps only its last response (keepLastResponse).
type processed struct {
	rec  *record.Record
	vals []metrics.RecordValue
}

// computed is a record waiting for the sink, with its values kept
// compactly: when 10,000 streams end together, thousands wait (issue 19).
type computed struct {
	rec  *record.Record
	vals *metrics.Values
}

// recordSink consumes processed records on one goroutine, in completion
// order (profile_export.jsonl, the accumulator, progress counters). p.vals
// is valid only during the call (the sink reuses its array): a consumer
// that keeps a record's values copies them (see cloneValues).
type recordSink func(p processed)

// pipeline moves finished records from the senders to the sink. Senders never
// wait on processing unless the bounded queue is full; each such wait is
// counted as back-pressure and reported. Records are never dropped.
type pipeline struct {
	in           chan *record.Record
	out          chan computed
	backpressure atomic.Int64
	computeWG    sync.WaitGroup
	sinkDone     chan struct{}
}

// startPipeline starts workers compute goroutines and the sink goroutine.
// Call close to flush and wait for them.
func startPipeline(workers int, compute func(*record.Record) *metrics.Values, sink recordSink) *pipeline {
	p := &pipeline{
		in:       make(chan *record.Record, queueSize),
		out:      make(chan computed, queueSize),
		sinkDone: make(chan struct{}),
	}
	for i := 0; i < max(workers, 1); i++ {
		p.computeWG.Add(1)
		go func() {
			defer p.computeWG.Done()
			for rec := range p.in {
				p.out <- computed{rec: rec, vals: compute(rec)}
			}
		}()
	}
	go func() {
		defer close(p.sinkDone)
		var vals []metrics.RecordValue
		for c := range p.out {
			vals = c.vals.Append(vals[:0])
			sink(processed{rec: c.rec, vals: vals})
			clear(vals) // no list or string outlives its record
		}
	}()
	return p
}

// submit hands a finished record over. It blocks only when the queue is
// full, and counts that.
func (p *pipeline) submit(rec *record.Record) {
	select {
	case p.in <- rec:
	default:
		p.backpressure.Add(1)
		p.in <- rec
	}
}

// close flushes every submitted record through the sink and waits for the
// pipeline's goroutines. No submit may follow.
func (p *pipeline) close() {
	close(p.in)
	p.computeWG.Wait()
	close(p.out)
	<-p.sinkDone
}

// keepLastResponse replaces a valid record's responses, once its metrics
// are computed, by a copy of the last one, which is all the sink's readers
// use (the run's validity: the response's time; Valid: one response, all
// times positive). The record then waits for the sink without its
// responses' array and texts: when 10,000 streams end together, thousands
// of records queue there (issue 19: ~1.7 KB each at 20 tokens). An invalid
// record keeps them all, so that Valid stays false.
func keepLastResponse(rec *record.Record) {
	if n := len(rec.Responses); n > 1 && rec.Valid() {
		rec.Responses = []record.Response{rec.Responses[n-1]}
	}
}

// cloneValues returns a copy of vals that shares nothing with it, for a
// consumer that keeps a record's values past the sink's call.
func cloneValues(vals []metrics.RecordValue) []metrics.RecordValue {
	out := slices.Clone(vals)
	for i := range out {
		out[i].List = slices.Clone(out[i].List)
	}
	return out
}
