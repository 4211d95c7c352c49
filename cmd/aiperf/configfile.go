package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/peterbourgon/ff/v4"
	"gopkg.in/yaml.v3"

	"github.com/aiperf-go/aiperf/runner"
)

// A config file holds flag values in one of two layouts:
//
//   - flat: every key is a long flag name (`concurrency: 4`), a list sets a
//     repeatable flag once per item, and a nested mapping joins its keys
//     with '.' (`http: {video-poll-interval: 0.1}` is
//     --http.video-poll-interval), as ff's ffyaml reads it, except that an
//     empty value leaves the flag at its default;
//   - GenAI-Perf's nested layout (`genai-perf config -f FILE`): top-level
//     model_names, endpoint, input, perf_analyzer, output, tokenizer,
//     analyze and process sections, translated key by key onto the same
//     flags (see genaiFields).
//
// Either way the values go through the flags, so validation and aliases
// are those of the command line, and a flag given on the command line or in
// the environment wins over the file.

// configSetter sets a flag by long name, as ff's config-file callback does:
// it returns an error wrapping ff.ErrUnknownFlag for a name that is no
// flag, and does nothing for a flag already given (command line or env).
type configSetter func(name, value string) error

// configApply holds what reading a config file needs besides the setter.
type configApply struct {
	file string // the file's name, for messages
	set  configSetter
	// given reports whether a flag (long name) was given on the command
	// line or in the environment; nested stimulus and measurement settings
	// are skipped as a whole when any of theirs was (GenAI-Perf's
	// --override-config replaces the stimulus, not one number of it).
	given func(name string) bool
	// nodes counts the values visited, against maxConfigNodes: YAML
	// aliases can make a short file expand without end.
	nodes *int
}

// maxConfigNodes bounds the values of a config file, aliases expanded;
// maxFlatDepth the nesting of a flat file's mappings (flag names have a
// dot or two).
const (
	maxConfigNodes = 100_000
	maxFlatDepth   = 16
)

// visit counts one value of the file, failing past maxConfigNodes.
func (a configApply) visit(line int) error {
	if a.nodes == nil {
		return nil
	}
	if *a.nodes++; *a.nodes > maxConfigNodes {
		return fmt.Errorf("%s:%d: more than %d values (aliases expanding without end?)", a.file, line, maxConfigNodes)
	}
	return nil
}

// applyConfigYAML reads data, a YAML config file in either layout, and sets
// its values through a.set. Every error names the file, the line and the
// key; an unknown key also names the nearest valid one.
func applyConfigYAML(data []byte, a configApply) error {
	a.nodes = new(int)
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("%s: %w", a.file, err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil // an empty file sets nothing
	}
	root := resolveAlias(doc.Content[0])
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return nil
	}
	if root.Kind != yaml.MappingNode {
		return fmt.Errorf("%s:%d: the config file must be a mapping of keys to values", a.file, root.Line)
	}
	switch {
	case isGenAIPerfLayout(root):
		return applyGenAIPerf(root, a)
	case isAIPerfV2Layout(root):
		return fmt.Errorf("%s:%d: AIPerf's schemaVersion 2.0 layout (benchmark:, phases:, sweep:) is not read by aiperf-go: write the settings as flag names (`aiperf config init` prints a starter file) or in GenAI-Perf's layout (`aiperf create-template`)", a.file, root.Line)
	}
	return applyFlat("", root, a)
}

// isGenAIPerfLayout reports whether root (a mapping) is GenAI-Perf's
// layout: it has model_names/model_name or one of the sections (endpoint,
// tokenizer and output are also flat flag names, so they count only as
// mappings).
func isGenAIPerfLayout(root *yaml.Node) bool {
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, val := root.Content[i].Value, resolveAlias(root.Content[i+1])
		switch key {
		case "model_names", "model_name", "perf_analyzer", "input", "analyze", "process":
			return true
		case "endpoint", "tokenizer", "output":
			if val.Kind == yaml.MappingNode {
				return true
			}
		}
	}
	return false
}

// isAIPerfV2Layout reports whether root is AIPerf 0.13's config schema 2.0.
func isAIPerfV2Layout(root *yaml.Node) bool {
	for i := 0; i+1 < len(root.Content); i += 2 {
		switch root.Content[i].Value {
		case "schemaVersion", "schema_version", "benchmark":
			return true
		}
	}
	return false
}

// applyFlat sets the flat layout's keys: prefix is the dotted name of the
// mapping m within the file ("" at the top).
func applyFlat(prefix string, m *yaml.Node, a configApply) error {
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], resolveAlias(m.Content[i+1])
		name := k.Value
		if prefix != "" {
			name = prefix + "." + name
		}
		if err := applyFlatValue(name, k.Line, v, a); err != nil {
			return err
		}
	}
	return nil
}

