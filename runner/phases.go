package runner

import (
	"math/rand/v2"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/record"
)

// phaseSpecs returns the warmup phase (when enabled) and the profiling
// phase. Warmup takes its own concurrency, prefill limit, rate, arrival
// pattern, ramps and grace where given, else the profiling ones (§5.6); its
// grace is infinite unless set.
func (r *run) phaseSpecs() ([]*phaseSpec, error) {
	cfg := r.cfg
	var specs []*phaseSpec
	if cfg.WarmupEnabled() {
		w := &phaseSpec{
			phase: record.PhaseWarmup, count: cfg.WarmupRequestCount, duration: cfg.WarmupDuration,
			sessions: cfg.NumWarmupSessions, grace: cfg.WarmupGracePeriod,
			concurrency:     pick(cfg.WarmupConcurrency, cfg.EffectiveConcurrency()),
			prefill:         pick(cfg.WarmupPrefillConcurrency, cfg.PrefillConcurrency),
			rate:            pick(cfg.WarmupRequestRate, cfg.RequestRate),
			concurrencyRamp: cfg.WarmupConcurrencyRamp, prefillRamp: cfg.WarmupPrefillConcurrencyRamp,
			rateRamp: cfg.WarmupRequestRateRamp,
		}
		if r.fixed != nil || cfg.Mode() == ModeUserCentric {
			// Fixed-schedule and user-centric runs warm up closed-loop unless
			// given a warmup rate: their own schedules are for profiling.
			w.rate = cfg.WarmupRequestRate
			w.concurrency = pick(cfg.WarmupConcurrency, max(1, cfg.Concurrency))
		}
		pattern := cfg.WarmupArrivalPattern
		if pattern == "" {
			pattern = cfg.ArrivalPattern
		}
		if err := r.setIntervals(w, pattern); err != nil {
			return nil, err
		}
		specs = append(specs, w)
	}
	count := cfg.EffectiveRequestCount()
	if r.fixed != nil && cfg.RequestCount == 0 && cfg.NumSessions == 0 {
		count = r.fixed.turns(r)
	}
	p := &phaseSpec{
		phase: record.PhaseProfiling, count: count, duration: cfg.BenchmarkDuration, grace: cfg.GracePeriod,
		sessions: cfg.NumSessions, concurrency: cfg.EffectiveConcurrency(), rate: cfg.RequestRate,
		prefill: cfg.PrefillConcurrency, concurrencyRamp: cfg.ConcurrencyRamp,
		prefillRamp: cfg.PrefillConcurrencyRamp, rateRamp: cfg.RequestRateRamp,
	}
	cfg.stabilityBound(p)
	if cfg.Mode() == ModeUserCentric && !cfg.GracePeriodSet {
		p.grace = -1 // user-centric waits for every session by default (§5.3)
	}
	if err := r.setIntervals(p, cfg.ArrivalPattern); err != nil {
		return nil, err
	}
	specs = append(specs, p)
	r.shardSpecs(specs)
	return specs, nil
}

// runPhases runs the phases in order, each in its mode: the profiling phase
// of a fixed-schedule or user-centric run on its own schedule, a phase with
// a rate open-loop, the others closed-loop. Consecutive closed-loop phases
// with the same concurrency and no ramp share their workers, so warmup hands
// over to profiling without draining.
func (r *run) runPhases(phases []*phaseRun, late *lateness) {
	for i := 0; i < len(phases); i++ {
		ph := phases[i]
		profiling := ph.spec.phase == record.PhaseProfiling
		if profiling && r.shard != nil {
			if r.startErr = r.awaitStart(ph); r.startErr != nil {
				return
			}
		}
		switch {
		case profiling && r.fixed != nil:
			runFixedSchedule(ph, r, r.fixed, late)
		case profiling && r.cfg.Mode() == ModeUserCentric:
			r.runUserCentric(ph, late)
		case ph.spec.rate > 0:
			runOpenLoop(ph, r.clock, late)
		default:
			group := []*phaseRun{ph}
			for i+1 < len(phases) && r.sharesWorkers(ph, phases[i+1]) {
				i++
				group = append(group, phases[i])
			}
			runClosedLoop(max(1, ph.spec.concurrency), group, r.clock)
		}
	}
}

// sharesWorkers reports whether closed-loop phase b can run on a's workers.
func (r *run) sharesWorkers(a, b *phaseRun) bool {
	bOwn := b.spec.phase == record.PhaseProfiling && (r.fixed != nil || r.cfg.Mode() == ModeUserCentric || r.shard != nil)
	return !bOwn && b.spec.rate == 0 && b.spec.concurrency == a.spec.concurrency && b.spec.concurrencyRamp == 0
}

// setIntervals gives an open-loop phase its inter-arrival generator, seeded
// from the run's seed and the phase.
func (r *run) setIntervals(s *phaseSpec, pattern string) error {
	if s.rate <= 0 || strings.EqualFold(pattern, "concurrency_burst") {
		s.rate = 0
		return nil
	}
	rng := rand.New(rand.NewPCG(r.seed, uint64(len(s.phase))))
	var err error
	s.intervals, err = NewIntervals(pattern, s.rate, r.cfg.ArrivalSmoothness, rng)
	return err
}

// pick returns v when set (> 0), else def.
func pick[T int | float64](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

// rampStep returns when, after the start, the k-th of n-1 even steps of a
// ramp of duration d happens (k = 1..n-1): the limit is 1 at the start and
// n at d.
func rampStep(d time.Duration, k, n int) time.Duration {
	if n <= 1 || d <= 0 {
		return 0
	}
	return time.Duration(int64(d) * int64(k) / int64(n-1))
}
