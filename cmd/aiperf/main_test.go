package main

import (
	"os"
	"path/filepath"
	"regexp"

	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// runCLI runs the CLI in-process and returns its exit code and output.
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, &out, &errb)
	code = exitCode(err, &errb)
	return code, out.String(), errb.String()
}

// countingServer counts every request it receives.
func countingServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		http.Error(w, "unexpected", http.StatusTeapot)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestInvalidConfigurationExitsTwoBeforeAnyRequest(t *testing.T) {
	t.Setenv("HF_HUB_OFFLINE", "1") // an unknown tokenizer must not reach for the network
	srv, hits := countingServer(t)
	base := []string{"profile", "--url", srv.URL, "--ui-type", "none", "--artifact-dir", t.TempDir()}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing model", nil, "--model is required"},
		{"bad endpoint type", []string{"-m", "x", "--endpoint-type", "chatt"}, `--endpoint-type "chatt" is not valid: use one of chat, completions, embeddings`},
		{"bad arrival pattern", []string{"-m", "x", "--request-rate", "5", "--arrival-pattern", "burst"}, `--arrival-pattern "burst" is not valid`},
		{"smoothness without gamma", []string{"-m", "x", "--request-rate", "5", "--arrival-pattern", "poisson", "--arrival-smoothness", "2"}, "--arrival-smoothness can only be used with --arrival-pattern gamma"},
		{"grace without duration", []string{"-m", "x", "--benchmark-grace-period", "5"}, "--benchmark-grace-period can only be used with duration-based benchmarking"},
		{"negative concurrency", []string{"-m", "x", "--concurrency", "-1"}, "--concurrency must be >= 1"},
		{"negative rate", []string{"-m", "x", "--request-rate", "-3"}, "--request-rate must be > 0"},
		{"negative count", []string{"-m", "x", "--request-count", "-3"}, "--request-count must be >= 1"},
		{"isl zero", []string{"-m", "x", "--isl", "0"}, "--isl must be >= 1"},
		{"isl stddev", []string{"-m", "x", "--isl-stddev", "-1"}, "--isl-stddev must be >= 0"},
		{"osl negative", []string{"-m", "x", "--osl", "-5"}, "--osl must be >= 1"},
		{"osl stddev", []string{"-m", "x", "--osl-stddev", "-1"}, "--osl-stddev must be >= 0"},
		{"entries", []string{"-m", "x", "--num-dataset-entries", "0"}, "--num-dataset-entries must be >= 1"},
		{"batch", []string{"-m", "x", "--prompt-batch-size", "0"}, "--prompt-batch-size must be >= 1"},
		{"warmup", []string{"-m", "x", "--warmup-request-count", "-1"}, "--warmup-request-count must be >= 0"},
		{"export level", []string{"-m", "x", "--export-level", "all"}, `--export-level "all" is not valid: use one of summary, records, raw`},
		{"ui type", []string{"-m", "x", "--ui-type", "fancy"}, `--ui-type "fancy" is not valid`},
		{"log level", []string{"-m", "x", "--log-level", "LOUD"}, `--log-level "LOUD" is not valid`},
		{"selection strategy", []string{"-m", "x", "--model-selection-strategy", "weighted"}, `--model-selection-strategy "weighted" is not valid`},
		{"header", []string{"-m", "x", "-H", "novalue"}, `--header "novalue" must be Name:Value`},
		{"label", []string{"-m", "x", "--label", "gpu"}, `--label "gpu" must be key=value, e.g. --label gpu=h100`},
		{"endpoint path", []string{"-m", "x", "--endpoint", "v1/chat"}, `--endpoint "v1/chat" must be a path starting with '/'`},
		{"timeout", []string{"-m", "x", "--request-timeout-seconds", "0"}, "--request-timeout-seconds must be > 0"},
		{"tokenizer", []string{"-m", "x", "--tokenizer", "gpt2"}, `--tokenizer: tokenizer "gpt2"`},
		{"goodput tag", []string{"-m", "x", "--goodput", "nonsense_metric:5"}, "Unknown metric tag(s) in --goodput"},
		{"extra inputs", []string{"-m", "x", "--extra-inputs", "novalue"}, "--extra-inputs"},
		{"bad url", []string{"-m", "x", "--url", "ftp://host"}, `--url "ftp://host" is not a valid URL`},
		{"unknown flag", []string{"-m", "x", "--concurency", "3"}, "concurency"},
		{"bad number", []string{"-m", "x", "--concurrency", "many"}, "concurrency"},
		{"bad duration", []string{"-m", "x", "--benchmark-duration", "soon"}, `"soon" is not a number of seconds`},
		{"positional", []string{"-m", "x", "--streaming", "extra"}, `unexpected argument "extra"`},
		{"user-centric with rate", []string{"-m", "x", "--user-centric-rate", "5", "--num-users", "2", "--session-turns-mean", "2", "--request-rate", "3"}, "--user-centric-rate cannot be used together with --request-rate or --arrival-pattern"},
		{"user-centric with pattern", []string{"-m", "x", "--user-centric-rate", "5", "--num-users", "2", "--session-turns-mean", "2", "--arrival-pattern", "constant"}, "--user-centric-rate cannot be used together with --request-rate or --arrival-pattern"},
		{"user-centric users", []string{"-m", "x", "--user-centric-rate", "5", "--session-turns-mean", "2"}, "--user-centric-rate requires --num-users to be set"},
		{"user-centric turns", []string{"-m", "x", "--user-centric-rate", "5", "--num-users", "2"}, "--user-centric-rate requires multi-turn conversations (--session-turns-mean >= 2)"},
		{"grace without duration", []string{"-m", "x", "--benchmark-grace-period", "5"}, "--benchmark-grace-period can only be used with duration-based benchmarking"},
		{"warmup grace", []string{"-m", "x", "--warmup-grace-period", "5"}, "--warmup-grace-period can only be used when warmup is enabled"},
		{"prefill streaming", []string{"-m", "x", "--prefill-concurrency", "2", "--concurrency", "4"}, "--prefill-concurrency requires --streaming to be enabled"},
		{"prefill above concurrency", []string{"-m", "x", "--streaming", "--prefill-concurrency", "8", "--concurrency", "4"}, "--prefill-concurrency (8) must be <= --concurrency (4)"},
		{"smoothness", []string{"-m", "x", "--request-rate", "5", "--arrival-smoothness", "2"}, "--arrival-smoothness can only be used with --arrival-pattern gamma"},
		{"sampling fixed", []string{"-m", "x", "--fixed-schedule", "--input-file", "t.jsonl", "--dataset-sampling-strategy", "random"}, "Dataset sampling strategy is not compatible with fixed schedule mode"},
		{"count and sessions", []string{"-m", "x", "--request-count", "5", "--num-sessions", "3"}, "Both a request-count and number of conversations are set"},
		{"warmup count and sessions", []string{"-m", "x", "--warmup-request-count", "5", "--num-warmup-sessions", "3"}, "Both --warmup-request-count and --num-warmup-sessions are set"},
		{"num users alone", []string{"-m", "x", "--num-users", "3"}, "--num-users can only be used with --user-centric-rate"},
		{"cancellation delay", []string{"-m", "x", "--request-cancellation-delay", "1"}, "--request-cancellation-delay can only be used with --request-cancellation-rate"},
		{"fixed offsets", []string{"-m", "x", "--fixed-schedule-auto-offset"}, "--fixed-schedule-* can only be used with --fixed-schedule"},
		{"rate ramp user-centric", []string{"-m", "x", "--user-centric-rate", "5", "--num-users", "2", "--session-turns-mean", "2", "--request-rate-ramp-duration", "3"}, "--request-rate-ramp-duration cannot be used with --user-centric-rate"},
		{"rate ramp fixed", []string{"-m", "x", "--fixed-schedule", "--input-file", "t.jsonl", "--request-rate-ramp-duration", "3"}, "--request-rate-ramp-duration cannot be used with --fixed-schedule"},
		{"concurrency burst", []string{"-m", "x", "--request-rate", "5", "--arrival-pattern", "concurrency_burst"}, "Request rate mode cannot be 'concurrency_burst' when a request rate is specified."},
		{"dashboard multi-run", []string{"-m", "x", "--num-profile-runs", "3", "--ui-type", "dashboard"}, "Dashboard UI is not supported with multi-run mode (--num-profile-runs > 1)"},
		{"sampling strategy", []string{"-m", "x", "--dataset-sampling-strategy", "zigzag"}, `--dataset-sampling-strategy "zigzag" is not valid`},
		{"custom type", []string{"-m", "x", "--input-file", "f.jsonl", "--custom-dataset-type", "csv"}, `--custom-dataset-type "csv" is not valid`},
		{"synthetic only", []string{"-m", "x", "--input-file", "f.jsonl", "--isl", "100"}, "--isl shapes synthetic prompts and cannot be used with --input-file"},
		{"prefix and system", []string{"-m", "x", "--num-prefix-prompts", "2", "--shared-system-prompt-length", "10"}, "--shared-system-prompt-length"},
		{"user context entries", []string{"-m", "x", "--user-context-prompt-length", "10"}, "--user-context-prompt-length needs --num-dataset-entries"},
		{"connection reuse", []string{"-m", "x", "--connection-reuse-strategy", "sometimes"}, `--connection-reuse-strategy "sometimes" is not valid`},
		{"both sweeps", []string{"-m", "x", "--concurrency", "1,2", "--request-rate", "3,4"}, "--concurrency and --request-rate cannot both be lists"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, append(append([]string{}, base...), tt.args...)...)
			if code != exitUsage {
				t.Fatalf("exit code = %d, want %d; stderr:\n%s", code, exitUsage, stderr)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Fatalf("stderr does not contain %q:\n%s", tt.want, stderr)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("invalid configurations sent %d requests", n)
	}
}

