package metrics

import (
	"math/rand/v2"
	"testing"
)

// synthSweepLog is the sweep log of a streaming benchmark: streams
// sessions of two requests back to back, each request with gaps
// inter-chunk latencies (osl gaps+1 tokens), in ns since the run's clock
// origin as the runner records them (record.Clock), whole numbers well
// below 2^53 so a chunk's end is exactly the next chunk's start. The times
// are pseudo-random but fixed by the seed.
func synthSweepLog(streams, gaps int) *sweepLog {
	rng := rand.New(rand.NewPCG(19, 2026))
	const base = 3_000_000_000.0
	l := &sweepLog{}
	icl := make([]float64, gaps)
	for range streams {
		// Streams ramp up over 2 s; each sends two requests in turn.
		start := base + float64(rng.IntN(2_000_000_000))
		for range 2 {
			ttft := float64(50_000_000 + rng.IntN(100_000_000))
			sum := 0.0
			for k := range icl {
				icl[k] = float64(5_000_000 + rng.IntN(25_000_000))
				sum += icl[k]
			}
			end := start + ttft + sum
			l.ivs = append(l.ivs, interval{
				start: start, gen: start + ttft, end: end,
				isl: float64(100 + rng.IntN(100)), osl: float64(gaps + 1),
			})
			l.credit = append(l.credit, start-1000)
			if len(l.icl.off) == 0 {
				l.icl.off = append(l.icl.off, 0)
			}
			l.icl.icl = append(l.icl.icl, icl...)
			l.icl.off = append(l.icl.off, len(l.icl.icl))
			l.lastEnd = max(l.lastEnd, int64(end))
			start = end + float64(rng.IntN(1_000_000))
		}
	}
	l.phaseStart, l.phaseSet = int64(base)-1_000_000, true
	return l
}

// BenchmarkSweepResults is the summary's sweep-line metrics of a 10,000
// stream benchmark: 20,000 streaming requests of 20 inter-chunk latencies
// each (issue 19).
func BenchmarkSweepResults(b *testing.B) {
	l := synthSweepLog(10_000, 20)
	if n := len(l.results(nil)); n != len(sweepSpecs) {
		b.Fatalf("%d results", n)
	}
	b.ReportAllocs()
	for b.Loop() {
		l.results(nil)
	}
}