// applyFlatValue sets flag name from v: a scalar once (null, an empty
// value, not at all: ffyaml set ""), a sequence once per item, a mapping by
// its dotted keys.
func applyFlatValue(name string, line int, v *yaml.Node, a configApply) error {
	if err := a.visit(line); err != nil {
		return err
	}
	switch v.Kind {
	case yaml.MappingNode:
		if strings.Count(name, ".") >= maxFlatDepth {
			return fmt.Errorf("%s:%d: %s: nested deeper than %d levels", a.file, line, name, maxFlatDepth)
		}
		return applyFlat(name, v, a)
	case yaml.SequenceNode:
		for _, item := range v.Content {
			item = resolveAlias(item)
			if item.Kind != yaml.ScalarNode {
				return fmt.Errorf("%s:%d: %s: a list item must be a single value", a.file, item.Line, name)
			}
			if err := setFlat(name, item.Line, scalarText(item), a); err != nil {
				return err
			}
		}
		return nil
	}
	if isNull(v) {
		return nil // an empty value leaves the flag at its default
	}
	return setFlat(name, line, scalarText(v), a)
}

// setFlat sets one flat key, turning an unknown name into a message with
// the file, the line and the nearest flag name.
func setFlat(name string, line int, value string, a configApply) error {
	err := a.set(name, value)
	if err == nil {
		return nil
	}
	if errors.Is(err, ff.ErrUnknownFlag) {
		return unknownKeyError(a.file, line, name, flagNames())
	}
	return fmt.Errorf("%s:%d: %w", a.file, line, err)
}

// unknownKeyError says that key (at file:line) is no valid key, naming the
// nearest of valid when it is close enough to be a misspelling.
func unknownKeyError(file string, line int, key string, valid []string) error {
	msg := fmt.Sprintf("%s:%d: unknown key %q", file, line, key)
	if near, ok := nearestName(key, valid); ok {
		msg += fmt.Sprintf(" (did you mean %q?)", near)
	}
	return errors.New(msg)
}

// nearestName returns the name in valid fewest edits from key, when within
// a third of key's length (at least 2 edits); ties go to the earlier name
// in sort order.
func nearestName(key string, valid []string) (string, bool) {
	return nearest(key, valid, max(2, len(key)/3))
}

// resolveAlias follows a YAML alias (*anchor) to its node.
func resolveAlias(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// scalarText is a scalar's value as ffyaml passes it to a flag: numbers as
// Go formats them (0x10 is 16), booleans as true or false, null as "",
// anything else (strings, timestamps) as written.
func scalarText(n *yaml.Node) string {
	switch n.ShortTag() {
	case "!!null":
		return ""
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			return strconv.FormatBool(b)
		}
	case "!!int":
		var i int64
		if n.Decode(&i) == nil {
			return strconv.FormatInt(i, 10)
		}
	case "!!float":
		var f float64
		if n.Decode(&f) == nil {
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
	}
	return n.Value
}

// profileFlagInfo is what the config readers need to know about profile's
// flags: every long name (aliases too), and each one's default value.
type profileFlagInfo struct {
	names    []string
	defaults map[string]string
	usage    map[string]string
	aliases  map[string][]string // flag → its aliases' names
}

// profileFlagsInfo builds profile's flag set once, on first use.
var profileFlagsInfo = sync.OnceValue(func() profileFlagInfo {
	cfg := runner.Defaults()
	var verbose int
	var configFile string
	fs := profileFlags(&cfg, &verbose, &configFile)
	info := profileFlagInfo{defaults: map[string]string{}, usage: map[string]string{}, aliases: map[string][]string{}}
	_ = fs.WalkFlags(func(f ff.Flag) error {
		if name, ok := f.GetLongName(); ok {
			info.names = append(info.names, name)
			info.defaults[name] = f.GetValue()
			info.usage[name] = f.GetUsage()
			// An alias's usage is "alias of --FLAG" (and a placeholder).
			if rest, ok := strings.CutPrefix(f.GetUsage(), "alias of --"); ok {
				target, _, _ := strings.Cut(rest, " ")
				info.aliases[target] = append(info.aliases[target], name)
			}
		}
		return nil
	})
	slices.Sort(info.names)
	return info
})

// flagNames returns profile's long flag names, sorted.
func flagNames() []string { return profileFlagsInfo().names }

// configFileParser is ff's config-file parser for profile's --config: it
// reads either layout (see applyConfigYAML). given is the command line,
// for the nested layout's stimulus and measurement groups.
func configFileParser(given []string) func(io.Reader, func(name, value string) error) error {
	return func(r io.Reader, set func(name, value string) error) error {
		data, err := io.ReadAll(r)
		if err != nil {
			return fmt.Errorf("read config file: %w", err)
		}
		return applyConfigYAML(data, configApply{file: readerName(r), set: set, given: argsGive(given)})
	}
}

// readerName is the file name behind r, as ff opens it, or "config file".
func readerName(r io.Reader) string {
	if f, ok := r.(interface{ Name() string }); ok {
		return f.Name()
	}
	if f, ok := r.(interface{ Stat() (os.FileInfo, error) }); ok {
		if st, err := f.Stat(); err == nil {
			return st.Name()
		}
	}
	return "config file"
}

// argsGive reports whether a flag (long name) appears in args, the command
// line as typed, or has its AIPERF_* environment variable set.
func argsGive(args []string) func(name string) bool {
	return func(name string) bool {
		if os.Getenv(envKey(name)) != "" {
			return true
		}
		for _, a := range args {
			if a == "--" {
				break
			}
			if a == "--"+name || strings.HasPrefix(a, "--"+name+"=") {
				return true
			}
		}
		return false
	}
}
