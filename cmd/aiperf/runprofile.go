package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/aiperf-go/aiperf/internal/exepages"
	"github.com/aiperf-go/aiperf/internal/gcfloor"

	"golang.org/x/term"

	"github.com/aiperf-go/aiperf/dataset/public"
	"github.com/aiperf-go/aiperf/internal/command"
	"github.com/aiperf-go/aiperf/runner"
	"github.com/aiperf-go/aiperf/runner/multirun"
	"github.com/aiperf-go/aiperf/sink/opener"
	"github.com/aiperf-go/aiperf/tokenizer"
)

// runProfile wires the process (terminal, logger) to runner.Run, or to
// multirun.Run for --num-profile-runs > 1 and --concurrency/--request-rate
// sweeps.
func runProfile(ctx context.Context, cfg *runner.Config, stdout, stderr io.Writer) error {
	terminal := false
	if f, ok := stderr.(*os.File); ok {
		terminal = term.IsTerminal(int(f.Fd()))
	}
	// The console stays quiet unless asked: warnings and errors only, so that
	// --ui-type none prints just the final table. The log file has INFO.
	level := slog.LevelWarn
	if cfg.LogLevelSet {
		level = runner.LogLevel(cfg.LogLevel)
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	// A process-wide setting, so set here rather than in the runner library.
	// Fewer collections keep an open-loop pacer on time; a closed-loop run
	// needs no floor, only the cap on garbage (10,000 streams' stacks).
	floor := uint64(0)
	if cfg.OpenLoop() {
		floor = gcfloor.Default
	}
	defer gcfloor.Start(floor)()
	// The executable's image in base pages: only the code a run touches
	// stays resident (10,000 streams: 56 -> 48 MB of the peak, issue 19).
	// Again once the inputs are built (InputsReady below): the setup's
	// code leaves the resident set too (2.4 MB).
	_, _ = exepages.MapSmall()
	multi := multirun.Needed(cfg)
	if multi {
		// Before any run starts: a dashboard cannot span several runs.
		if err := multirun.Check(cfg); err != nil {
			return command.Usage(err)
		}
	}
	opts := runner.Options{
		Version: Version, Commit: Commit,
		Stdout: stdout, Stderr: stderr, Terminal: terminal,
		Logger: logger, Stores: opener.Mux(),
		Hub: tokenizer.LoadOptions{
			HFHome: os.Getenv("HF_HOME"), Token: os.Getenv("HF_TOKEN"), Endpoint: os.Getenv("HF_ENDPOINT"),
			Offline: isTrue(os.Getenv("HF_HUB_OFFLINE")),
		},
		CacheDir:    public.DefaultCacheDir(os.Getenv("XDG_CACHE_HOME"), os.Getenv("HOME")),
		InputsReady: func() { _, _ = exepages.MapSmall() },
	}
	var (
		res *runner.Result
		err error
	)
	// Every run's --threshold verdict goes to the GitHub step summary,
	// whatever its exit status; exit 3 only when nothing worse happened.
	gates := &verdicts{stepSummary: os.Getenv("GITHUB_STEP_SUMMARY"), stderr: stderr}
	if multi {
		// --num-profile-runs > 1 or a sweep list: several runs, then the
		// aggregate or the sweep summary.
		err = multirun.Run(ctx, cfg, multirun.Options{
			Run: func(ctx context.Context, c *runner.Config) (*runner.Result, error) {
				res, err := runner.Run(ctx, c, opts)
				gates.observe(res)
				return res, err
			},
			Stores: opts.Stores, Stdout: stdout, Logger: logger, Version: Version,
		})
	} else {
		res, err = runner.Run(ctx, cfg, opts)
		gates.observe(res)
	}
	var inputErr *runner.InputError
	if errors.As(err, &inputErr) {
		return command.Usage(err)
	}
	if errors.Is(err, runner.ErrInterrupted) {
		if res != nil && res.Files.Location != "" {
			return fmt.Errorf("%w: partial results stored in %s (%d requests in flight recorded as CancelledError)",
				err, res.Files.Location, res.Cancelled)
		}
		return fmt.Errorf("%w: partial results were written", err)
	}
	if err != nil {
		return err
	}
	return gates.err()
}

// errUnexpectedArgs reports positional arguments profile does not take.
func errUnexpectedArgs(args []string) error {
	return fmt.Errorf("unexpected argument %q: every profile setting is a flag, e.g. --model NAME", args[0])
}

// isTrue reads a boolean environment value as huggingface_hub does: 1, true,
// yes or on, in any case.
func isTrue(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}
