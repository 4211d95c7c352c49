package main

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/peterbourgon/ff/v4"

	"github.com/aiperf-go/aiperf/internal/command"
)

// unknownFlagName reads the flag name out of ff's "unknown flag" error.
var unknownFlagName = regexp.MustCompile(`unknown flag "([^"]*)"`)

// hintUnknownFlag rewrites err, when it is an unknown flag of the command
// root selected, into one line naming the flag, the nearest flag that
// command has, and its --help; other errors pass unchanged.
func hintUnknownFlag(err error, root *ff.Command) error {
	if err == nil || !errors.Is(err, ff.ErrUnknownFlag) {
		return err
	}
	m := unknownFlagName.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	cmd := root.GetSelected()
	if cmd == nil {
		cmd = root
	}
	name := "--" + m[1]
	if len([]rune(m[1])) == 1 {
		name = "-" + m[1]
	}
	msg := fmt.Sprintf("unknown flag %s", name)
	if family := unimplementedFamily(m[1]); family != "" {
		msg += ": AIPerf 0.13's " + family + ", which aiperf does not implement (docs/cli.md)"
	} else if near := nearestFlag(m[1], cmd.Flags); near != "" {
		msg += fmt.Sprintf(": did you mean --%s?", near)
	}
	path := strings.Join(commandPath(root, cmd), " ")
	return command.Usage(fmt.Errorf("%s (see %s --help)", msg, path))
}

// unimplementedFamilies are the AIPerf 0.13 option families aiperf does not
// implement, by flag prefix (docs/cli.md lists every such flag).
var unimplementedFamilies = []struct{ prefix, family string }{
	{"accuracy-", "accuracy benchmarking"},
	{"mlflow-", "MLflow export"}, {"wandb-", "Weights & Biases export"}, {"otel-", "OpenTelemetry streaming"},
	{"search-", "search planner"}, {"optuna-", "search planner"}, {"convergence-", "convergence stopping"},
	{"parameter-sweep-", "parameter sweep planner"}, {"degradation-", "search planner"},
	{"network-latency-", "network latency compensation"}, {"reset-kv-cache", "KV-cache reset endpoint"},
	{"server-profiler", "server profiler control"}, {"wait-for-model-", "wait-for-model probe"},
	{"agentic-", "agentic replay"}, {"trajectory-", "agentic replay"},
}

// unimplementedFamily names the family of an AIPerf 0.13 option aiperf
// does not implement, or "".
func unimplementedFamily(name string) string {
	for _, f := range unimplementedFamilies {
		if strings.HasPrefix(name, f.prefix) {
			return f.family
		}
	}
	return ""
}

// commandPath is the command names from root to cmd.
func commandPath(root, cmd *ff.Command) []string {
	if root == cmd {
		return []string{root.Name}
	}
	for _, sub := range root.Subcommands {
		if p := commandPath(sub, cmd); p != nil {
			return append([]string{root.Name}, p...)
		}
	}
	return nil
}

// nearestFlag returns the long flag of fs (and its parents) closest to name
// by edit distance, or "" when none is within a third of name's length, or
// 2 edits for a name of 4 letters or more (two letters swapped: --modle).
func nearestFlag(name string, fs ff.Flags) string {
	if fs == nil {
		return ""
	}
	var longs []string
	_ = fs.WalkFlags(func(f ff.Flag) error {
		if long, ok := f.GetLongName(); ok {
			longs = append(longs, long)
		}
		return nil
	})
	limit := len(name) / 3
	if len(name) >= 4 {
		limit = max(limit, 2)
	}
	if best, ok := nearest(name, longs, limit); ok {
		return best
	}
	return ""
}
