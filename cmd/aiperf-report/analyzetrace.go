package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/peterbourgon/ff/v4"

	"github.com/aiperf-go/aiperf/internal/command"
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
			if err := a.WriteReport(rc.stdout); err != nil {
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
