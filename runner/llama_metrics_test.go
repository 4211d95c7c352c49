//go:build integration && hftokenizers

package runner

import (
	"strings"
	"testing"
	"time"
)

// TestLlamaServerMetrics scrapes a real llama.cpp server's /metrics beside
// a benchmark and checks its counters' increases over the profiling window
// against what the records counted in the same run: generated tokens
// (llamacpp:tokens_predicted_total) equal the completion tokens, and
// prompt tokens processed (llamacpp:prompt_tokens_total, which leaves out
// tokens reused from the cache) equal the prompt tokens minus the cached
// ones. It also checks what the manifest says the server is.
func TestLlamaServerMetrics(t *testing.T) {
	url, model, tokPath, _ := llamaEnv(t)
	cfg := testConfig(t, url)
	cfg.Models = []string{model}
	cfg.Tokenizer = tokPath
	cfg.EndpointType = "completions"
	cfg.Streaming = true
	cfg.ISLMean, cfg.ISLStddev = 48, 16
	cfg.OSLMean = 6
	cfg.ExtraInputs = []string{"ignore_eos:true"}
	cfg.Concurrency, cfg.RequestCount = 2, 8
	cfg.RequestTimeout = 120 * time.Second
	cfg.ServerMetricsInterval = 20 * time.Millisecond
	res := runOK(t, cfg)

	var completion, prompt, cached float64
	for i, r := range readRecords(t, cfg.ArtifactDir) {
		c, ok1 := r.num("usage_completion_tokens")
		p, ok2 := r.num("usage_prompt_tokens")
		if !ok1 || !ok2 {
			t.Fatalf("request %d: no usage in %v", i, r.Metrics)
		}
		cr, _ := r.num("usage_prompt_cache_read_tokens")
		completion, prompt, cached = completion+c, prompt+p, cached+cr
	}
	if got := counterTotal(t, cfg.ArtifactDir, "llamacpp:tokens_predicted"); got != completion {
		t.Errorf("llamacpp:tokens_predicted increase %v, records' completion tokens %v", got, completion)
	}
	if got := counterTotal(t, cfg.ArtifactDir, "llamacpp:prompt_tokens"); got != prompt-cached {
		t.Errorf("llamacpp:prompt_tokens increase %v, records' prompt tokens %v - cached %v", got, prompt, cached)
	}

	m := readManifest(t, cfg.ArtifactDir, res.Files.RunID)
	if s := m.Server; s == nil || s.Software != "llama.cpp" || s.Header != "llama.cpp" || s.Version == "" || !strings.Contains(strings.Join(s.Models, ","), model) {
		t.Errorf("manifest server: %+v", m.Server)
	}
	if m.Telemetry == nil || len(m.Telemetry.Sources) != 1 || !m.Telemetry.Sources[0].Reachable || m.Telemetry.Sources[0].Failures != 0 {
		t.Errorf("manifest telemetry: %+v", m.Telemetry)
	}
}
