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
	format := fs.StringEnumLong("format", "output `FORMAT`: yaml (flag names, readable by --config) or json", "yaml", "json")
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

// expandSettings renders fs's resolved settings as YAML (flat flag names,
// plain scalars where YAML reads them back as the same text) or as a JSON
// object of strings.
func expandSettings(fs *ff.FlagSet, format string) ([]byte, error) {
	settings := resolvedSettings(fs)
	if format == "json" {
		var b bytes.Buffer
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
	m := &yaml.Node{Kind: yaml.MappingNode}
	for _, s := range settings {
		m.Content = append(m.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Value: s.name},
			&yaml.Node{Kind: yaml.ScalarNode, Value: s.value})
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(m); err != nil {
		return nil, fmt.Errorf("expand: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("expand: %w", err)
	}
	return b.Bytes(), nil
}
