package custom

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// writeMooncakeTrace writes a mooncake trace of rows requests shaped like
// the published ones: input lengths log-uniform in [1024, 8192] tokens,
// 512-token hash blocks whose leading ones come from 2,000 shared prefix
// chains (1-8 blocks, picked with a Zipf law, as popular system prompts
// and documents), the rest fresh; output lengths 50-500; Poisson arrivals
// at 100 requests/s.
func writeMooncakeTrace(tb testing.TB, path string, rows int) {
	tb.Helper()
	rng := rand.New(rand.NewPCG(42, 42))
	const chains = 2000
	prefix := make([][]int, chains)
	next := 0
	for i := range prefix {
		prefix[i] = make([]int, 1+rng.IntN(8))
		for k := range prefix[i] {
			prefix[i][k] = next
			next++
		}
	}
	zipf := rand.NewZipf(rng, 1.1, 1, chains-1)
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	ts := 0.0
	for range rows {
		n := int(1024 * math.Pow(8, rng.Float64()))
		blocks := (n + 511) / 512
		chain := prefix[zipf.Uint64()]
		shared := min(len(chain), blocks-1)
		fmt.Fprintf(w, `{"timestamp": %d, "input_length": %d, "output_length": %d, "hash_ids": [`, int(ts), n, 50+rng.IntN(451))
		for k := range blocks {
			if k > 0 {
				w.WriteString(", ")
			}
			id := next
			if k < shared {
				id = chain[k]
			} else {
				next++
			}
			fmt.Fprint(w, id)
		}
		w.WriteString("]}\n")
		ts += rng.ExpFloat64() * 10
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkMooncake100k measures preparing a 100,000-row mooncake trace with
// the builtin tokenizer (the target: < 10 s, < 1 GB). Run it once:
//
//	go test -run '^$' -bench Mooncake100k -benchtime 1x ./dataset/custom/
//
// prompt-MB is the text of the prompts, which the dataset holds as block
// references (live-MB); µs/prompt-made is what making one costs at send.
func BenchmarkMooncake100k(b *testing.B) {
	path := filepath.Join(b.TempDir(), "trace.jsonl")
	writeMooncakeTrace(b, path, 100_000)
	o := traceOptions(b, path, "mooncake_trace")
	for b.Loop() {
		d, err := Load(context.Background(), o)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		size := 0
		for _, c := range d.Conversations {
			for i := range c.Turns {
				size += c.Turns[i].TextLen()
			}
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(size)/1e6, "prompt-MB")
		b.ReportMetric(float64(ms.HeapAlloc)/1e6, "live-MB")
		b.ReportMetric(float64(ms.Sys)/1e6, "sys-MB")
		// Making every prompt, as the runner does when it sends them.
		start := time.Now()
		for _, c := range d.Conversations {
			for i := range c.Turns {
				_ = c.Turns[i].Resolved()
			}
		}
		b.ReportMetric(float64(time.Since(start).Microseconds())/float64(len(d.Conversations)), "µs/prompt-made")
		b.StartTimer()
	}
}
