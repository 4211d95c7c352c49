package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

var update = flag.Bool("update", false, "rewrite the golden files of the create-template tests")

// writeFile writes body to name in a new temporary directory.
func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// mockEnv points a config-file run at a fresh mock server through the
// environment, which wins over the file without --override-config.
func mockEnv(t *testing.T) (artifacts string) {
	t.Helper()
	srv := mocktest.Start(t, mockserver.Config{})
	artifacts = t.TempDir()
	t.Setenv("AIPERF_URL", srv.URL())
	t.Setenv("AIPERF_UI_TYPE", "none")
	t.Setenv("AIPERF_ARTIFACT_DIR", artifacts)
	t.Setenv("AIPERF_NO_GPU_TELEMETRY", "true")
	return artifacts
}

func TestCreateTemplateGolden(t *testing.T) {
	file := filepath.Join(t.TempDir(), "out.yaml")
	if code, _, stderr := runCLI(t, "create-template", "-f", file); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got, _ := os.ReadFile(file)
	golden := filepath.Join("testdata", "genai_perf_config.golden.yaml")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("template differs from %s (rerun with -update if intended):\n%s", golden, got)
	}
}

// TestCreateTemplateVerbose: -v adds a comment above every key and changes
// nothing else (the help texts are the flags', so not in a golden file).
func TestCreateTemplateVerbose(t *testing.T) {
	file := filepath.Join(t.TempDir(), "v.yaml")
	if code, _, stderr := runCLI(t, "create-template", "-v", "-f", file); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	verbose, _ := os.ReadFile(file)
	strip := func(b []byte) []string {
		var out []string
		for _, line := range strings.Split(string(b), "\n") {
			if trimmed := strings.TrimSpace(line); trimmed != "" && !strings.HasPrefix(trimmed, "#") {
				out = append(out, line)
			}
		}
		return out
	}
	if got, want := strip(verbose), strip(genaiTemplate(false)); !slices.Equal(got, want) {
		t.Fatalf("verbose template's keys differ:\n%q\nwant\n%q", got, want)
	}
	lines := strings.Split(string(verbose), "\n")
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") || isSectionLine(lines, i) {
			continue
		}
		if i == 0 || !strings.HasPrefix(strings.TrimSpace(lines[i-1]), "# ") {
			t.Errorf("line %d %q has no help comment above it", i+1, line)
		}
	}
}

// isSectionLine reports whether lines[i] opens a section: the next
// non-blank line is indented deeper.
func isSectionLine(lines []string, i int) bool {
	depth := func(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }
	for j := i + 1; j < len(lines); j++ {
		if strings.TrimSpace(lines[j]) != "" {
			return depth(lines[j]) > depth(lines[i])
		}
	}
	return false
}

func TestCreateTemplateRefusesExistingFile(t *testing.T) {
	file := writeFile(t, "genai_perf_config.yaml", "keep me\n")
	code, _, stderr := runCLI(t, "create-template", "-f", file)
	if code != exitUsage || !strings.Contains(stderr, "already exists") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(file); string(b) != "keep me\n" {
		t.Fatalf("overwritten: %q", b)
	}
}

// TestTemplateRoundTrip: aiperf config accepts create-template's file with
// only model_names set, and runs it.
func TestTemplateRoundTrip(t *testing.T) {
	for _, verbose := range []bool{false, true} {
		body := strings.Replace(string(genaiTemplate(verbose)), "\nmodel_names:\n", "\nmodel_names: mock-model\n", 1)
		file := writeFile(t, "genai_perf_config.yaml", body)
		mockEnv(t)
		t.Setenv("AIPERF_REQUEST_COUNT", "3")
		code, stdout, stderr := runCLI(t, "config", "-f", file)
		if code != 0 {
			t.Fatalf("verbose %v: exit %d: %s", verbose, code, stderr)
		}
		if !regexp.MustCompile(`Request Count \(requests\) │ +3\.00 `).MatchString(stdout) {
			t.Fatalf("stdout:\n%s", stdout)
		}
	}
}

