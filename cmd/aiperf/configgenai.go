package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/peterbourgon/ff/v4"
	"gopkg.in/yaml.v3"
)

// fieldKind says how a GenAI-Perf key's value becomes flag values.
type fieldKind int

const (
	kindScalar      fieldKind = iota // one value, set once
	kindLower                        // one value, lower-cased (a GenAI-Perf enum: RANDOM is random)
	kindEach                         // a list or a string: each item sets the flag once
	kindJoined                       // a list joined with commas, set once (audio depths)
	kindNoEffect                     // accepted for compatibility; aiperf has nothing to set
	kindUnsupported                  // accepted only empty; any value is an error
	kindStimulus                     // perf_analyzer.stimulus: {concurrency|request_rate|…: N}
	kindMeasureMode                  // perf_analyzer.measurement.mode
	kindMeasureNum                   // perf_analyzer.measurement.num
	kindInterval                     // perf_analyzer.measurement_interval (ms; legacy)
	kindGoodput                      // input.goodput: {metric: value}
	kindExtra                        // input.extra: {name: value} or ["name:value"]
	kindFile                         // input.file: a path, payload:PATH or synthetic:…
	kindSweep                        // analyze.concurrency / analyze.request_rate: {start, stop, step}
)

// genaiField is one key of GenAI-Perf's nested config layout.
type genaiField struct {
	path string    // dotted key, e.g. input.synthetic_tokens.mean
	flag string    // the aiperf flag it sets; "" for none
	kind fieldKind // how its value is read
	// def is GenAI-Perf's default where it differs from the flag's (or the
	// key has no flag): create-template writes it, and reading it sets
	// nothing, so that GenAI-Perf's own template keeps aiperf's defaults.
	def string
	// help is the template comment for a key without a flag (keys with a
	// flag take its usage text).
	help string
	// hidden: read, but not written by create-template (aliases, legacy
	// keys, analyze and process, which the template shows as comments).
	hidden bool
}

