package runner

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aiperf-go/aiperf/endpoint"
	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/record"
)

// counters are the live numbers the progress display reads.
type counters struct {
	phase     atomic.Value // record.Phase
	total     atomic.Int64 // expected requests in the phase (0: duration)
	completed atomic.Int64
	failed    atomic.Int64
	started   atomic.Int64 // monotonic ns of the phase start
	deadline  atomic.Int64 // duration of a duration-bound phase, ns
}

// execute runs the phases, processes the records, and writes the artifacts.
func (r *run) execute(ctx context.Context, ep *endpoint.Endpoint, arts *artifacts) (*Result, error) {
	specs, err := r.phaseSpecs()
	if err != nil {
		return nil, err
	}
	if err := arts.writeInputs(r.convs, r.payloads); err != nil {
		return nil, err
	}

	acc := metrics.NewAccumulator(r.mcfg)
	var live counters
	var sinkErr error
	sink := func(p processed) {
		if p.rec.Error != nil {
			live.failed.Add(1)
		}
		live.completed.Add(1)
		if p.rec.Phase != record.PhaseProfiling {
			return
		}
		acc.Add(p.rec, p.vals)
		if err := arts.writeRecord(p.rec, p.vals); err != nil && sinkErr == nil {
			sinkErr = err
		}
	}
	pipe := startPipeline(computeWorkers(), func(rec *record.Record) []metrics.RecordValue {
		return metrics.Compute(r.mcfg, rec)
	}, sink)

	prog := newProgress(r.cfg, r.opts, &live, r.clock)
	prog.start()

	res := &Result{Dir: arts.dir}
	var late lateness
	interrupted := false
	for _, spec := range specs {
		live.phase.Store(spec.phase)
		live.total.Store(int64(spec.count))
		live.completed.Store(0)
		live.failed.Store(0)
		live.started.Store(r.clock.Now())
		live.deadline.Store(int64(spec.duration))
		r.log.Debug("phase started", "phase", spec.phase, "requests", spec.count, "duration", spec.duration, "concurrency", spec.concurrency, "request_rate", spec.rate)
		dropped, err := r.runPhase(ctx, spec, pipe, &late)
		res.Dropped += dropped
		if err != nil {
			interrupted = true
			break
		}
	}
	prog.stop()
	pipe.close()
	res.Backpressure = pipe.backpressure.Load()
	res.LatenessNS = late.values
	if sinkErr != nil {
		return nil, sinkErr
	}
	if res.Backpressure > 0 {
		r.log.Warn("record processing fell behind; senders waited for the record queue", "times", res.Backpressure)
	}
	if res.Dropped > 0 {
		r.log.Warn("requests still in flight after the grace period were cancelled and left out", "count", res.Dropped)
	}

	res.Summary = acc.Summary(r.clock)
	res.Files, err = arts.finish(res.Summary, r.runInfo(ep, res.Summary, specs, interrupted), r.opts.Stdout)
	if err != nil {
		return res, err
	}
	switch {
	case interrupted:
		return res, ErrInterrupted
	case res.Summary.Valid == 0 && res.Summary.Failed > 0:
		return res, fmt.Errorf("%w: %d of %d requests failed (see the error summary above)", ErrAllFailed, res.Summary.Failed, res.Summary.Failed)
	}
	return res, nil
}

// runPhase issues the phase's credits and waits for its requests. Requests
// still running when the grace period ends are cancelled and not submitted;
// their number is returned. The error is non-nil only when ctx was cancelled.
func (r *run) runPhase(ctx context.Context, spec *phaseSpec, pipe *pipeline, late *lateness) (int, error) {
	sendCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if spec.duration > 0 && spec.grace >= 0 {
		t := time.AfterFunc(spec.duration+spec.grace, func() { cancel(errGraceExpired) })
		defer t.Stop()
	}
	var (
		mu      sync.Mutex
		dropped int
	)
	is := newIssuer(spec, r.clock)
	dispatch := func(ctx context.Context, c credit, slot int) {
		mu.Lock()
		conv := r.sampler.Next()
		mu.Unlock()
		rec := r.newRecord(spec, c, slot, conv)
		r.sender.send(ctx, rec, r.payloads[conv])
		if ctx.Err() != nil && rec.Error != nil {
			// Cancelled by the grace period or by the user: not a result.
			mu.Lock()
			dropped++
			mu.Unlock()
			return
		}
		pipe.submit(rec)
	}
	if spec.rate > 0 {
		runOpenLoop(sendCtx, is, spec, r.clock, late, dispatch)
	} else {
		runClosedLoop(sendCtx, is, spec.concurrency, dispatch)
	}
	r.requests += is.issued()
	if ctx.Err() != nil {
		return dropped, ctx.Err()
	}
	return dropped, nil
}
