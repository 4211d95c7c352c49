package main

import (
	"context"
	"io"

	"github.com/peterbourgon/ff/v4"
	"github.com/peterbourgon/ff/v4/ffval"

	"github.com/aiperf-go/aiperf/internal/command"
	"github.com/aiperf-go/aiperf/runner"
	"github.com/aiperf-go/aiperf/runner/multirun"
)

// newAnalyzeCommand is `aiperf analyze`, GenAI-Perf's analyze subcommand:
// every profile flag plus --sweep-type, --sweep-range and --sweep-list;
// one profile per value of the swept setting, each in its own directory
// under --artifact-dir, and analyze_export_genai_perf.csv across them
// (see multirun.Analyze). Profile's --sweep-type, grid or zip there, is
// here the setting to sweep.
func newAnalyzeCommand(given []string, stdout, stderr io.Writer) *ff.Command {
	cfg := runner.Defaults()
	var verbose int
	var configFile string
	var sweepRange, sweepList string
	fs := ff.NewFlagSet("Analyze").SetParent(profileFlags(&cfg, &verbose, &configFile))
	g := flagGroup{fs}
	g.add(0, "sweep-range", ffval.NewValue(&sweepRange), "sweep --sweep-type (concurrency, request_rate, input_sequence_length, num_dataset_entries or batch_size) from `MIN:MAX[:STEP]`: without a step the powers of two from MIN to MAX (8:256 is 8,16,…,256; num_dataset_entries: every integer)")
	g.add(0, "sweep-list", ffval.NewValue(&sweepList), "sweep --sweep-type over comma-separated `VALUES`, e.g. 100,150,200")
	cmd := &ff.Command{
		Name:      "analyze",
		Usage:     "aiperf analyze --model MODEL --sweep-type TYPE (--sweep-range MIN:MAX[:STEP] | --sweep-list A,B,C) [profile flags]",
		ShortHelp: "sweep one setting, one profile per value, with GenAI-Perf's summary CSV",
		Flags:     fs,
	}
	cmd.Exec = func(ctx context.Context, rest []string) error {
		if err := multirun.ApplyAnalyzeSweep(&cfg, cfg.SweepType, sweepRange, sweepList); err != nil {
			return command.Usage(err)
		}
		if err := finishProfileConfig(&cfg, fs, verbose, rest, given); err != nil {
			return err
		}
		return runProfile(ctx, &cfg, stdout, stderr)
	}
	return cmd
}
