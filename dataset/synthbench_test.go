package dataset

import (
	"context"
	"testing"
)

// BenchmarkSynthetic100k4k builds 100,000 prompts of 4,096 tokens, the
// dataset-preparation target of `make bench` (< 10 s, < 1 GB on 2 cores).
// Run it with -benchtime 1x; peak RSS is the process's (e.g. /usr/bin/time).
func BenchmarkSynthetic100k4k(b *testing.B) {
	c := builtinCorpus(b)
	cfg := SyntheticConfig{ISLMean: 4096, NumEntries: 100_000, Seed: 1, Models: []string{"m"}}
	for b.Loop() {
		convs, err := Synthetic(context.Background(), cfg, c, c.Tokenizer())
		if err != nil {
			b.Fatal(err)
		}
		if convs[len(convs)-1].Turns[0].InputTokens != 4096 {
			b.Fatalf("InputTokens %d", convs[len(convs)-1].Turns[0].InputTokens)
		}
	}
	b.ReportMetric(float64(cfg.NumEntries*b.N)/b.Elapsed().Seconds(), "prompts/s")
}
