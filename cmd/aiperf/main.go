// Command aiperf benchmarks generative-AI inference servers: one benchmark
// from flags, AIPERF_* env vars or a YAML file, then a meaningful exit status.
package main

import (
	"context"
	"io"
	"os"
	"strings"

	"github.com/peterbourgon/ff/v4"

	"github.com/aiperf-go/aiperf/internal/command"
	// Blob store drivers for --artifact-dir URLs (the runner opens plain
	// paths itself).

	_ "gocloud.dev/blob/azureblob"
	_ "gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/gcsblob"
	_ "gocloud.dev/blob/memblob"
	_ "gocloud.dev/blob/s3blob"
)

// Version information, injected with -ldflags -X.
var (
	Version = "dev"
	Commit  = "unknown"
)

// Exit statuses (see command.ExitCode; 130 and 143 after SIGINT and
// SIGTERM).
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)

func main() {
	// The signal actor: the first SIGINT/SIGTERM cancels ctx, so the run
	// stops sending, records what was in flight and stores what it has for
	// at most --shutdown-grace; a second one exits at once, keeping what is
	// already on disk but flushing nothing more.
	ctx, stop := command.NotifyContext(context.Background(), "aiperf", os.Stderr, os.Exit)
	err := runWithEnv(ctx, os.Args[1:], os.Environ(), os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(command.Signalled(ctx, err), os.Stderr))
}

// exitCode maps run's error to the process exit status, printing it.
func exitCode(err error, stderr io.Writer) int {
	return command.ExitCode("aiperf", err, stderr)
}

// runWithEnv checks environ, the process environment ("KEY=value"), for
// misspelled AIPERF_* variables (a warning on stderr) and boolean settings
// that do not parse (a usage error), then calls run.
func runWithEnv(ctx context.Context, args, environ []string, stdout, stderr io.Writer) error {
	// Building the throwaway command tree costs about a millisecond of
	// start-up (ff checks each flag against all the others), so it is
	// built only when there is an AIPERF_* variable to check.
	if hasEnvPrefix(environ) {
		if err := checkEnv(environ, envSettings(newRoot(nil, io.Discard, io.Discard)), stderr); err != nil {
			return command.Usage(err)
		}
	}
	return run(ctx, args, stdout, stderr)
}

// hasEnvPrefix reports whether environ holds any AIPERF_* variable.
func hasEnvPrefix(environ []string) bool {
	for _, kv := range environ {
		if strings.HasPrefix(kv, envPrefix) {
			return true
		}
	}
	return false
}

// run parses args and runs the selected subcommand.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	given := args // the command line as typed, for the run's record
	if len(args) > 0 && (args[0] == "profile" || args[0] == "analyze") {
		args = expandMultiValue(args)
	}
	root := withVersionFlag(newRootFor(firstWord(args), given, stdout, stderr), stdout)
	return hintUnknownFlag(command.Run(ctx, root, args, stdout, stderr,
		ff.WithEnvVarPrefix("AIPERF"),
		ff.WithConfigFileFlag("config"),
		ff.WithConfigFileParser(configFileParser(given)),
	), root)
}

// newRoot builds the command tree; given is the command line as typed,
// which profile records (redacted).
func newRoot(given []string, stdout, stderr io.Writer) *ff.Command {
	return newRootFor("", given, stdout, stderr)
}

// newRootFor builds the command tree with only the subcommand named name
// when there is one (every subcommand when name is "" or names none): the
// flag tables of profile, analyze and config cost milliseconds of every
// start-up to build (ff checks each flag against all the others).
func newRootFor(name string, given []string, stdout, stderr io.Writer) *ff.Command {
	subcommands := []struct {
		name  string
		build func() *ff.Command
	}{
		{"profile", func() *ff.Command { return newProfileCommand(given, stdout, stderr) }},
		{"analyze", func() *ff.Command { return newAnalyzeCommand(given, stdout, stderr) }},
		{"mock-server", func() *ff.Command { return newMockServerCommand(stdout, stderr) }},
		{"analyze-trace", func() *ff.Command { return newAnalyzeTraceCommand(stdout, stderr) }},
		{"synthesize", func() *ff.Command { return newSynthesizeCommand("synthesize", false, stdout) }},
		{"synthesize-trace", func() *ff.Command { return newSynthesizeCommand("synthesize-trace", true, stdout) }},
		{"version", func() *ff.Command { return newVersionCommand(stdout) }},
		{"recover", func() *ff.Command { return newRecoverCommand(stdout) }},
		{"plot", func() *ff.Command { return newPlotCommand() }},
		{"validate", func() *ff.Command { return newValidateCommand(stdout) }},
		{"config", func() *ff.Command { return newConfigCommand(given, stdout, stderr) }},
		{"create-template", func() *ff.Command { return newCreateTemplateCommand(stdout) }},
	}
	var subs []*ff.Command
	for _, c := range subcommands {
		if c.name == name {
			subs = []*ff.Command{c.build()}
			break
		}
	}
	if subs == nil {
		for _, c := range subcommands {
			subs = append(subs, c.build())
		}
	}
	rootFlags := ff.NewFlagSet("aiperf")
	return &ff.Command{
		Name:        "aiperf",
		Usage:       "aiperf <command> [flags]",
		ShortHelp:   "benchmark generative-AI inference servers",
		Flags:       rootFlags,
		Subcommands: subs,
	}
}

// firstWord is args' first argument, the subcommand's name when one is
// given ("" when there is none).
func firstWord(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}