// genaiFields are GenAI-Perf's config keys in its template's order: each
// section's own keys, then its subsections (config/input/config_*.py).
var genaiFields = []genaiField{
	{path: "model_names", flag: "model", kind: kindEach},
	{path: "model_name", flag: "model", kind: kindEach, hidden: true},
	{path: "analyze.concurrency", flag: "concurrency", kind: kindSweep, hidden: true},
	{path: "analyze.request_rate", flag: "request-rate", kind: kindSweep, hidden: true},
	{path: "analyze.runtime_batch_size", kind: kindUnsupported, hidden: true},
	{path: "analyze.num_dataset_entries", kind: kindUnsupported, hidden: true},
	{path: "analyze.input_sequence_length", kind: kindUnsupported, hidden: true},

	{path: "endpoint.model_selection_strategy", flag: "model-selection-strategy", kind: kindLower},
	{path: "endpoint.backend", flag: "backend", kind: kindLower},
	{path: "endpoint.custom", flag: "endpoint", kind: kindScalar},
	{path: "endpoint.type", flag: "endpoint-type", kind: kindScalar},
	{path: "endpoint.streaming", flag: "streaming", kind: kindScalar},
	{path: "endpoint.server_metrics_urls", flag: "server-metrics", kind: kindEach},
	{path: "endpoint.server_metrics_url", flag: "server-metrics", kind: kindEach, hidden: true},
	{path: "endpoint.url", flag: "url", kind: kindEach},
	{path: "endpoint.grpc_method", kind: kindUnsupported, help: "dynamic gRPC (a fully-qualified <package>.<service>/<method>) is not supported by aiperf: leave empty"},

	{path: "perf_analyzer.path", kind: kindNoEffect, def: "perf_analyzer", help: "no effect: aiperf sends the requests itself, without a perf_analyzer binary"},
	{path: "perf_analyzer.verbose", kind: kindNoEffect, def: "false", help: "no effect (perf_analyzer's verbose output); use --verbose or log-level"},
	{path: "perf_analyzer.stimulus", kind: kindStimulus, def: "{concurrency: 1}", help: "the load: {concurrency: N} (closed loop), {request_rate: R} (requests per second), {session_concurrency: N} or {fixed_schedule: true}"},
	{path: "perf_analyzer.stability_percentage", flag: "stability-percentage", kind: kindScalar, def: "999"},
	{path: "perf_analyzer.warmup_request_count", flag: "warmup-request-count", kind: kindScalar},
	{path: "perf_analyzer.measurement_interval", kind: kindInterval, hidden: true},
	{path: "perf_analyzer.measurement.mode", kind: kindMeasureMode, def: "request_count", help: "request_count: send measurement.num requests (--request-count); interval: Perf Analyzer's stability mode, windows of measurement.num ms (--measurement-interval)"},
	{path: "perf_analyzer.measurement.num", kind: kindMeasureNum, def: "", help: "the request count or the window in ms; empty: the default request count, max(10, 2*concurrency), or 10000 ms"},

	{path: "input.batch_size", flag: "prompt-batch-size", kind: kindScalar},
	{path: "input.extra", flag: "extra-inputs", kind: kindExtra},
	{path: "input.goodput", flag: "goodput", kind: kindGoodput},
	{path: "input.header", flag: "header", kind: kindEach},
	{path: "input.file", flag: "input-file", kind: kindFile},
	{path: "input.num_dataset_entries", flag: "num-dataset-entries", kind: kindScalar},
	{path: "input.random_seed", flag: "random-seed", kind: kindScalar},
	{path: "input.audio.batch_size", flag: "audio-batch-size", kind: kindScalar},
	{path: "input.audio.format", flag: "audio-format", kind: kindLower},
	{path: "input.audio.depths", flag: "audio-depths", kind: kindJoined},
	{path: "input.audio.sample_rates", flag: "audio-sample-rates", kind: kindJoined},
	{path: "input.audio.num_channels", flag: "audio-num-channels", kind: kindScalar},
	{path: "input.audio.length.mean", flag: "audio-length-mean", kind: kindScalar},
	{path: "input.audio.length.stddev", flag: "audio-length-stddev", kind: kindScalar},
	{path: "input.image.batch_size", flag: "image-batch-size", kind: kindScalar},
	{path: "input.image.format", flag: "image-format", kind: kindLower},
	{path: "input.image.width.mean", flag: "image-width-mean", kind: kindScalar},
	{path: "input.image.width.stddev", flag: "image-width-stddev", kind: kindScalar},
	{path: "input.image.height.mean", flag: "image-height-mean", kind: kindScalar},
	{path: "input.image.height.stddev", flag: "image-height-stddev", kind: kindScalar},
	{path: "input.output_tokens.mean", flag: "osl", kind: kindScalar},
	{path: "input.output_tokens.deterministic", flag: "output-tokens-mean-deterministic", kind: kindScalar, def: "false"},
	{path: "input.output_tokens.stddev", flag: "osl-stddev", kind: kindScalar},
	{path: "input.synthetic_tokens.mean", flag: "isl", kind: kindScalar},
	{path: "input.synthetic_tokens.stddev", flag: "isl-stddev", kind: kindScalar},
	{path: "input.prefix_prompt.num", flag: "num-prefix-prompts", kind: kindScalar},
	{path: "input.prefix_prompt.length", flag: "prefix-prompt-length", kind: kindScalar},
	{path: "input.sessions.num", flag: "num-sessions", kind: kindScalar},
	{path: "input.sessions.turns.mean", flag: "session-turns-mean", kind: kindScalar},
	{path: "input.sessions.turns.stddev", flag: "session-turns-stddev", kind: kindScalar},
	{path: "input.sessions.turn_delay.mean", flag: "session-turn-delay-mean", kind: kindScalar},
	{path: "input.sessions.turn_delay.ratio", flag: "session-delay-ratio", kind: kindScalar},
	{path: "input.sessions.turn_delay.stddev", flag: "session-turn-delay-stddev", kind: kindScalar},

	{path: "output.artifact_directory", flag: "artifact-dir", kind: kindScalar},
	{path: "output.checkpoint_directory", flag: "checkpoint-dir", kind: kindScalar, def: "./checkpoint"},
	{path: "output.profile_export_file", flag: "profile-export-file", kind: kindScalar},
	{path: "output.generate_plots", flag: "generate-plots", kind: kindScalar, def: "false"},
	{path: "output.enable_checkpointing", flag: "enable-checkpointing", kind: kindScalar, def: "false"},

	{path: "tokenizer.name", flag: "tokenizer", kind: kindScalar},
	{path: "tokenizer.revision", flag: "tokenizer-revision", kind: kindScalar},
	{path: "tokenizer.trust_remote_code", flag: "tokenizer-trust-remote-code", kind: kindScalar},

	{path: "process.input_path", kind: kindUnsupported, hidden: true},
}

