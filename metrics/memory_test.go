package metrics

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// realisticFeed adds streaming records with usage and reasoning to a, each
// value drawn around a template's (lognormal factor, 7 inter-chunk
// latencies), and calls at(i) after record i (1-based).
func realisticFeed(a *Accumulator, cfg *Config, n int, at func(i int)) {
	tmpl := rec(0, true, 550,
		chunk{at: 40 * ms, reasoning: "think hard"},
		chunk{at: 55 * ms, reasoning: " more"},
		chunk{at: 70 * ms, text: "Hello"},
		chunk{at: 86 * ms, text: " big world"},
		chunk{at: 95 * ms, text: " and"},
		chunk{at: 110 * ms, text: " more words"},
		chunk{at: 120 * ms, text: " to come"},
		chunk{at: 131 * ms, text: " here"},
		chunk{at: 140 * ms, usage: usage(550, 13, 563, 3)},
	)
	base := Compute(cfg, tmpl)
	vals := make([]RecordValue, len(base))
	r := rand.New(rand.NewPCG(9, 9))
	recd := *tmpl
	for i := 1; i <= n; i++ {
		copy(vals, base)
		for j := range vals {
			f := math.Exp(0.3 * r.NormFloat64())
			if vals[j].List != nil {
				l := make([]float64, len(vals[j].List))
				for k, x := range vals[j].List {
					l[k] = x * math.Exp(0.3*r.NormFloat64())
				}
				vals[j].List = l
				continue
			}
			vals[j].Value *= f
			if vals[j].Int {
				vals[j].Value = math.Round(vals[j].Value)
			}
		}
		recd.StartNS = int64(i) * ms
		recd.EndNS = recd.StartNS + 140*ms
		a.Add(&recd, vals)
		if at != nil {
			at(i)
		}
	}
}

// heapInUse returns the bytes of heap in use after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// TestAccumulatorMemoryFlat feeds 1,000,000 realistic streaming records
// (about 30 values each, 7 of them inter-chunk latencies) and checks that the heap in use stays within
// 4 MB from 300,000 records, when every metric has passed its cap, to
// 1,000,000.
func TestAccumulatorMemoryFlat(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("1,000,000 records: skipped with -short and -race")
	}
	cfg := streamingChat()
	a := NewAccumulator(cfg)
	heap := map[int]uint64{}
	realisticFeed(a, cfg, 1_000_000, func(i int) {
		if i == 200_000 || i == 300_000 || i == 1_000_000 {
			heap[i] = heapInUse()
		}
	})
	s := a.Summary(nil)
	if icl := result(t, s, "inter_chunk_latency").Count; s.Valid != 1_000_000 || icl != 7_000_000 {
		t.Fatalf("valid %d, %d inter-chunk latencies", s.Valid, icl)
	}
	t.Logf("heap in use: %.1f MB at 200k, %.1f MB at 300k, %.1f MB at 1M records",
		float64(heap[200_000])/1e6, float64(heap[300_000])/1e6, float64(heap[1_000_000])/1e6)
	if grow := int64(heap[1_000_000]) - int64(heap[300_000]); grow > 4<<20 {
		t.Errorf("heap grew by %d bytes from 300k to 1M records", grow)
	}
}

// BenchmarkAccumulator1M adds 1,000,000 realistic streaming records and
// summarises them; it reports ns per record and the heap in use (MB) at
// 300k and 1M records.
func BenchmarkAccumulator1M(b *testing.B) {
	cfg := streamingChat()
	for range b.N {
		a := NewAccumulator(cfg)
		var at300k, at1M uint64
		realisticFeed(a, cfg, 1_000_000, func(i int) {
			switch i {
			case 300_000:
				b.StopTimer()
				at300k = heapInUse()
				b.StartTimer()
			case 1_000_000:
				b.StopTimer()
				at1M = heapInUse()
				b.StartTimer()
			}
		})
		a.Summary(nil)
		b.ReportMetric(float64(at300k)/1e6, "MB-heap-300k")
		b.ReportMetric(float64(at1M)/1e6, "MB-heap-1M")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ns/record")
}
