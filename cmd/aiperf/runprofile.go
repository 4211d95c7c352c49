package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/aiperf-go/aiperf/runner"
	"github.com/aiperf-go/aiperf/sink/opener"
)

// runProfile wires the process (terminal, logger) to runner.Run.
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
	if strings.EqualFold(cfg.UIType, "dashboard") {
		logger.Warn("the dashboard UI is not available yet; using the simple UI")
	}
	_, err := runner.Run(ctx, cfg, runner.Options{
		Version: Version, Commit: Commit,
		Stdout: stdout, Stderr: stderr, Terminal: terminal,
		Logger: logger, Stores: opener.Mux(),
	})
	if errors.Is(err, runner.ErrInterrupted) {
		return fmt.Errorf("%w: partial results were written", err)
	}
	return err
}

// errUnexpectedArgs reports positional arguments profile does not take.
func errUnexpectedArgs(args []string) error {
	return fmt.Errorf("unexpected argument %q: every profile setting is a flag, e.g. --model NAME", args[0])
}
