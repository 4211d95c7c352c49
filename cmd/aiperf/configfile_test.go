package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/peterbourgon/ff/v4"
)

// recordSets reads yaml through applyConfigYAML with a setter that records
// "name=value" for profile's flags and refuses other names as ff does.
func recordSets(t *testing.T, yaml string, given ...string) ([]string, error) {
	t.Helper()
	var got []string
	set := func(name, value string) error {
		if _, ok := profileFlagsInfo().defaults[name]; !ok {
			return fmt.Errorf("%s: %w", name, ff.ErrUnknownFlag)
		}
		got = append(got, name+"="+value)
		return nil
	}
	err := applyConfigYAML([]byte(yaml), configApply{file: "f.yaml", set: set,
		given: func(name string) bool { return slices.Contains(given, name) }})
	return got, err
}

func TestFlatLayout(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"scalars in document order", "model: m\nconcurrency: 4\nstreaming: True\nrequest-rate: 2.5\n",
			[]string{"model=m", "concurrency=4", "streaming=true", "request-rate=2.5"}},
		{"a list sets once per item", "header:\n  - 'A:1'\n  - 'B:2'\n", []string{"header=A:1", "header=B:2"}},
		{"a mapping joins keys with a dot", "http:\n  video-poll-interval: 0.5\n", []string{"http.video-poll-interval=0.5"}},
		{"null leaves the default", "api-key:\nmodel: m\n", []string{"model=m"}},
		{"an empty string is a value", "api-key: \"\"\n", []string{"api-key="}},
		{"hex integers as decimal", "concurrency: 0x10\n", []string{"concurrency=16"}},
		{"anchors", "isl: &n 64\nosl: *n\n", []string{"isl=64", "osl=64"}},
		{"empty file", "", nil},
		{"comments only", "# nothing\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := recordSets(t, tt.yaml)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestConfigFileErrors(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"flat misspelling", "model: m\nconcurency: 3\n", `f.yaml:2: unknown key "concurency" (did you mean "concurrency"?)`},
		{"flat far from any", "model: m\nzzzzzzzzzzzz: 1\n", `f.yaml:2: unknown key "zzzzzzzzzzzz"`},
		{"flat nested misspelling", "http:\n  video-pol-interval: 1\n", `f.yaml:2: unknown key "http.video-pol-interval" (did you mean "http.video-poll-interval"?)`},
		{"nested misspelling", "model_names: m\ninput:\n  synthetic_token:\n    mean: 5\n", `f.yaml:3: unknown key "input.synthetic_token" (did you mean "input.synthetic_tokens"?)`},
		{"nested leaf misspelling", "model_names: m\nendpoint:\n  streamin: true\n", `f.yaml:3: unknown key "endpoint.streamin" (did you mean "endpoint.streaming"?)`},
		{"nested top level", "model_names: m\nperf_analyser:\n  path: x\n", `f.yaml:2: unknown key "perf_analyser" (did you mean "perf_analyzer"?)`},
		{"flat key in nested file", "model_names: m\nconcurrency: 4\n", `f.yaml:2: unknown key "concurrency"`},
		{"stimulus kind", "model_names: m\nperf_analyzer:\n  stimulus:\n    concurency: 4\n", `f.yaml:4: unknown key "perf_analyzer.stimulus.concurency" (did you mean "perf_analyzer.stimulus.concurrency"?)`},
		{"stimulus without number", "model_names: m\nperf_analyzer:\n  stimulus:\n    concurrency:\n", `f.yaml:4: perf_analyzer.stimulus.concurrency needs a number`},
		{"two stimuli", "model_names: m\nperf_analyzer:\n  stimulus: {concurrency: 1, request_rate: 2}\n", "give one stimulus"},
		{"measurement mode", "model_names: m\nperf_analyzer:\n  measurement:\n    mode: forever\n    num: 3\n", `f.yaml:4: perf_analyzer.measurement.mode "forever" is not valid: use request_count or interval`},
		{"grpc", "model_names: m\nendpoint:\n  grpc_method: a.B/C\n", "f.yaml:3: endpoint.grpc_method: not supported by aiperf"},
		{"process", "process:\n  input_path: dir\n", "f.yaml:2: process.input_path: not supported by aiperf"},
		{"analyze range without stop", "model_names: m\nanalyze:\n  num_dataset_entries: {start: 1}\n", "f.yaml:3: analyze.num_dataset_entries: give start and stop"},
		{"synthetic files", "model_names: m\ninput:\n  file: synthetic:queries,passages\n", "f.yaml:3: input.file: synthetic:queries,passages (named synthetic files) is not supported"},
		{"list for a single value", "model_names: m\nendpoint:\n  type: [chat, completions]\n", "f.yaml:3: endpoint.type: takes one value, not a list"},
		{"section as a value", "model_names: m\ninput: 5\n", "f.yaml:2: input must be a mapping of keys"},
		{"not a mapping", "- a\n- b\n", "f.yaml:1: the config file must be a mapping"},
		{"aiperf 2.0 layout", "schemaVersion: \"2.0\"\nbenchmark:\n  model: m\n", "schemaVersion 2.0 layout"},
		{"bad yaml", "model: [\n", "f.yaml: yaml:"},
		{"self-referential alias", "a: &a {b: *a}\n", "f.yaml:1: a.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b.b: nested deeper than 16 levels"},
		{"nested self-reference", "model_names: m\ninput: &a {audio: *a}\n", `unknown key "input.audio.audio"`},
		{"alias bomb", "a: &a {}\nb: &b {p: *a, q: *a, r: *a, s: *a}\nc: &c {p: *b, q: *b, r: *b, s: *b}\nd: &d {p: *c, q: *c, r: *c, s: *c}\ne: &e {p: *d, q: *d, r: *d, s: *d}\nf: &f {p: *e, q: *e, r: *e, s: *e}\ng: &g {p: *f, q: *f, r: *f, s: *f}\nh: &h {p: *g, q: *g, r: *g, s: *g}\ni: {p: *h, q: *h, r: *h, s: *h}\n", "more than 100000 values"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := recordSets(t, tt.yaml)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// TestGenAIPerfLayout translates GenAI-Perf's keys (the test configs of its
// test_config_command.py, with their values) onto flags.
func TestGenAIPerfLayout(t *testing.T) {
	tests := []struct {
		name, yaml string
		given      []string
		want       []string
	}{
		{"model names string", "model_name: \"gpt2,bert\"\n", nil, []string{"model=gpt2,bert"}},
		{"model names list", "model_names:\n  - gpt2\n  - bert\n", nil, []string{"model=gpt2", "model=bert"}},
		{"endpoint", `model_name: gpt2
endpoint:
  model_selection_strategy: RANDOM
  backend: VLLM
  custom: custom_endpoint
  type: kserve
  streaming: True
  server_metrics_url: "http://test_server_metrics_url:8002/metrics"
  url: "test_url"
`, nil, []string{"model=gpt2", "model-selection-strategy=random", "backend=vllm", "endpoint=custom_endpoint",
			"endpoint-type=kserve", "streaming=true", "server-metrics=http://test_server_metrics_url:8002/metrics", "url=test_url"}},
		{"perf analyzer", `model_name: gpt2
perf_analyzer:
  path: test_path
  verbose: True
  stimulus:
    concurrency: 64
  stability_percentage: 500
  warmup_request_count: 200
  measurement:
    mode: request_count
    num: 100
`, nil, []string{"model=gpt2", "concurrency=64", "stability-percentage=500", "warmup-request-count=200", "request-count=100"}},
		{"interval measurement", "perf_analyzer:\n  measurement:\n    mode: INTERVAL\n    num: 2500\n", nil, []string{"measurement-interval=2500"}},
		{"interval default 10 s", "perf_analyzer:\n  measurement:\n    mode: interval\n", nil, []string{"measurement-interval=10000"}},
		{"legacy measurement_interval", "perf_analyzer:\n  measurement_interval: 4000\n", nil, []string{"measurement-interval=4000"}},
		{"GenAI-Perf's defaults set nothing", "perf_analyzer:\n  stability_percentage: 999\noutput:\n  checkpoint_directory: ./checkpoint\n  generate_plots: False\n", nil, nil},
		{"request rate stimulus", "perf_analyzer:\n  stimulus: {request_rate: 7.5}\n", nil, []string{"request-rate=7.5"}},
		{"session concurrency", "perf_analyzer:\n  stimulus: {session_concurrency: 3}\n", nil, []string{"concurrency=3"}},
		{"fixed schedule string", "perf_analyzer:\n  stimulus: fixed_schedule\n", nil, []string{"fixed-schedule=true"}},
		{"command line stimulus replaces the file's", "perf_analyzer:\n  stimulus: {concurrency: 64}\n  measurement: {mode: request_count, num: 9}\n",
			[]string{"request-rate"}, []string{"request-count=9"}},
		{"command line count replaces the measurement", "perf_analyzer:\n  measurement: {mode: interval, num: 9000}\n",
			[]string{"num-requests"}, nil},
		{"an alias replaces the stimulus", "perf_analyzer:\n  stimulus: {concurrency: 64}\n",
			[]string{"session-concurrency"}, nil},
		{"input", `input:
  batch_size: 2
  extra:
    ignore_eos: true
    nested: {a: [1, 2]}
  goodput:
    time_to_first_token: 250
    request_latency: 300
  header: ["A:1", "B:2"]
  file: payload:trace.jsonl
  num_dataset_entries: 42
  random_seed: 7
  audio:
    batch_size: 3
    length: {mean: 5, stddev: 1}
    format: MP3
    depths: [16, 24]
    sample_rates: "8, 16"
    num_channels: 2
  image:
    width: {mean: 640, stddev: 10}
    height: {mean: 480, stddev: 5}
    batch_size: 4
    format: JPEG
  output_tokens: {mean: 20, stddev: 3}
  synthetic_tokens: {mean: 300, stddev: 30}
  prefix_prompt: {num: 2, length: 64}
  sessions:
    num: 11
    turns: {mean: 3, stddev: 1}
    turn_delay: {mean: 100, stddev: 10, ratio: 0.5}
`, nil, []string{"prompt-batch-size=2", `extra-inputs={"ignore_eos":true}`, `extra-inputs={"nested":{"a":[1,2]}}`,
			"goodput=time_to_first_token:250 request_latency:300", "header=A:1", "header=B:2", "input-file=trace.jsonl",
			"num-dataset-entries=42", "random-seed=7", "audio-batch-size=3", "audio-length-mean=5", "audio-length-stddev=1",
			"audio-format=mp3", "audio-depths=16,24", "audio-sample-rates=8,16", "audio-num-channels=2",
			"image-width-mean=640", "image-width-stddev=10", "image-height-mean=480", "image-height-stddev=5",
			"image-batch-size=4", "image-format=jpeg", "osl=20", "osl-stddev=3", "isl=300", "isl-stddev=30",
			"num-prefix-prompts=2", "prefix-prompt-length=64", "num-sessions=11", "session-turns-mean=3",
			"session-turns-stddev=1", "session-turn-delay-mean=100", "session-turn-delay-stddev=10", "session-delay-ratio=0.5"}},
		{"output and tokenizer", `output:
  artifact_directory: "test_artifact_directory"
  checkpoint_directory: ckpt
  profile_export_file: "test_profile_export_file.json"
  generate_plots: True
  enable_checkpointing: true
tokenizer:
  name: gpt2
  revision: v1
  trust_remote_code: true
`, nil, []string{"artifact-dir=test_artifact_directory", "checkpoint-dir=ckpt", "profile-export-file=test_profile_export_file.json",
			"generate-plots=true", "enable-checkpointing=true",
			"tokenizer=gpt2", "tokenizer-revision=v1", "tokenizer-trust-remote-code=true"}},
		{"defaults and empty values set nothing", "model_names: m\nendpoint:\n  custom:\n  type: chat\n  streaming: False\ninput:\n  synthetic_tokens: {mean: 550}\n  header: \"\"\nanalyze:\nprocess:\n",
			nil, []string{"model=m"}},
		{"analyze powers of two", "analyze:\n  concurrency: {start: 3, stop: 40}\n", nil, []string{"concurrency=2,4,8,16,32"}},
		{"analyze steps", "analyze:\n  request_rate: {start: 100, stop: 200, step: 20}\n", nil, []string{"request-rate=100,120,140,160,180,200"}},
		{"analyze list", "analyze:\n  concurrency: [1, 3, 5]\n", nil, []string{"concurrency=1,3,5"}},
		// The dataset settings are given to the flag as its range, which it
		// expands by its own rule (powers of two for ISL and batch size,
		// every integer for dataset entries: runner/multirun's tests).
		{"analyze isl", "analyze:\n  input_sequence_length: {start: 100, stop: 300, step: 100}\n", nil, []string{"isl=100:300:100"}},
		{"analyze entries", "analyze:\n  num_dataset_entries: {start: 3, stop: 5}\n", nil, []string{"num-dataset-entries=3:5"}},
		{"analyze batch size", "analyze:\n  runtime_batch_size: {start: 1, stop: 8}\n", nil, []string{"prompt-batch-size=1:8"}},
		{"analyze isl list", "analyze:\n  input_sequence_length: [32, 64]\n", nil, []string{"isl=32,64"}},
		{"endpoint as a string is flat", "endpoint: /v1/x\nmodel: m\n", nil, []string{"endpoint=/v1/x", "model=m"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := recordSets(t, tt.yaml, tt.given...)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestSameValue(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"550", "550.0", true}, {"1", "2", false}, {"false", "False", true}, {"true", "0", false},
		{"round_robin", "ROUND_ROBIN", true}, {"", "", true}, {"", "0", false}, {"chat", "completions", false},
		{"./artifacts", "artifacts", true}, {"./checkpoint", "checkpoint/", true}, {"", ".", false}, {"a/b", "b", false},
	}
	for _, tt := range tests {
		if got := sameValue(tt.a, tt.b); got != tt.want {
			t.Errorf("sameValue(%q, %q) = %v", tt.a, tt.b, got)
		}
	}
}

func FuzzConfigYAML(f *testing.F) {
	f.Add("model: m\nconcurrency: 4\n")
	f.Add("model_names: m\nperf_analyzer:\n  stimulus: {concurrency: 2}\ninput:\n  extra: {a: [1]}\n")
	f.Add("analyze:\n  concurrency: {start: 1, stop: 1000000000}\n")
	f.Add("a: &x [*x]\n")
	f.Fuzz(func(t *testing.T, yaml string) {
		_, _ = recordSets(t, yaml)
	})
}

// TestProfileConfigNested reads GenAI-Perf's layout through profile's
// --config: flags win per key, and a command-line stimulus replaces the
// file's.
func TestProfileConfigNested(t *testing.T) {
	file := writeFile(t, "g.yaml", "model_names: [a, b]\nendpoint:\n  streaming: true\nperf_analyzer:\n  stimulus: {concurrency: 8}\ninput:\n  synthetic_tokens: {mean: 99}\n")
	cfg, err := parseProfile([]string{"--config", file, "--isl", "77"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.Models, []string{"a", "b"}) || !cfg.Streaming || cfg.Concurrency != 8 || cfg.ISLMean != 77 {
		t.Fatalf("models %v streaming %v concurrency %d isl %v", cfg.Models, cfg.Streaming, cfg.Concurrency, cfg.ISLMean)
	}
	cfg, err = parseProfile([]string{"--config", file, "--request-rate=5"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Concurrency != 0 || cfg.RequestRate != 5 {
		t.Fatalf("the file's stimulus must give way: concurrency %d rate %v", cfg.Concurrency, cfg.RequestRate)
	}
}
