package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/aiperf-go/aiperf/endpoint"
	"github.com/aiperf-go/aiperf/export"
	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/metrics/timeslice"
	"github.com/aiperf-go/aiperf/record"
	"github.com/aiperf-go/aiperf/sink"
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
	gates, err := r.thresholds()
	if err != nil {
		return nil, err
	}
	if err := arts.writeInputs(ctx, r.convs, r.storedPayloads); err != nil {
		return nil, err
	}
	r.log.Info("inputs ready", "conversations", len(r.convs), "prepared_in", time.Since(r.clock.Origin()).Round(time.Millisecond))
	if r.opts.InputsReady != nil {
		r.opts.InputsReady()
	}
	identityHeader := r.sender.header.Clone()
	identityHeader.Del("Content-Type")
	tel, err := r.startTelemetry(ctx, arts, identityHeader)
	if err != nil {
		return nil, err
	}
	r.tel = tel

	acc := metrics.NewAccumulator(r.mcfg)
	var live counters
	var sinkErr error
	var valid validityTracker
	perURL := newURLTally(r.sender.urls)
	var slices *timeslice.Accumulator
	if r.cfg.SliceDuration > 0 {
		slices = timeslice.New(r.mcfg, r.cfg.SliceDuration, 0)
	}
	prog := newProgress(r.cfg, r.opts, &live, r.clock)
	stab := newStabilityTracker(r.cfg.Stability, nil) // stops the sending once stable (stability.go)
	consume := func(p processed) {
		prog.observe(p.rec, p.vals)
		if cur, _ := live.phase.Load().(record.Phase); p.rec.Phase == cur {
			if p.rec.Error != nil {
				live.failed.Add(1)
			}
			live.completed.Add(1)
		}
		if p.rec.Phase != record.PhaseProfiling {
			return
		}
		valid.add(p.rec)
		perURL.add(p.rec)
		acc.Add(p.rec, p.vals)
		stab.add(p, r.profStart.Load())
		if slices != nil {
			slices.Add(p.rec, p.vals)
		}
		if err := arts.writeRecord(p.rec, p.vals); err != nil && sinkErr == nil {
			sinkErr = err
		}
	}
	keepResponses := arts.writesResponses()
	pipe := startPipeline(computeWorkers(), func(rec *record.Record) *metrics.Values {
		countInput(r.mcfg.Tokenizer, rec)
		vals := metrics.ComputeValues(r.mcfg, rec)
		if !keepResponses {
			keepLastResponse(rec)
		}
		return vals
	}, consume)

	prog.startContext(ctx)

	res := &Result{}
	runStart := r.clock.Now()
	startUsage := processUsage()
	late := lateness{prog: prog}
	phases := make([]*phaseRun, len(specs))
	var dropped, cancelled atomic.Int64
	// A dead target (see failureWindow) stops the sending, not the run:
	// what was recorded is still processed and stored.
	sendCtx, stopSending := context.WithCancelCause(ctx)
	defer stopSending(nil)
	failures := newFailureWindow(r.cfg.FailureWindow, r.clock, func() { stopSending(errTargetDown) })
	if stab != nil {
		stab.stop = func() { stopSending(errStable) }
	}
	for i, spec := range specs {
		ph, stop := r.startPhase(sendCtx, spec, pipe, &live, &inflight{dropped: &dropped, cancelled: &cancelled}, prog, failures)
		defer stop()
		phases[i] = ph
	}
	// Collect the dataset build's garbage now rather than in the first
	// scheduled sends.
	runtime.GC()
	r.runPhases(phases, &late)
	if r.startErr != nil { // the shards' common start failed: nothing was profiled
		prog.stop()
		pipe.close()
		_, _ = tel.finish(ctx, r.clock.Now())
		return nil, r.startErr
	}
	// From here on, stores are bounded by --shutdown-grace after a signal
	// (see storeContext), not cut off by it.
	storeCtx, release := storeContext(ctx, r.cfg.ShutdownGrace)
	defer release()
	telRes, telErr := tel.finish(ctx, r.clock.Now())
	res.Dropped = int(dropped.Load())
	res.Cancelled = int(cancelled.Load())
	interrupted := ctx.Err() != nil
	targetDown := failures.tripped()
	if interrupted {
		targetDown = "" // the user stopped it first, or as well
	}
	prog.stop()
	pipe.close()
	res.Backpressure = pipe.backpressure.Load()
	res.LatenessNS = late.values
	if sinkErr != nil {
		return nil, sinkErr
	}
	if telErr != nil {
		// The records are whole; only telemetry samples were not stored.
		r.log.Error("telemetry samples could not be written to the store", "error", telErr)
		telRes.WriteError = telErr.Error()
	}
	if res.Backpressure > 0 {
		r.log.Warn("record processing fell behind; senders waited for the record queue", "times", res.Backpressure)
	}
	if res.Dropped > 0 {
		r.log.Warn("requests in flight when sending stopped (grace period over, target down, or stability reached) were cancelled and left out", "count", res.Dropped)
	}
	if res.Cancelled > 0 {
		r.log.Warn("requests in flight when the run was interrupted were cancelled and recorded as CancelledError", "count", res.Cancelled)
	}
	if targetDown != "" {
		// Info, for the log file: the run returns the verdict, which the
		// command prints, so the console says it once.
		r.log.Info("target down: sending stopped", "reason", targetDown)
	}

	elapsed := time.Duration(r.clock.Now() - runStart)
	r.logFinish(res, elapsed)
	if s := r.profStart.Load(); s > 0 {
		acc.SetPhaseStart(s)
	}
	res.Summary = acc.Summary(r.clock)
	if res.Stability = stab.finish(r.clock.Now()); res.Stability != nil {
		r.logStability(res.Stability)
		if s := stab.summary(r.mcfg, r.clock); s != nil {
			res.Summary = s
		}
	}
	u := processUsage()
	res.Validity = valid.result(r.cfg, res.LatenessNS, elapsed, u.user+u.sys-startUsage.user-startUsage.sys)
	if res.Validity.Degraded {
		r.log.Warn("run degraded", "reasons", res.Validity.Reasons)
	}
	status, reason := sink.StatusComplete, ""
	switch {
	case interrupted:
		status = sink.StatusInterrupted
	case targetDown != "":
		status, reason = sink.StatusFailed, "target down: "+targetDown
	case res.Summary.Valid == 0 && res.Summary.Failed > 0:
		status, reason = sink.StatusFailed, allFailedReason(res.Summary)
	}
	manifest := &sink.Manifest{
		Status: status, Reason: reason, Start: r.clock.Origin(),
		Tool:           sink.Tool{Name: "aiperf-go", Version: r.opts.Version, Commit: r.opts.Commit},
		Config:         r.buildInputConfig(specs),
		Labels:         r.cfg.LabelMap(),
		Validity:       res.Validity,
		Shard:          r.shardInfo(),
		ArtifactSchema: r.cfg.OutputSchema,
	}
	if s := r.profStart.Load(); s > 0 {
		manifest.ProfilingStartNS = r.clock.Wall(s)
	}
	// A store that fails here (timeslices, telemetry) does not keep the
	// records from being delivered, or spooled, by finish.
	var early []error
	if slices != nil {
		early = append(early, r.writeTimeslices(storeCtx, arts, slices, specs))
	}
	info := r.runInfo(ep, res.Summary, specs, interrupted)
	info.Validity = res.Validity
	info.URLs = perURL.summary()
	if telRes != nil {
		early = append(early, r.writeTelemetry(storeCtx, arts, telRes, manifest, info, res.Summary))
	}
	// The verdict is judged whatever the run's status, and stored before
	// the manifest that lists it.
	res.Verdict, err = r.judge(storeCtx, arts, gates, res.Summary, manifest.Status)
	early = append(early, err)
	if err := errors.Join(early...); err != nil && manifest.Status == sink.StatusComplete {
		manifest.Status, manifest.Reason = sink.StatusFailed, "storage: "+err.Error()
	}
	res.Files, err = arts.finish(storeCtx, res.Summary, info, r.opts.Stdout, manifest)
	if err := errors.Join(append(early, err)...); err != nil {
		r.printVerdict(res.Verdict)
		return res, err
	}
	if r.opts.Stdout != nil {
		if res.Stability != nil {
			fmt.Fprintln(r.opts.Stdout, "Stability: "+res.Stability.String())
		}
		for _, line := range append(perURL.consoleLines(), res.Validity.consoleLines()...) {
			fmt.Fprintln(r.opts.Stdout, line)
		}
		if targetDown != "" {
			fmt.Fprintf(r.opts.Stdout, "Run STOPPED, target down: %s. Set --failure-window 0 to keep sending to a failing target.\n", targetDown)
		}
	}
	r.printVerdict(res.Verdict)
	switch {
	case interrupted:
		return res, ErrInterrupted
	case targetDown != "":
		return res, fmt.Errorf("%w: %s; the results so far were written (--failure-window 0 turns this check off)", ErrTargetDown, targetDown)
	case res.Summary.Valid == 0 && res.Summary.Failed > 0:
		return res, fmt.Errorf("%w: all %d requests failed (see the error summary above)", ErrAllFailed, res.Summary.Failed)
	}
	return res, nil
}

