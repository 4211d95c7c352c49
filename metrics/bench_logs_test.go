package metrics

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/aiperf-go/aiperf/record"
)

// feed20k returns 20,000 streaming records of a 10,000-stream run (two
// requests per stream, 20 inter-chunk latencies each) with their values,
// each value drawn around a template's (lognormal factor), fixed by the
// seed.
func feed20k() (*Config, []record.Record, [][]RecordValue) {
	cfg := streamingChat()
	cfg.Schema14 = true
	chunks := []chunk{{at: 40 * ms, text: "Hello"}}
	for k := range 20 {
		chunks = append(chunks, chunk{at: 40*ms + int64(k+1)*12*ms, text: " word"})
	}
	chunks[len(chunks)-1].usage = usage(550, 21, 571, 0)
	tmpl := rec(0, true, 550, chunks...)
	base := Compute(cfg, tmpl)
	r := rand.New(rand.NewPCG(19, 10_000))
	const n = 20_000
	recs := make([]record.Record, n)
	vals := make([][]RecordValue, n)
	for i := range n {
		v := make([]RecordValue, len(base))
		copy(v, base)
		for j := range v {
			if v[j].List != nil {
				l := make([]float64, len(v[j].List))
				for k, x := range v[j].List {
					l[k] = math.Round(x * math.Exp(0.3*r.NormFloat64()))
				}
				v[j].List = l
				continue
			}
			v[j].Value *= math.Exp(0.3 * r.NormFloat64())
			if v[j].Int {
				v[j].Value = math.Round(v[j].Value)
			}
		}
		recs[i] = *tmpl
		recs[i].CreditIssuedNS = int64(i) * ms / 4
		recs[i].StartNS = recs[i].CreditIssuedNS + 1000
		recs[i].EndNS = recs[i].StartNS + 292*ms
		vals[i] = v
	}
	return cfg, recs, vals
}

// heapCounters returns the live heap after a full collection and the
// bytes allocated so far.
func heapCounters() (live, total uint64) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc, m.TotalAlloc
}

// BenchmarkAccumulatorAdd20k adds the 20,000 records of a 10,000-stream
// run (Config.Schema14, so the sweep log too) to an accumulator and
// reports the heap the accumulator holds afterwards (live-B) and what
// adding them allocated (alloc-B), issue 19.
func BenchmarkAccumulatorAdd20k(b *testing.B) {
	cfg, recs, vals := feed20k()
	heapOf(b, func() any {
		a := NewAccumulator(cfg)
		for i := range recs {
			a.Add(&recs[i], vals[i])
		}
		return a
	})
}

// BenchmarkDistributionAdd20k adds 20,000 values to one Distribution and
// reports the heap it holds afterwards (live-B) and what adding them
// allocated (alloc-B), issue 19.
func BenchmarkDistributionAdd20k(b *testing.B) {
	heapOf(b, func() any {
		d := NewDistribution()
		for i := range 20_000 {
			d.Add(float64(i % 977))
		}
		return d
	})
}

// heapOf times build b.N times and reports the heap the value it returns
// holds (live-B, after a full collection) and what building it allocated
// (alloc-B).
func heapOf(b *testing.B, build func() any) {
	var live, alloc uint64
	for range b.N {
		b.StopTimer()
		live0, total0 := heapCounters()
		b.StartTimer()
		v := build()
		b.StopTimer()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		alloc = m.TotalAlloc - total0
		live1, _ := heapCounters()
		live = live1 - live0
		runtime.KeepAlive(v)
		b.StartTimer()
	}
	b.ReportMetric(float64(live), "live-B")
	b.ReportMetric(float64(alloc), "alloc-B")
}
