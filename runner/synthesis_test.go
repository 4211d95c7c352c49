package runner

import (
	"slices"
	"testing"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

func TestSynthesisProblems(t *testing.T) {
	tests := []struct {
		name string
		set  func(*Config)
		want []string
	}{
		{"defaults", func(*Config) {}, nil},
		{"speedup with a trace", func(c *Config) { c.SynthesisSpeedupRatio, c.InputFile = 2, "t.jsonl" }, nil},
		{"zero speedup", func(c *Config) { c.SynthesisSpeedupRatio = 0 },
			[]string{"--synthesis-speedup-ratio must be a finite number > 0, got 0"}},
		{"zero trees", func(c *Config) { c.SynthesisPrefixRootMultiplier = 0 },
			[]string{"--synthesis-prefix-root-multiplier must be >= 1, got 0"}},
		{"no trace", func(c *Config) { c.SynthesisPromptLenMultiplier = 2 },
			[]string{"the --synthesis-* multipliers rescale a trace: give --input-file with a mooncake_trace, bailian_trace or burst_gpt_trace (or leave them at their defaults)"}},
	}
	for _, tt := range tests {
		c := Defaults()
		tt.set(&c)
		if got := c.synthesisProblems(); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
	c := Defaults()
	c.SynthesisOutputLenMultiplier, c.SynthesisPrefixLenMultiplier, c.SynthesisPrefixRootMultiplier = 0.5, 3, 4
	s := c.traceSynthesis()
	if s.OutputLenMultiplier != 0.5 || s.PrefixLenMultiplier != 3 || s.PrefixRootMultiplier != 4 || s.SpeedupRatio != 1 || s.PromptLenMultiplier != 1 {
		t.Errorf("traceSynthesis: %+v", *s)
	}
}

// TestTraceSynthesisReachesRequests: --synthesis-output-len-multiplier
// and --synthesis-speedup-ratio apply to a trace --input-file before the
// run: the server sees the doubled output lengths.
func TestTraceSynthesisReachesRequests(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{RecordTimelines: true, OutputTokens: 2})
	cfg := testConfig(t, srv.URL())
	cfg.InputFile = writeFile(t, "trace.jsonl", `{"timestamp": 0, "text_input": "first", "output_length": 3}
{"timestamp": 5000, "text_input": "second", "output_length": 5}
`)
	cfg.SynthesisOutputLenMultiplier, cfg.SynthesisSpeedupRatio = 2, 1000
	runOK(t, cfg)
	var got []float64
	for _, body := range serverBodies(t, srv) {
		v, _ := body["max_completion_tokens"].(float64)
		got = append(got, v)
	}
	slices.Sort(got)
	if !slices.Equal(got, []float64{6, 10}) {
		t.Errorf("max_completion_tokens %v, want [6 10]", got)
	}
}