// TestGenAIPerfExampleRuns runs testdata/genai_perf_example.yaml, a config
// in the layout of GenAI-Perf's README and tests, against the mock server.
func TestGenAIPerfExampleRuns(t *testing.T) {
	artifacts := mockEnv(t)
	code, stdout, stderr := runCLI(t, "config", "-f", filepath.Join("testdata", "genai_perf_example.yaml"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// perf_analyzer.measurement.num: 8 requests.
	if !regexp.MustCompile(`Request Count \(requests\) │ +8\.00 `).MatchString(stdout) {
		t.Fatalf("stdout:\n%s", stdout)
	}
	manifests, _ := filepath.Glob(filepath.Join(artifacts, "runs", "*", "manifest.json"))
	if len(manifests) != 1 {
		t.Fatalf("manifests %v", manifests)
	}
}

func TestConfigCommandUsage(t *testing.T) {
	srv, hits := countingServer(t)
	file := writeFile(t, "c.yaml", "model_names: m\nendpoint:\n  url: "+srv.URL+"\nperf_analyzer:\n  stimulus: {concurrency: 2}\n")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no file", []string{"config"}, "-f/--file is required"},
		{"override without the flag", []string{"config", "-f", file, "--concurrency", "3"}, "--concurrency given without --override-config"},
		{"missing file", []string{"config", "-f", file + ".none"}, "no such file"},
		{"invalid after override", []string{"config", "-f", file, "--override-config", "--concurrency", "-1"}, "--concurrency must be >= 1"},
		{"validate", []string{"config", "validate", writeFile(t, "bad.yaml", "model: m\nisl: 0\n")}, "--isl must be >= 1"},
		{"validate without file", []string{"config", "validate"}, "give the config file"},
		{"expand flag after the file", []string{"config", "expand", file, "--format", "json"}, `unexpected argument "--format": give one config file (flags go before it)`},
		{"validate unknown key", []string{"config", "validate", writeFile(t, "typo.yaml", "model: m\nrequest-count: 3\nstreming: true\n")}, `typo.yaml:3: unknown key "streming" (did you mean "streaming"?)`},
		{"init unknown template", []string{"config", "init", "-t", "nope"}, `--template "nope" is not a bundled template`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, tt.args...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Fatalf("exit %d, stderr %q, want %q", code, stderr, tt.want)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
}

// TestConfigOverride: with --override-config, flags win over the file, and
// a command-line stimulus replaces the file's whole stimulus.
func TestConfigOverride(t *testing.T) {
	mockEnv(t)
	file := writeFile(t, "c.yaml", "model_names: mock-model\nperf_analyzer:\n  stimulus: {concurrency: 2}\n  measurement: {mode: request_count, num: 50}\n")
	code, stdout, stderr := runCLI(t, "config", "-f", file, "--override-config", "--request-rate", "200", "--request-count", "4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !regexp.MustCompile(`Request Count \(requests\) │ +4\.00 `).MatchString(stdout) {
		t.Fatalf("stdout:\n%s", stdout)
	}
}

func TestConfigValidateAndExpand(t *testing.T) {
	file := writeFile(t, "c.yaml", "model_names: m\nendpoint: {streaming: true}\nperf_analyzer:\n  stimulus: {concurrency: 4}\ninput:\n  synthetic_tokens: {mean: 128}\n")
	code, stdout, stderr := runCLI(t, "config", "validate", file)
	if code != 0 || stdout != file+": valid\n" {
		t.Fatalf("validate: exit %d stdout %q stderr %s", code, stdout, stderr)
	}
	// ff's .env spelling of a flat key.
	if code, stdout, stderr := runCLI(t, "config", "validate", "--config-file", writeFile(t, "env.yaml", "AIPERF_MODEL: m\nAIPERF_REQUEST_COUNT: 3\n")); code != 0 {
		t.Fatalf("env keys: exit %d %s %s", code, stdout, stderr)
	}

	code, stdout, stderr = runCLI(t, "config", "expand", file)
	if code != 0 {
		t.Fatalf("expand: exit %d: %s", code, stderr)
	}
	var got map[string]any
	if err := yaml.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("expand yaml: %v\n%s", err, stdout)
	}
	for k, want := range map[string]any{"model": "m", "streaming": true, "concurrency": 4, "isl": 128} {
		if got[k] != want {
			t.Errorf("expand %s = %v (%T), want %v", k, got[k], got[k], want)
		}
	}
	// Defaults are there, as comments.
	for _, want := range []string{"\n# num-dataset-entries: 100\n", "\n# endpoint-type: chat\n", "\n# osl: 0\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("expand lacks %q", want)
		}
	}
	if _, ok := got["osl"]; ok {
		t.Error("a default is live")
	}
	if _, ok := got["model-names"]; ok {
		t.Error("expand lists an alias")
	}
	if _, ok := got["config"]; ok {
		t.Error("expand lists --config")
	}
	// The expanded file reads back as the same configuration.
	code, stdout2, stderr := runCLI(t, "config", "expand", writeFile(t, "expanded.yaml", stdout))
	if code != 0 || stdout2 != stdout {
		t.Fatalf("expand of the expansion: exit %d %s\n%s", code, stderr, stdout2)
	}

	code, stdout, _ = runCLI(t, "config", "expand", "--format", "json", file)
	var j map[string]string
	if err := json.Unmarshal([]byte(stdout), &j); code != 0 || err != nil || j["concurrency"] != "4" || j["isl"] != "128" {
		t.Fatalf("json: exit %d err %v %v", code, err, j)
	}
}

func TestConfigInit(t *testing.T) {
	code, stdout, _ := runCLI(t, "config", "init", "--list")
	for _, name := range []string{"minimal", "latency_test", "goodput_slo", "genai_perf"} {
		if code != 0 || !strings.Contains(stdout, name) {
			t.Fatalf("list: exit %d lacks %s:\n%s", code, name, stdout)
		}
	}
	code, stdout, _ = runCLI(t, "config", "init", "--list", "--category", "datasets")
	if code != 0 || !strings.Contains(stdout, "multi_turn_conversation") || strings.Contains(stdout, "minimal") {
		t.Fatalf("category: %s", stdout)
	}
	// Every bundled template, with --model and --url, is a valid config.
	for _, s := range starters() {
		t.Run(s.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), s.name+".yaml")
			code, _, stderr := runCLI(t, "config", "init", "-t", s.name, "-m", "my/model", "-u", "http://host:9000", "-o", out)
			if code != 0 {
				t.Fatalf("init: exit %d: %s", code, stderr)
			}
			code, stdout, stderr := runCLI(t, "config", "expand", out)
			if code != 0 {
				t.Fatalf("expand: exit %d: %s", code, stderr)
			}
			if !strings.Contains(stdout, "\nmodel: my/model\n") && !strings.HasPrefix(stdout, "model: my/model\n") || !strings.Contains(stdout, "\nurl: http://host:9000\n") {
				t.Fatalf("model or url not replaced:\n%s", stdout)
			}
			if s.title == "" || s.description == "" || s.category == "" {
				t.Fatalf("header: %+v", s)
			}
		})
	}
}

