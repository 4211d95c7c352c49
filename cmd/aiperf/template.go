package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/peterbourgon/ff/v4"
	"gopkg.in/yaml.v3"

	"github.com/aiperf-go/aiperf/internal/command"
)

// defaultTemplateFile is the file create-template writes, as GenAI-Perf's.
const defaultTemplateFile = "genai_perf_config.yaml"

// newCreateTemplateCommand is `aiperf create-template [-f NAME] [-v]`,
// GenAI-Perf's `genai-perf create-template`.
func newCreateTemplateCommand(stdout io.Writer) *ff.Command {
	fs := ff.NewFlagSet("create-template")
	file := fs.String('f', "file", defaultTemplateFile, "the `FILE` to write (it must not exist)")
	verbose := fs.Bool('v', "verbose", "add each option's help text as comments")
	return &ff.Command{
		Name:      "create-template",
		Usage:     "aiperf create-template [-f FILE] [-v]",
		ShortHelp: "write a config file in GenAI-Perf's layout with every option at its default (run it with aiperf config -f FILE)",
		Flags:     fs,
		Exec: func(_ context.Context, rest []string) error {
			if len(rest) > 0 {
				return command.Usage(fmt.Errorf("unexpected argument %q: name the file with -f FILE", rest[0]))
			}
			if err := writeNewFile(*file, genaiTemplate(*verbose)); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "wrote %s: set model_names, then run aiperf config -f %s\n", *file, *file)
			return nil
		},
	}
}

// genaiTemplate renders GenAI-Perf's layout with every key at aiperf's
// default (or GenAI-Perf's, where reading it back sets nothing: see
// genaiField.def), grouped and ordered as GenAI-Perf's template; verbose
// adds each key's help text.
func genaiTemplate(verbose bool) []byte {
	info := profileFlagsInfo()
	var b bytes.Buffer
	b.WriteString("# GenAI-Perf's config layout, every option at aiperf's default.\n")
	b.WriteString("# Set model_names, then run: aiperf config -f FILE (see docs/config.md).\n\n")
	var open []string // the sections the previous key was in
	for _, f := range genaiFields {
		if f.hidden {
			continue
		}
		parts := strings.Split(f.path, ".")
		sections, key := parts[:len(parts)-1], parts[len(parts)-1]
		common := 0
		for common < len(open) && common < len(sections) && open[common] == sections[common] {
			common++
		}
		for i := common; i < len(sections); i++ {
			if i == 0 && !bytes.HasSuffix(b.Bytes(), []byte("\n\n")) {
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "%s%s:\n", indent(i), sections[i])
		}
		open = sections
		value, help := f.def, f.help
		if def, ok := info.defaults[f.flag]; ok {
			help = info.usage[f.flag]
			if value == "" {
				value = def
			}
		}
		if verbose && help != "" {
			writeComment(&b, indent(len(sections)), help)
		}
		fmt.Fprintf(&b, "%s%s:%s\n", indent(len(sections)), key, templateValue(f, value))
		if verbose && help != "" {
			b.WriteString("\n")
		}
		if f.path == "model_names" {
			if !bytes.HasSuffix(b.Bytes(), []byte("\n\n")) {
				b.WriteString("\n")
			}
			b.WriteString("analyze:\n")
			b.WriteString("  # Uncomment to sweep, as GenAI-Perf's analyze does: one run per value\n")
			b.WriteString("  # (powers of two from start to stop, or start to stop by step).\n")
			b.WriteString("  # concurrency:\n  #   start: 1\n  #   stop: 64\n")
		}
	}
	return b.Bytes()
}

// indent is the indentation of YAML nesting level n.
func indent(n int) string { return strings.Repeat("  ", n) }

// templateValue renders a template value after its key's colon: nothing
// for an empty value, the stimulus mapping as written, a plain scalar
// where YAML reads it back as the same text, else a quoted one.
func templateValue(f genaiField, value string) string {
	switch {
	case value == "":
		return ""
	case f.kind == kindStimulus:
		return " " + value
	}
	var n yaml.Node
	if yaml.Unmarshal([]byte(value), &n) == nil && len(n.Content) == 1 &&
		n.Content[0].Kind == yaml.ScalarNode && scalarText(n.Content[0]) == value {
		return " " + value
	}
	out, _ := yaml.Marshal(value)
	return " " + strings.TrimSpace(string(out))
}

// writeComment writes text as YAML comment lines at ind, wrapped at about
// 88 columns.
func writeComment(b *bytes.Buffer, ind, text string) {
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(ind)+2+len(line)+1+len(w) > 88 {
			fmt.Fprintf(b, "%s# %s\n", ind, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		fmt.Fprintf(b, "%s# %s\n", ind, line)
	}
}
