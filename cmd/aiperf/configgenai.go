package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/peterbourgon/ff/v4"
	"gopkg.in/yaml.v3"
)

// genaiRun collects the keys whose meaning depends on others (measurement
// mode and number) while the file is walked.
type genaiRun struct {
	a           configApply
	measureMode string
	measureNum  string
	measureLine int
}

// applyGenAIPerf translates GenAI-Perf's nested layout (root) onto flags.
func applyGenAIPerf(root *yaml.Node, a configApply) error {
	g := &genaiRun{a: a}
	if err := g.walk("", root); err != nil {
		return err
	}
	return g.applyMeasurement()
}

// walk visits the mapping m at dotted path prefix.
func (g *genaiRun) walk(prefix string, m *yaml.Node) error {
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], resolveAlias(m.Content[i+1])
		if err := g.a.visit(k.Line); err != nil {
			return err
		}
		path := k.Value
		if prefix != "" {
			path = prefix + "." + k.Value
		}
		if j := slices.IndexFunc(genaiFields, func(f genaiField) bool { return f.path == path }); j >= 0 {
			if err := g.field(genaiFields[j], k.Line, v); err != nil {
				return err
			}
			continue
		}
		if !slices.Contains(genaiSections, path) {
			return unknownKeyError(g.a.file, k.Line, path, genaiKeys)
		}
		switch {
		case isNull(v):
			// An empty section (analyze:, process: in the template).
		case v.Kind == yaml.MappingNode:
			if err := g.walk(path, v); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s:%d: %s must be a mapping of keys", g.a.file, k.Line, path)
		}
	}
	return nil
}

// field applies one key's value v (at line).
func (g *genaiRun) field(f genaiField, line int, v *yaml.Node) error {
	at := func(format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s: %s", g.a.file, line, f.path, fmt.Sprintf(format, args...))
	}
	if isNull(v) || v.Kind == yaml.ScalarNode && v.Value == "" && v.Style != 0 {
		return nil // unset, as GenAI-Perf reads None and ""
	}
	switch f.kind {
	case kindNoEffect:
		return nil
	case kindUnsupported:
		return at("not supported by aiperf (leave it empty)")
	case kindStimulus:
		return g.stimulus(f, line, v)
	case kindMeasureMode:
		s, err := scalarOf(v)
		if err != nil {
			return at("%v", err)
		}
		g.measureMode, g.measureLine = strings.ToLower(s), line
		return nil
	case kindMeasureNum:
		s, err := scalarOf(v)
		if err != nil {
			return at("%v", err)
		}
		g.measureNum = s
		if g.measureLine == 0 {
			g.measureLine = line
		}
		return nil
	case kindInterval:
		s, err := scalarOf(v)
		if err != nil {
			return at("%v", err)
		}
		g.measureMode, g.measureNum, g.measureLine = "interval", s, line
		return nil
	case kindSweep:
		list, err := sweepList(v)
		if err != nil {
			return at("%v", err)
		}
		if g.anyGiven(stimulusFlags) {
			return nil
		}
		return g.set(f, line, list)
	case kindSweepRange:
		r, err := sweepRange(v)
		if err != nil {
			return at("%v", err)
		}
		if g.anyGiven([]string{f.flag}) {
			return nil
		}
		return g.set(f, line, r)
	case kindGoodput:
		return g.goodput(f, line, v)
	case kindExtra:
		return g.extra(f, line, v)
	}
	if v.Kind == yaml.SequenceNode {
		items := make([]string, 0, len(v.Content))
		for _, item := range v.Content {
			s, err := scalarOf(resolveAlias(item))
			if err != nil {
				return at("%v", err)
			}
			items = append(items, s)
		}
		switch f.kind {
		case kindEach:
			for _, s := range items {
				if err := g.set(f, line, s); err != nil {
					return err
				}
			}
			return nil
		case kindJoined:
			return g.set(f, line, strings.Join(items, ","))
		}
		return at("takes one value, not a list")
	}
	s, err := scalarOf(v)
	if err != nil {
		return at("%v", err)
	}
	switch f.kind {
	case kindLower:
		s = strings.ToLower(s)
	case kindJoined:
		s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }), ",")
	case kindFile:
		if rest, ok := strings.CutPrefix(s, "synthetic:"); ok {
			return at("synthetic:%s (named synthetic files) is not supported by aiperf", rest)
		}
		s = strings.TrimPrefix(s, "payload:")
	}
	return g.set(f, line, s)
}

// anyGiven reports whether any of flags, or of their aliases, was given on
// the command line or in the environment.
func (g *genaiRun) anyGiven(flags []string) bool {
	if g.a.given == nil {
		return false
	}
	for _, f := range flags {
		if g.a.given(f) || slices.ContainsFunc(profileFlagsInfo().aliases[f], g.a.given) {
			return true
		}
	}
	return false
}

// set sets f's flag to value unless value is the flag's default (GenAI-Perf's
// template spells out every default; setting them would mark them given).
func (g *genaiRun) set(f genaiField, line int, value string) error {
	if def, ok := profileFlagsInfo().defaults[f.flag]; ok && sameValue(def, value) && f.kind != kindEach {
		return nil
	}
	if f.def != "" && sameValue(f.def, value) {
		return nil
	}
	err := g.a.set(f.flag, value)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ff.ErrUnknownFlag):
		return fmt.Errorf("%s:%d: %s: not supported by aiperf (no --%s)", g.a.file, line, f.path, f.flag)
	}
	return fmt.Errorf("%s:%d: %s: %w", g.a.file, line, f.path, err)
}

