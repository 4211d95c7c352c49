package main

import (
	"slices"
	"strings"
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
	kindSweepRange                   // analyze's dataset settings: {start, stop, step} as the flag's start:stop:step range
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
	{path: "analyze.runtime_batch_size", flag: "prompt-batch-size", kind: kindSweepRange, hidden: true},
	{path: "analyze.num_dataset_entries", flag: "num-dataset-entries", kind: kindSweepRange, hidden: true},
	{path: "analyze.input_sequence_length", flag: "isl", kind: kindSweepRange, hidden: true},

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
	{path: "output.profile_export_file", flag: "profile-export-file", kind: kindScalar, def: "profile_export.json"},
	{path: "output.generate_plots", flag: "generate-plots", kind: kindScalar, def: "false"},
	{path: "output.enable_checkpointing", flag: "enable-checkpointing", kind: kindScalar, def: "false"},

	{path: "tokenizer.name", flag: "tokenizer", kind: kindScalar},
	{path: "tokenizer.revision", flag: "tokenizer-revision", kind: kindScalar},
	{path: "tokenizer.trust_remote_code", flag: "tokenizer-trust-remote-code", kind: kindScalar},

	{path: "process.input_path", kind: kindUnsupported, hidden: true},
}

// stimulusFlags and measureFlags are the flags of the nested layout's
// stimulus and measurement: a file's stimulus (measurement) is skipped as a
// whole when any of them, or of their aliases, was given.
var (
	stimulusFlags = []string{"concurrency", "request-rate", "fixed-schedule", "user-centric-rate"}
	measureFlags  = []string{"request-count", "benchmark-duration", "measurement-interval"}
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
