package runner

import "github.com/aiperf-go/aiperf/trace"

// traceSynthesis returns the --synthesis-* transform of a trace
// --input-file (§7.2), without the max ISL/OSL that custom.Options
// carries itself. The block size is the trace format's, set by the loader.
func (c *Config) traceSynthesis() *trace.Synthesis {
	s := trace.DefaultSynthesis()
	s.SpeedupRatio = c.SynthesisSpeedupRatio
	s.PrefixLenMultiplier = c.SynthesisPrefixLenMultiplier
	s.PrefixRootMultiplier = c.SynthesisPrefixRootMultiplier
	s.PromptLenMultiplier = c.SynthesisPromptLenMultiplier
	s.OutputLenMultiplier = c.SynthesisOutputLenMultiplier
	return &s
}

// synthesisProblems checks the --synthesis-* multipliers: their ranges,
// and that there is a trace for them to rescale.
func (c *Config) synthesisProblems() []string {
	s := c.traceSynthesis()
	if err := s.Check("synthesis-"); err != nil {
		return []string{err.Error()}
	}
	if s.Transforms() && c.InputFile == "" {
		return []string{"the --synthesis-* multipliers rescale a trace: give --input-file with a mooncake_trace, bailian_trace or burst_gpt_trace (or leave them at their defaults)"}
	}
	return nil
}
