package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/peterbourgon/ff/v4"

	"github.com/aiperf-go/aiperf/internal/command"
	"github.com/aiperf-go/aiperf/runner"
)

// Flags of `aiperf config` that are not benchmark settings: its own
// (ownFlags), and those expand leaves out (notSettings). GenAI-Perf lets
// them go without --override-config (overrideExempt), and the console flags
// too, as no GenAI-Perf config key sets them.
var (
	ownFlags       = []string{"file", "override-config"}
	notSettings    = append(slices.Clone(ownFlags), "verbose", "config")
	overrideExempt = append(slices.Clone(notSettings), "ui-type", "ui", "log-level")
)

// configArgs are `aiperf config`'s settings, profile's (from
// runner.Defaults()) under its own -f/--file and --override-config, and
// the flag set that parses them.
type configArgs struct {
	cfg              runner.Config
	verbose          int
	configFile, file string
	override         bool
	fs               *ff.FlagSet
}

// newConfigArgs returns `aiperf config`'s settings with their flag set.
func newConfigArgs() *configArgs {
	a := &configArgs{cfg: runner.Defaults()}
	a.fs = ff.NewFlagSet("Config").SetParent(profileFlags(&a.cfg, &a.verbose, &a.configFile))
	a.fs.StringVar(&a.file, 'f', "file", "", "the config `FILE`: GenAI-Perf's nested layout or flag names (see docs/config.md)")
	a.fs.BoolVar(&a.override, 0, "override-config", "let the profile flags given here override the file's values (GenAI-Perf's --override-config)")
	return a
}

// newConfigCommand is `aiperf config -f FILE [--override-config FLAGS…]`,
// GenAI-Perf's `genai-perf config`, with init, validate and expand as
// AIPerf has them.
func newConfigCommand(given []string, stdout, stderr io.Writer) *ff.Command {
	a := newConfigArgs()
	cmd := &ff.Command{
		Name:      "config",
		Usage:     "aiperf config -f FILE [--override-config FLAGS...] | aiperf config <init|validate|expand> [flags]",
		ShortHelp: "run a benchmark from a config file (GenAI-Perf's layout or flag names); init, validate, expand",
		Flags:     a.fs,
		Subcommands: []*ff.Command{
			newConfigInitCommand(stdout),
			newConfigValidateCommand(given, stdout),
			newConfigExpandCommand(given, stdout),
		},
	}
	cmd.Exec = func(ctx context.Context, rest []string) error {
		if a.file == "" {
			return command.Usage(errors.New("-f/--file is required: aiperf config -f FILE (aiperf create-template writes one)"))
		}
		if !a.override {
			if name, ok := overridingFlag(given); ok {
				return command.Usage(fmt.Errorf("--%s given without --override-config: to override the config file's values from the command line, add --override-config (as GenAI-Perf requires)", name))
			}
		}
		if err := applyConfigFile(a.fs, a.file); err != nil {
			return command.Usage(err)
		}
		if err := finishProfileConfig(&a.cfg, a.fs, a.verbose, rest, given); err != nil {
			return err
		}
		return runProfile(ctx, &a.cfg, stdout, stderr)
	}
	return cmd
}

// overridingFlag returns the first profile setting given on the `aiperf
// config` command line args (as typed: "config", then its flags), if any.
func overridingFlag(args []string) (string, bool) {
	if len(args) > 0 && args[0] == "config" {
		args = args[1:]
	}
	fs := newConfigArgs().fs
	if fs.Parse(args) != nil {
		return "", false // the real parse reports it
	}
	var found string
	_ = fs.WalkFlags(func(f ff.Flag) error {
		name, _ := f.GetLongName()
		if found == "" && f.IsSet() && !slices.Contains(overrideExempt, name) {
			found = name
		}
		return nil
	})
	return found, found != ""
}

// applyConfigFile reads the config file (either layout) into fs; flags
// already set (command line, environment) keep their values.
func applyConfigFile(fs *ff.FlagSet, file string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("config file: %w", err)
	}
	provided := map[ff.Flag]bool{}
	_ = fs.WalkFlags(func(f ff.Flag) error {
		if f.IsSet() {
			provided[f] = true
		}
		return nil
	})
	byEnv := map[string]ff.Flag{} // AIPERF_* keys, as ff accepts them in a file
	_ = fs.WalkFlags(func(f ff.Flag) error {
		if long, ok := f.GetLongName(); ok {
			byEnv[envKey(long)] = f
		}
		return nil
	})
	set := func(name, value string) error {
		f, ok := fs.GetFlag(name)
		if !ok {
			f, ok = byEnv[name]
		}
		if !ok || slices.Contains(ownFlags, name) {
			return fmt.Errorf("%s: %w", name, ff.ErrUnknownFlag)
		}
		if provided[f] {
			return nil
		}
		if err := f.SetValue(value); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	}
	given := func(name string) bool {
		f, ok := fs.GetFlag(name)
		return ok && provided[f]
	}
	return applyConfigYAML(data, configApply{file: file, set: set, given: given})
}

// loadConfigFile resolves a profile configuration from the environment and
// file as `aiperf profile --config FILE` would, and validates it. given is
// the command line, recorded in the configuration.
func loadConfigFile(file string, given []string) (*runner.Config, *ff.FlagSet, error) {
	cfg := runner.Defaults()
	var verbose int
	var configFile string
	fs := profileFlags(&cfg, &verbose, &configFile)
	if err := ff.Parse(fs, nil, ff.WithEnvVarPrefix("AIPERF")); err != nil {
		return nil, nil, command.Usage(err)
	}
	if err := applyConfigFile(fs, file); err != nil {
		return nil, nil, command.Usage(err)
	}
	if err := finishProfileConfig(&cfg, fs, verbose, nil, given); err != nil {
		return nil, nil, err
	}
	return &cfg, fs, nil
}

// configFileArg is the one config file a subcommand takes, as a positional
// argument or its --config-file flag.
func configFileArg(flagValue string, rest []string) (string, error) {
	switch {
	case flagValue != "" && len(rest) == 0:
		return flagValue, nil
	case flagValue == "" && len(rest) == 1:
		return rest[0], nil
	case flagValue == "" && len(rest) == 0:
		return "", command.Usage(errors.New("give the config file: a path, or --config-file PATH"))
	}
	extra := rest[0] // beside --config-file
	if flagValue == "" {
		extra = rest[1]
	}
	return "", command.Usage(fmt.Errorf("unexpected argument %q: give one config file (flags go before it)", extra))
}

// newConfigValidateCommand is `aiperf config validate FILE`: the file goes
// through profile's parsing and checks; nothing is sent.
func newConfigValidateCommand(given []string, stdout io.Writer) *ff.Command {
	fs := ff.NewFlagSet("validate")
	file := fs.StringLong("config-file", "", "the config `FILE` to check (or give it as the argument)")
	return &ff.Command{
		Name:      "validate",
		Usage:     "aiperf config validate FILE",
		ShortHelp: "check a config file as profile would, without sending anything (exit 2 with the problems)",
		Flags:     fs,
		Exec: func(_ context.Context, rest []string) error {
			path, err := configFileArg(*file, rest)
			if err != nil {
				return err
			}
			if _, _, err := loadConfigFile(path, given); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%s: valid\n", path)
			return nil
		},
	}
}