// stimulus applies perf_analyzer.stimulus: "fixed_schedule" or a mapping
// with one of concurrency, request_rate, session_concurrency,
// session_request_rate (a number) or fixed_schedule.
func (g *genaiRun) stimulus(f genaiField, line int, v *yaml.Node) error {
	if g.anyGiven(stimulusFlags) {
		return nil // the command line's stimulus replaces the file's
	}
	var kind, value string
	switch v.Kind {
	case yaml.ScalarNode:
		kind = v.Value
	case yaml.MappingNode:
		if len(v.Content) != 2 {
			return fmt.Errorf("%s:%d: %s: give one stimulus, e.g. {concurrency: 4}", g.a.file, line, f.path)
		}
		kind, line = v.Content[0].Value, v.Content[0].Line
		val := resolveAlias(v.Content[1])
		if !isNull(val) {
			s, err := scalarOf(val)
			if err != nil {
				return fmt.Errorf("%s:%d: %s.%s: %v", g.a.file, line, f.path, kind, err)
			}
			value = s
		}
	default:
		return fmt.Errorf("%s:%d: %s: give a mapping, e.g. {concurrency: 4}", g.a.file, line, f.path)
	}
	target := map[string]string{"concurrency": "concurrency", "session_concurrency": "concurrency",
		"request_rate": "request-rate", "session_request_rate": "request-rate", "fixed_schedule": "fixed-schedule"}[kind]
	switch {
	case target == "":
		return unknownKeyError(g.a.file, line, f.path+"."+kind, []string{f.path + ".concurrency", f.path + ".request_rate",
			f.path + ".session_concurrency", f.path + ".session_request_rate", f.path + ".fixed_schedule"})
	case target == "fixed-schedule":
		if value == "" {
			value = "true"
		}
	case value == "":
		return fmt.Errorf("%s:%d: %s.%s needs a number", g.a.file, line, f.path, kind)
	}
	return g.set(genaiField{path: f.path + "." + kind, flag: target}, line, value)
}

// applyMeasurement applies perf_analyzer.measurement once the whole file is
// read: request_count sets --request-count, interval --measurement-interval.
func (g *genaiRun) applyMeasurement() error {
	if g.measureLine == 0 || g.anyGiven(measureFlags) {
		return nil
	}
	f := genaiField{path: "perf_analyzer.measurement.num"}
	switch g.measureMode {
	case "", "request_count":
		if g.measureNum == "" {
			return nil
		}
		f.flag = "request-count"
		return g.set(f, g.measureLine, g.measureNum)
	case "interval":
		// Perf Analyzer's measurement windows of stability mode.
		f.flag = "measurement-interval"
		if g.measureNum == "" {
			g.measureNum = "10000" // GenAI-Perf's default window
		}
		return g.set(f, g.measureLine, g.measureNum)
	}
	return fmt.Errorf("%s:%d: perf_analyzer.measurement.mode %q is not valid: use request_count or interval", g.a.file, g.measureLine, g.measureMode)
}

// goodput applies input.goodput: a mapping of metric to number, or the
// flag's own "metric:value ..." string.
func (g *genaiRun) goodput(f genaiField, line int, v *yaml.Node) error {
	if v.Kind != yaml.MappingNode {
		s, err := scalarOf(v)
		if err != nil {
			return fmt.Errorf("%s:%d: %s: %v", g.a.file, line, f.path, err)
		}
		return g.set(f, line, s)
	}
	var parts []string
	for i := 0; i+1 < len(v.Content); i += 2 {
		s, err := scalarOf(resolveAlias(v.Content[i+1]))
		if err != nil {
			return fmt.Errorf("%s:%d: %s.%s: %v", g.a.file, v.Content[i].Line, f.path, v.Content[i].Value, err)
		}
		parts = append(parts, v.Content[i].Value+":"+s)
	}
	return g.set(f, line, strings.Join(parts, " "))
}

// extra applies input.extra: a mapping (each pair one JSON object, so that
// numbers, booleans and nested values keep their types), a list of
// "name:value" strings, or one such string.
func (g *genaiRun) extra(f genaiField, line int, v *yaml.Node) error {
	switch v.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(v.Content); i += 2 {
			var val any
			if err := resolveAlias(v.Content[i+1]).Decode(&val); err != nil {
				return fmt.Errorf("%s:%d: %s.%s: %w", g.a.file, v.Content[i].Line, f.path, v.Content[i].Value, err)
			}
			b, err := json.Marshal(map[string]any{v.Content[i].Value: jsonable(val)})
			if err != nil {
				return fmt.Errorf("%s:%d: %s.%s: %w", g.a.file, v.Content[i].Line, f.path, v.Content[i].Value, err)
			}
			if err := g.set(f, v.Content[i].Line, string(b)); err != nil {
				return err
			}
		}
		return nil
	case yaml.SequenceNode:
		for _, item := range v.Content {
			s, err := scalarOf(resolveAlias(item))
			if err != nil {
				return fmt.Errorf("%s:%d: %s: %v", g.a.file, item.Line, f.path, err)
			}
			if err := g.set(f, item.Line, s); err != nil {
				return err
			}
		}
		return nil
	}
	s, err := scalarOf(v)
	if err != nil {
		return fmt.Errorf("%s:%d: %s: %v", g.a.file, line, f.path, err)
	}
	return g.set(f, line, s)
}
