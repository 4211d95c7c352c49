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

	"github.com/aiperf-go/aiperf/dataset/public"
	"github.com/aiperf-go/aiperf/internal/command"
	"github.com/aiperf-go/aiperf/runner"
	"github.com/aiperf-go/aiperf/sink/opener"
	"github.com/aiperf-go/aiperf/tokenizer"
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
		Hub: tokenizer.LoadOptions{
			HFHome: os.Getenv("HF_HOME"), Token: os.Getenv("HF_TOKEN"), Endpoint: os.Getenv("HF_ENDPOINT"),
			Offline: isTrue(os.Getenv("HF_HUB_OFFLINE")),
		},
		CacheDir: public.DefaultCacheDir(os.Getenv("XDG_CACHE_HOME"), os.Getenv("HOME")),
	})
	var inputErr *runner.InputError
	if errors.As(err, &inputErr) {
		return command.Usage(err)
	}
	if errors.Is(err, runner.ErrInterrupted) {
		return fmt.Errorf("%w: partial results were written", err)
	}
	return err
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
