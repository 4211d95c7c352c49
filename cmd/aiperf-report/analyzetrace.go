package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/peterbourgon/ff/v4"

	"github.com/aiperf-go/aiperf/internal/command"
	"github.com/aiperf-go/aiperf/report"
	"github.com/aiperf-go/aiperf/trace"
)

// newAnalyzeTraceCommand is `aiperf-report analyze-trace`, the same
// analysis as `aiperf analyze-trace` (AIPerf's mooncake trace statistics).
func newAnalyzeTraceCommand(rc *rootConfig, parent *ff.FlagSet) *ff.Command {
	fs := ff.NewFlagSet("analyze-trace").SetParent(parent)
	blockSize := fs.IntLong("block-size", trace.DefaultBlockSize, "KV cache block size in `TOKENS` per hash_ids entry")
	output := fs.StringLong("output-file", "", "also write the analysis as JSON to this `FILE`")
	return &ff.Command{
		Name:      "analyze-trace",
		Usage:     "aiperf-report analyze-trace TRACE.jsonl [--block-size 512] [--output-file analysis.json]",
		ShortHelp: "prefix-sharing and length statistics of a mooncake trace",
		Flags:     fs,
		Exec: func(_ context.Context, args []string) error {
			if len(args) != 1 {
				return command.Usage(errors.New("analyze-trace needs one trace file"))
			}
			if *blockSize < 1 {
				return command.Usage(fmt.Errorf("--block-size must be >= 1, got %d", *blockSize))
			}
			a, err := trace.AnalyzeFile(args[0], *blockSize)
			if err != nil {
				return fmt.Errorf("analyze-trace: %w", err)
			}
			if err := writeAnalysis(rc.stdout, a, rc.format); err != nil {
				return err
			}
			if *output == "" {
				return nil
			}
			if err := a.WriteJSONFile(*output); err != nil {
				return fmt.Errorf("analyze-trace: %w", err)
			}
			_, err = fmt.Fprintf(rc.stdout, "Analysis report saved to %s\n", *output)
			return err
		},
	}
}

// writeAnalysis prints a in format: table is AIPerf's report, byte for
// byte; json the analysis JSON (as --output-file writes it); csv and
// markdown one row per statistic (name, value), the distributions' as
// isl_stats.p25 and so on.
func writeAnalysis(w io.Writer, a *trace.Analysis, format string) error {
	switch format {
	case "", "table":
		return a.WriteReport(w)
	case "json":
		return a.WriteJSON(w)
	}
	t := &report.Table{Columns: []string{"statistic", "value"}}
	add := func(name string, v any) { t.Rows = append(t.Rows, []any{name, v}) }
	add("total_requests", a.TotalRequests)
	add("unique_prefixes", a.UniquePrefixes)
	add("num_prefix_groups", a.NumPrefixGroups)
	add("cache_hit_rate", a.CacheHitRate)
	add("prefix_reuse_ratio", a.PrefixReuseRatio)
	for _, d := range []struct {
		name string
		s    *trace.Stats
	}{{"isl_stats", a.ISLStats}, {"osl_stats", a.OSLStats}, {"context_length_stats", a.ContextLengthStats},
		{"unique_prompt_length_stats", a.UniquePromptLengthStats}, {"hit_rate_stats", a.HitRateStats}} {
		if d.s == nil {
			continue
		}
		for _, kv := range []struct {
			stat string
			v    float64
		}{{"mean", d.s.Mean}, {"std_dev", d.s.StdDev}, {"min", d.s.Min}, {"p25", d.s.P25},
			{"median", d.s.Median}, {"p75", d.s.P75}, {"max", d.s.Max}} {
			add(d.name+"."+kv.stat, kv.v)
		}
	}
	return report.Write(w, t, format)
}
