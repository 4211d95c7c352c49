package telemetry

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Health is how one source fared over a run: the collector's report on
// itself, stored in the run's manifest and summary.
type Health struct {
	Source string `json:"source"`
	Kind   Kind   `json:"kind"`
	// Reachable is true when at least one collection succeeded (or the
	// start-up probe did).
	Reachable bool `json:"reachable"`
	// Scrapes counts collections attempted; Failures those that failed.
	Scrapes  int64 `json:"scrapes"`
	Failures int64 `json:"failures"`
	// NoData is true when the source answered that it has nothing to
	// collect (no GPU, no driver); such collections are not failures.
	NoData bool `json:"no_data,omitempty"`
	// Skipped counts interval ticks missed because a collection took
	// longer than the interval.
	Skipped int64 `json:"skipped"`
	// Dropped counts samples lost to a full queue in front of the
	// consumer.
	Dropped int64 `json:"dropped"`
	// LastError is the most recent failure's message.
	LastError string `json:"last_error,omitempty"`
	// Latency of the successful collections, milliseconds.
	LatencyAvgMS float64 `json:"latency_avg_ms"`
	LatencyMaxMS float64 `json:"latency_max_ms"`

	latencySum int64 // ns, of the successes
	successes  int64
}

// observe counts one collection that took d and ended with err.
func (h *Health) observe(d int64, err error) {
	h.Scrapes++
	switch {
	case err == nil:
		h.Reachable = true
		h.successes++
		h.latencySum += d
		h.LatencyMaxMS = max(h.LatencyMaxMS, float64(d)/1e6)
	case errors.Is(err, ErrNoData):
		h.NoData = true
		h.LastError = err.Error()
	default:
		h.Failures++
		h.LastError = errorText(err)
	}
}

// finish derives the averages.
func (h *Health) finish() {
	if h.successes > 0 {
		h.LatencyAvgMS = float64(h.latencySum) / float64(h.successes) / 1e6
	}
}

// Probe collects once from every collector at once, each within timeout,
// and returns the reachable ones, in order, with the health of every
// collector (so the unreachable ones can be reported: "2/3 telemetry
// sources reachable"). A source answering ErrNoData is not reachable.
func Probe(ctx context.Context, cs []Collector, timeout time.Duration) ([]Collector, []Health) {
	health := make([]Health, len(cs))
	var wg sync.WaitGroup
	for i, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			start := time.Now()
			_, err := c.Collect(cctx)
			h := Health{Source: c.Source(), Kind: c.Kind()}
			h.observe(int64(time.Since(start)), err)
			h.finish()
			health[i] = h
		}()
	}
	wg.Wait()
	var ok []Collector
	for i, c := range cs {
		if health[i].Reachable {
			ok = append(ok, c)
		}
	}
	return ok, health
}