// inflight counts the requests that were in flight when their phase's
// context was cancelled.
type inflight struct {
	// dropped: cancelled by the grace period or the failure window, and
	// left out of the results, as AIPerf does.
	dropped *atomic.Int64
	// cancelled: cancelled by an interrupt (ctx), and recorded as
	// CancelledError.
	cancelled *atomic.Int64
}

// startPhase prepares a phase whose request numbers start at offset. Its
// context is cancelled when the grace period after its duration ends;
// requests cancelled then (or when the target is down) are left out of the
// results and counted as dropped. A request in flight when ctx is cancelled
// (an interrupt) becomes a CancelledError record; one that had not been
// sent is left out. Every request that finishes is shown to failures.
// stop releases the phase's timer and context.
func (r *run) startPhase(ctx context.Context, spec *phaseSpec, pipe *pipeline, live *counters, counts *inflight, prog *progress, failures *failureWindow) (*phaseRun, func()) {
	sendCtx, cancel := context.WithCancelCause(ctx)
	var grace *time.Timer
	onStart := func() {
		live.phase.Store(spec.phase)
		live.total.Store(int64(spec.count))
		live.completed.Store(0)
		live.failed.Store(0)
		live.started.Store(r.clock.Now())
		live.deadline.Store(int64(spec.duration))
		if spec.phase == record.PhaseProfiling {
			r.tel.profilingStarted(live.started.Load())
			r.profStart.Store(live.started.Load())
		}
		if spec.duration > 0 && spec.grace >= 0 {
			grace = time.AfterFunc(spec.duration+spec.grace, func() { cancel(errGraceExpired) })
		}
		r.log.Debug("phase started", "phase", spec.phase, "requests", spec.count, "duration", spec.duration, "concurrency", spec.concurrency, "request_rate", spec.rate)
	}
	ph := &phaseRun{spec: spec, ctx: sendCtx, is: newIssuer(spec, r.clock, onStart)}
	ph.openSession = func() *session { return r.newSession(spec.phase) }
	ph.newSession = func() *session {
		if !ph.is.startSession() {
			return nil
		}
		return ph.openSession()
	}
	r.shardPhase(ph)
	prefill := newLimiter(spec.prefill, spec.prefillRamp)
	// A turn's end, once its response is read: the session advances, and
	// the record goes to the results (see turn).
	end := func(t *turn) string {
		if t.sent {
			prog.sendEnd()
		}
		ctx, rec, s := t.ctx, t.rec, t.s
		r.finishTurn(s, rec)
		if s.done() {
			r.hooks.endSession(s)
		}
		if ctx.Err() != nil && rec.Error != nil {
			if !interruptedBy(ctx) {
				// Cancelled by the grace period or the failure window:
				// not a result.
				counts.dropped.Add(1)
				return ""
			}
			if !t.live || rec.StartNS == 0 {
				return "" // never sent: nothing to record
			}
			markCancelled(ctx, rec, r.clock.Now())
			counts.cancelled.Add(1)
			pipe.submit(rec)
			return ""
		}
		failures.observe(rec)
		failure := ""
		if rec.Error != nil {
			failure = rec.Error.Type
		}
		pipe.submit(rec)
		return failure
	}
	ph.begin = func(ctx context.Context, c credit, s *session) *turn {
		t := &turn{ctx: ctx, rec: r.newRecord(spec, c, s), s: s, done: end}
		t.live = ctx.Err() == nil // not yet cancelled: the request may be sent
		if payload, err := r.payload(s); err != nil {
			r.sender.fail(t.rec, 0, "PayloadError", err.Error())
		} else {
			prog.sendBegin()
			t.sent = true
			t.fl = r.startTurn(ctx, t.rec, payload, s, prefill)
		}
		return t
	}
	ph.dispatch = func(ctx context.Context, c credit, s *session) string {
		return ph.begin(ctx, c, s).run()
	}
	stop := func() {
		if grace != nil {
			grace.Stop()
		}
		cancel(nil)
		prefill.stop()
	}
	return ph, stop
}

