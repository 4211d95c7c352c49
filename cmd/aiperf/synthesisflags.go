package main

import (
	"github.com/peterbourgon/ff/v4/ffval"

	"github.com/aiperf-go/aiperf/runner"
)

// synthesisFlags registers AIPerf 0.13's --synthesis-* multipliers in g:
// they rescale a trace --input-file before the run as `aiperf synthesize`
// rescales a file (--synthesis-max-isl and --synthesis-max-osl sit beside
// them in profile.go).
func synthesisFlags(g flagGroup, cfg *runner.Config) {
	g.add(0, "synthesis-speedup-ratio", finiteFloat{&cfg.SynthesisSpeedupRatio}, "trace synthesis: divide the trace's timestamps by `RATIO` (2: twice the request rate)")
	g.add(0, "synthesis-prefix-len-multiplier", finiteFloat{&cfg.SynthesisPrefixLenMultiplier}, "trace synthesis: scale each row's shared prefix (its leading hash_ids that occur in other rows too) by `FACTOR`")
	g.add(0, "synthesis-prefix-root-multiplier", ffval.NewValueDefault(&cfg.SynthesisPrefixRootMultiplier, cfg.SynthesisPrefixRootMultiplier), "trace synthesis: spread the rows at random over `N` disjoint copies of the prefix tree")
	g.add(0, "synthesis-prompt-len-multiplier", finiteFloat{&cfg.SynthesisPromptLenMultiplier}, "trace synthesis: scale each row's unique prompt (the tokens after its shared prefix) by `FACTOR`")
	g.add(0, "synthesis-output-len-multiplier", finiteFloat{&cfg.SynthesisOutputLenMultiplier}, "trace synthesis: scale output_length by `FACTOR` (rounded half to even, at least 1)")
}