// TestGenAIPerfOwnTemplate reads what `genai-perf create-template` writes
// (testdata/genai_perf_create_template_upstream.yaml, rendered by hand
// from GenAI-Perf's base_config.py and config_defaults.py: top level
// indented, Python's dict for the stimulus, False) with a model set: it is
// valid, its choices are GenAI-Perf's (kserve on :8001), and its
// GenAI-Perf-only defaults set nothing.
func TestGenAIPerfOwnTemplate(t *testing.T) {
	body, err := os.ReadFile(filepath.Join("testdata", "genai_perf_create_template_upstream.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	file := writeFile(t, "genai_perf_config.yaml", strings.Replace(string(body), "  model_names: \n", "  model_names: gpt2\n", 1))
	code, stdout, stderr := runCLI(t, "config", "expand", file)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"model: gpt2", "endpoint-type: kserve", "backend: tensorrtllm", "url: localhost:8001",
		"server-metrics: http://localhost:9400/metrics", "concurrency: 1", "random-seed: 0", "prefix-prompt-length: 100",
		"# artifact-dir: artifacts", "# checkpoint-dir:", "# profile-export-prefix:", "# stability-percentage: 0", "# generate-plots: false"} {
		if !strings.Contains("\n"+stdout, "\n"+want+"\n") {
			t.Errorf("expand lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(stdout)
	}

	// And it runs: kserve against the mock (the environment names the
	// mock's URL, a tokenizer without download and a short run).
	mockEnv(t)
	t.Setenv("AIPERF_TOKENIZER", "builtin")
	t.Setenv("AIPERF_REQUEST_COUNT", "3")
	code, stdout, stderr = runCLI(t, "config", "-f", file)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	if !regexp.MustCompile(`Request Count \(requests\) │ +3\.00 `).MatchString(stdout) {
		t.Fatalf("stdout:\n%s", stdout)
	}
}
