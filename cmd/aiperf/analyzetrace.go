package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/peterbourgon/ff/v4"

	"github.com/aiperf-go/aiperf/internal/command"
	"github.com/aiperf-go/aiperf/trace"
)

// analyzeTraceFlags are the analyze-trace subcommand's settings.
type analyzeTraceFlags struct {
	inputFile  string
	blockSize  int
	outputFile string
	stdout     io.Writer
}

// newAnalyzeTraceCommand returns the "analyze-trace" subcommand: it reads a
// mooncake trace (JSONL with input_length, output_length, hash_ids), prints
// AIPerf's trace analysis report to stdout and, with --output-file, writes
// the analysis as AIPerf's JSON. As in AIPerf, the input file may also be
// given as the one positional argument. Everything goes to stdout, as in
// AIPerf; stderr is unused, errors being returned to run.
func newAnalyzeTraceCommand(stdout, stderr io.Writer) *ff.Command {
	f := &analyzeTraceFlags{stdout: stdout}
	fs := ff.NewFlagSet("analyze-trace")
	fs.StringVar(&f.inputFile, 0, "input-file", "", "mooncake trace to analyse (JSONL)")
	fs.IntVar(&f.blockSize, 0, "block-size", trace.DefaultBlockSize, "KV cache block size in tokens: the tokens per hash_ids entry")
	fs.StringVar(&f.outputFile, 0, "output-file", "", "also write the analysis as JSON to this file (parent directories are created)")
	return &ff.Command{
		Name:      "analyze-trace",
		Usage:     "aiperf analyze-trace --input-file trace.jsonl [--block-size 512] [--output-file analysis.json]",
		ShortHelp: "analyse a mooncake trace for ISL/OSL distributions, prefix reuse and cache hit rates",
		LongHelp: "Reports the requests, distinct hash_ids prefixes, the hit rate of an infinite prefix cache " +
			"replaying the trace in file order, the prefix reuse ratio and the input/output length distributions.",
		Flags: fs,
		Exec:  f.exec,
	}
}

// exec analyses the trace and reports.
func (f *analyzeTraceFlags) exec(_ context.Context, args []string) error {
	path := f.inputFile
	switch {
	case len(args) > 1 || len(args) == 1 && path != "":
		return command.Usage(fmt.Errorf("analyze-trace takes one input file, got --input-file %q and arguments %q", path, args))
	case len(args) == 1:
		path = args[0]
	case path == "":
		return command.Usage(errors.New("--input-file is required"))
	}
	if f.blockSize < 1 {
		return command.Usage(fmt.Errorf("--block-size must be >= 1, got %d", f.blockSize))
	}
	a, err := trace.AnalyzeFile(path, f.blockSize)
	if err != nil {
		return fmt.Errorf("analyze-trace: %w", err)
	}
	if err := a.WriteReport(f.stdout); err != nil {
		return fmt.Errorf("analyze-trace: %w", err)
	}
	if f.outputFile == "" {
		return nil
	}
	if err := a.WriteJSONFile(f.outputFile); err != nil {
		return fmt.Errorf("analyze-trace: %w", err)
	}
	_, err = fmt.Fprintf(f.stdout, "Analysis report saved to %s\n", f.outputFile)
	return err
}
