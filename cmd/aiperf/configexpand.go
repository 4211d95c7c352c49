package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/peterbourgon/ff/v4"
	"gopkg.in/yaml.v3"

	"github.com/aiperf-go/aiperf/internal/command"
)

// newConfigExpandCommand is `aiperf config expand FILE`: the fully resolved
// profile configuration (defaults, environment, file), every setting with
// its effective value, in flag order.
func newConfigExpandCommand(given []string, stdout io.Writer) *ff.Command {
	fs := ff.NewFlagSet("expand")
	file := fs.StringLong("config-file", "", "the config `FILE` to expand (or give it as the argument)")
	format := fs.StringEnumLong("format", "output `FORMAT`: yaml (flag names, readable by --config; settings at their defaults as comments) or json", "yaml", "json")
	return &ff.Command{
		Name:      "expand",
		Usage:     "aiperf config expand [--format yaml|json] FILE",
		ShortHelp: "print every setting with its effective value after the file, the environment and the defaults",
		Flags:     fs,
		Exec: func(_ context.Context, rest []string) error {
			path, err := configFileArg(*file, rest)
			if err != nil {
				return err
			}
			_, pfs, err := loadConfigFile(path, given)
			if err != nil {
				return err
			}
			out, err := expandSettings(pfs, *format)
			if err != nil {
				return command.Usage(err)
			}
			_, err = stdout.Write(out)
			return err
		},
	}
}

// setting is one resolved flag: its long name and value.
type setting struct{ name, value string }

// resolvedSettings are fs's settings in flag order: one per flag (aliases
// and the config file and verbosity flags left out), with current values.
func resolvedSettings(fs *ff.FlagSet) []setting {
	var out []setting
	_ = fs.WalkFlags(func(f ff.Flag) error {
		name, ok := f.GetLongName()
		if !ok || strings.HasPrefix(f.GetUsage(), "alias of --") || slices.Contains(notSettings, name) {
			return nil
		}
		out = append(out, setting{name, f.GetValue()})
		return nil
	})
	return out
}

// expandSettings renders fs's resolved settings as YAML or as a JSON object
// of strings. The YAML uses flag names and reads back as the same
// configuration: a setting at its default is written as a comment (live, it
// would count as given, which some checks refuse).
func expandSettings(fs *ff.FlagSet, format string) ([]byte, error) {
	settings := resolvedSettings(fs)
	var b bytes.Buffer
	if format == "json" {
		b.WriteString("{\n")
		for i, s := range settings {
			k, _ := json.Marshal(s.name)
			v, _ := json.Marshal(s.value)
			sep := ","
			if i == len(settings)-1 {
				sep = ""
			}
			fmt.Fprintf(&b, "  %s: %s%s\n", k, v, sep)
		}
		b.WriteString("}\n")
		return b.Bytes(), nil
	}
	defaults := profileFlagsInfo().defaults
	for _, s := range settings {
		pair := &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
			{Kind: yaml.ScalarNode, Value: s.name}, {Kind: yaml.ScalarNode, Value: s.value}}}
		out, err := yaml.Marshal(pair)
		if err != nil {
			return nil, fmt.Errorf("expand %s: %w", s.name, err)
		}
		if def, ok := defaults[s.name]; ok && def == s.value {
			out = append([]byte("# "), bytes.ReplaceAll(bytes.TrimSuffix(out, []byte("\n")), []byte("\n"), []byte("\n# "))...)
			out = append(out, '\n')
		}
		b.Write(out)
	}
	return b.Bytes(), nil
}
