package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// TestServiceKindTritonRuns runs a GenAI-Perf style Triton command line
// against the mock: --service-kind triton --backend vllm means
// --endpoint-type kserve with vLLM's tensors, streamed over
// generate_stream.
func TestServiceKindTritonRuns(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{})
	dir := t.TempDir()
	code, stdout, stderr := runCLI(t, "profile", "-m", "ensemble", "--url", srv.URL(), "--service-kind", "triton",
		"--backend", "vllm", "--tokenizer", "builtin", "--streaming", "--request-count", "3", "--osl", "5",
		"--ui-type", "none", "--artifact-dir", "file://"+dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// The mock honours the limit only in vLLM's sampling_parameters here.
	if !strings.Contains(stdout, "Time to First Token") || !regexp.MustCompile(`Output Sequence Length[^\n]*│ +5\.00 `).MatchString(stdout) {
		t.Errorf("stdout lacks TTFT or an OSL of 5:\n%s", stdout)
	}
	manifests, _ := filepath.Glob(filepath.Join(dir, "runs", "*", "manifest.json"))
	if len(manifests) != 1 {
		t.Fatalf("manifests %v", manifests)
	}
	b, _ := os.ReadFile(manifests[0])
	if !strings.Contains(string(b), `"kserve"`) || !strings.Contains(string(b), `"backend": "vllm"`) {
		t.Errorf("manifest lacks kserve and backend vllm:\n%s", b)
	}
}

// TestServiceKindExitTwo checks that unsupported GenAI-Perf combinations
// are refused with exit 2 and a message naming the fix, before any request.
func TestServiceKindExitTwo(t *testing.T) {
	srv, hits := countingServer(t)
	base := []string{"profile", "-m", "x", "--url", srv.URL, "--ui-type", "none", "--artifact-dir", t.TempDir()}
	for _, tt := range []struct {
		name string
		args []string
		env  string // AIPERF_SERVICE_KIND
		want string
	}{
		{"grpc", []string{"--service-kind", "dynamic_grpc"}, "", "aiperf speaks HTTP only"},
		{"engine from env", nil, "tensorrtllm_engine", "--service-kind tensorrtllm_engine is not supported"},
		{"triton chat", []string{"--service-kind", "triton", "--endpoint-type", "chat"}, "", "--service-kind triton works with --endpoint-type kserve"},
		{"backend on chat", []string{"--backend", "vllm"}, "", "--backend applies only to --endpoint-type kserve"},
		{"bad backend", []string{"--service-kind", "triton", "--backend", "onnx"}, "", `--backend "onnx" is not valid`},
		{"two models", []string{"--service-kind", "triton", "-m", "a,b"}, "", "give one --model"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.env != "" {
				t.Setenv("AIPERF_SERVICE_KIND", tt.env)
			}
			code, _, stderr := runCLI(t, append(slices.Clone(base), tt.args...)...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, want %d with %q; stderr:\n%s", code, exitUsage, tt.want, stderr)
			}
		})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}