func TestAllProblemsReportedTogether(t *testing.T) {
	code, _, stderr := runCLI(t, "profile", "--isl", "0", "--osl-stddev", "-1", "--ui-type", "none")
	if code != exitUsage {
		t.Fatalf("exit code %d", code)
	}
	for _, want := range []string{"--model is required", "--isl must be >= 1", "--osl-stddev must be >= 0"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("missing %q in:\n%s", want, stderr)
		}
	}
}

func TestVersion(t *testing.T) {
	code, stdout, _ := runCLI(t, "version")
	if code != 0 || !strings.HasPrefix(stdout, "aiperf dev (commit unknown, go") {
		t.Fatalf("code %d, stdout %q", code, stdout)
	}
}

func TestProfileHelpListsGroups(t *testing.T) {
	code, stdout, _ := runCLI(t, "profile", "--help")
	if code != 0 {
		t.Fatalf("code %d", code)
	}
	for _, want := range []string{"FLAGS (Endpoint)", "FLAGS (Input)", "FLAGS (Load Generator)", "FLAGS (Output)",
		"--model", "--request-rate", "--arrival-pattern", "--goodput", "--artifact-dir", "--ui-type", "--config"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

func TestUnreachableServerExitsOne(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	code, _, stderr := runCLI(t, "profile", "-m", "mock-model", "--url", url, "--ui-type", "none", "--artifact-dir", t.TempDir())
	if code != exitFailed || !strings.Contains(stderr, "cannot reach the server") {
		t.Fatalf("code %d stderr %s", code, stderr)
	}
}

// TestEnvironmentOnlyRun configures a whole benchmark from AIPERF_*
// variables, as a container job does, and stores it through a store URL.
func TestEnvironmentOnlyRun(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{})
	dir := t.TempDir()
	for k, v := range map[string]string{
		"AIPERF_MODEL": "mock-model", "AIPERF_URL": srv.URL(), "AIPERF_STREAMING": "true",
		"AIPERF_CONCURRENCY": "2", "AIPERF_REQUEST_COUNT": "6", "AIPERF_UI_TYPE": "none",
		"AIPERF_ARTIFACT_DIR": "file://" + dir, "AIPERF_API_KEY": "sk-env-secret",
	} {
		t.Setenv(k, v)
	}
	code, stdout, stderr := runCLI(t, "profile")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !regexp.MustCompile(`Request Count \(requests\) │ +6\.00 `).MatchString(stdout) {
		t.Fatalf("stdout:\n%s", stdout)
	}
	manifests, _ := filepath.Glob(filepath.Join(dir, "runs", "*", "manifest.json"))
	if len(manifests) != 1 {
		t.Fatalf("manifests %v", manifests)
	}
	b, _ := os.ReadFile(manifests[0])
	if strings.Contains(string(b), "sk-env-secret") || !strings.Contains(string(b), `"status": "complete"`) {
		t.Fatalf("manifest:\n%s", b)
	}
}

// TestProblemsReportedTogether: several invalid flags give one message
// listing each, and exit 2 before any request.
func TestProblemsReportedTogether(t *testing.T) {
	code, _, stderr := runCLI(t, "profile", "-m", "x", "--url", "127.0.0.1:1", "--num-users", "3", "--request-cancellation-delay", "1", "--warmup-grace-period", "2")
	if code != exitUsage {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"--num-users can only be used", "--request-cancellation-delay can only be used", "--warmup-grace-period can only be used"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// TestOneMessagePerBadLoadValue: a single bad --concurrency or
// --request-rate value is reported once, in the flag's own words (the
// sweep's list check and the value's check used to both fire).
func TestOneMessagePerBadLoadValue(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"profile", "-m", "x", "--concurrency", "-3"}, "aiperf: invalid configuration: --concurrency must be >= 1 (got -3)\n"},
		{[]string{"profile", "-m", "x", "--concurrency", "0"}, "aiperf: invalid configuration: --concurrency must be >= 1 (got 0)\n"},
		{[]string{"profile", "-m", "x", "--request-rate", "-2"}, "aiperf: invalid configuration: --request-rate must be > 0 requests/sec (got -2)\n"},
		{[]string{"profile", "-m", "x", "--concurrency", "2,0"}, "aiperf: invalid configuration: --concurrency values must be >= 1 (got 0)\n"},
	} {
		code, _, stderr := runCLI(t, tt.args...)
		if code != exitUsage || !strings.HasSuffix(stderr, tt.want) {
			t.Errorf("%q: exit %d, stderr %q, want exit 2 ending %q", tt.args, code, stderr, tt.want)
		}
	}
}