// stimulusFlags and measureFlags are the flags of the nested layout's
// stimulus and measurement: a file's stimulus (measurement) is skipped as a
// whole when any of them was given (aliases included).
var (
	stimulusFlags = []string{"concurrency", "request-rate", "fixed-schedule", "user-centric-rate"}
	measureFlags  = []string{"request-count", "num-requests", "benchmark-duration", "measurement-interval"}
)

// genaiSections are the dotted names of the layout's mappings.
var genaiSections = func() []string {
	var out []string
	for _, f := range genaiFields {
		parts := strings.Split(f.path, ".")
		for i := 1; i < len(parts); i++ {
			if s := strings.Join(parts[:i], "."); !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}()

// genaiKeys are every valid dotted key (fields and sections), for the
// nearest-key suggestion.
var genaiKeys = func() []string {
	out := slices.Clone(genaiSections)
	for _, f := range genaiFields {
		out = append(out, f.path)
	}
	return out
}()

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
		if slices.ContainsFunc(stimulusFlags, g.given) {
			return nil
		}
		return g.set(f, line, list)
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

// given reports whether flag was given on the command line or in the env.
func (g *genaiRun) given(flag string) bool { return g.a.given != nil && g.a.given(flag) }

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
	if slices.ContainsFunc(stimulusFlags, g.given) {
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
	if g.measureLine == 0 || slices.ContainsFunc(measureFlags, g.given) {
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

// jsonable turns YAML's decoded maps (map[string]any from yaml.v3, but
// map[any]any for non-string keys) into values encoding/json takes.
func jsonable(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = jsonable(x)
		}
		return v
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[fmt.Sprint(k)] = jsonable(x)
		}
		return out
	case []any:
		for i, x := range v {
			v[i] = jsonable(x)
		}
		return v
	}
	return v
}

// maxSweepValues bounds an analyze sweep (one benchmark per value).
const maxSweepValues = 1000

// sweepList reads an analyze sweep: {start, stop, step} is start, start +
// step, … up to stop; {start, stop} alone is the powers of two from start
// to stop, as GenAI-Perf's analyze searches concurrency and request rate; a
// list is itself. The result is the comma list the flag takes.
func sweepList(v *yaml.Node) (string, error) {
	if v.Kind == yaml.SequenceNode {
		items := make([]string, 0, len(v.Content))
		for _, item := range v.Content {
			s, err := scalarOf(resolveAlias(item))
			if err != nil {
				return "", err
			}
			items = append(items, s)
		}
		return strings.Join(items, ","), nil
	}
	if v.Kind != yaml.MappingNode {
		return "", errors.New("give {start: N, stop: M} or {start, stop, step}")
	}
	r := map[string]int{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k := v.Content[i].Value
		if k != "start" && k != "stop" && k != "step" {
			return "", fmt.Errorf("unknown key %q: use start, stop and step", k)
		}
		var n int
		if err := v.Content[i+1].Decode(&n); err != nil || n < 1 {
			return "", fmt.Errorf("%s must be an integer >= 1", k)
		}
		r[k] = n
	}
	start, stop := r["start"], r["stop"]
	if start == 0 || stop == 0 || stop < start {
		return "", errors.New("give start and stop, with start <= stop")
	}
	var items []string
	if step := r["step"]; step > 0 {
		if (stop-start)/step >= maxSweepValues {
			return "", fmt.Errorf("more than %d values: use a larger step", maxSweepValues)
		}
		for n := start; n <= stop; n += step {
			items = append(items, strconv.Itoa(n))
		}
	} else {
		for e := math.Floor(math.Log2(float64(start))); math.Pow(2, e) <= float64(stop); e++ {
			items = append(items, strconv.Itoa(int(math.Pow(2, e))))
		}
	}
	return strings.Join(items, ","), nil
}

// scalarOf is v's value as text, or an error when v is a list or mapping.
func scalarOf(v *yaml.Node) (string, error) {
	if v.Kind != yaml.ScalarNode {
		return "", errors.New("takes a single value")
	}
	return scalarText(v), nil
}

// isNull reports whether v is YAML null (an empty value included).
func isNull(v *yaml.Node) bool { return v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" }

// sameValue reports whether two flag values mean the same: equal numbers,
// equal booleans, or equal text ignoring case.
func sameValue(a, b string) bool {
	if strings.EqualFold(a, b) {
		return true
	}
	if x, err := strconv.ParseFloat(a, 64); err == nil {
		y, err := strconv.ParseFloat(b, 64)
		return err == nil && x == y
	}
	if x, err := strconv.ParseBool(a); err == nil {
		y, err := strconv.ParseBool(b)
		return err == nil && x == y
	}
	return false
}