// writeTimeslices stores the per-window metrics (§3.5) as JSON and tidy
// CSV; a run without records writes none, as AIPerf.
func (r *run) writeTimeslices(ctx context.Context, arts *artifacts, acc *timeslice.Accumulator, specs []*phaseSpec) error {
	windows := acc.Slices()
	if len(windows) == 0 {
		return nil
	}
	jsonName, csvName := export.TimeslicesFileNames(r.cfg.ProfileExportPrefix)
	var js, csv bytes.Buffer
	var err error
	if r.cfg.OutputSchema == export.Schema14 {
		err = export.WriteTimeslicesJSON14(&js, windows, r.clock.Wall, r.buildInputConfig14(specs))
	} else {
		err = export.WriteTimeslicesJSON(&js, windows, r.buildInputConfig(specs))
	}
	if err != nil {
		return fmt.Errorf("timeslices: %w", err)
	}
	if r.cfg.OutputSchema == export.Schema14 {
		err = export.WriteTimeslicesCSV14(&csv, windows, r.clock.Wall)
	} else {
		err = export.WriteTimeslicesCSV(&csv, windows)
	}
	if err != nil {
		return fmt.Errorf("timeslices: %w", err)
	}
	return errors.Join(arts.run.Put(ctx, jsonName, js.Bytes()), arts.run.Put(ctx, csvName, csv.Bytes()))
}

// logFinish logs how the client itself fared: schedule lateness (open loop),
// back-pressure, CPU use and peak memory.
func (r *run) logFinish(res *Result, elapsed time.Duration) {
	u := processUsage()
	attrs := []any{"elapsed", elapsed.Round(time.Millisecond), "cpu_user", u.user.Round(time.Millisecond),
		"cpu_sys", u.sys.Round(time.Millisecond), "max_rss_mb", fmt.Sprintf("%.1f", u.maxRSSMB),
		"backpressure", res.Backpressure, "dropped", res.Dropped}
	if len(res.LatenessNS) > 0 {
		p50, p99, mx := latenessMS(res.LatenessNS)
		attrs = append(attrs, "lateness_p50_ms", fmt.Sprintf("%.3f", p50), "lateness_p99_ms", fmt.Sprintf("%.3f", p99), "lateness_max_ms", fmt.Sprintf("%.3f", mx))
	}
	r.log.Info("run finished", attrs...)
}
