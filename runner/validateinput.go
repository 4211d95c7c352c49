package runner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/dataset/custom"
)

// Valid choices of the dataset flags.
var (
	samplingStrategies = []string{"sequential", "random", "shuffle"}
	publicDatasets     = []string{"sharegpt"}
)

// inputProblems checks the dataset flags (§4, §5.9): the source, its type,
// sampling, and the ranges of the synthetic options.
func (c *Config) inputProblems() []string {
	var p []string
	add := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	choice := func(flag, v string, valid []string) {
		if v != "" && !slices.Contains(valid, v) {
			add("%s %q is not valid: use one of %s", flag, v, strings.Join(valid, ", "))
		}
	}
	choice("--custom-dataset-type", c.CustomDatasetType, custom.Types())
	choice("--public-dataset", c.PublicDataset, publicDatasets)
	choice("--dataset-sampling-strategy", c.DatasetSampling, samplingStrategies)
	if c.CustomDatasetType != "" && c.InputFile == "" {
		add("--custom-dataset-type needs --input-file: name the dataset file")
	}
	if c.InputFile != "" {
		if err := custom.CheckInputFile(c.InputFile); err != nil {
			add("--input-file %v", err)
		}
	}
	for _, n := range []struct {
		flag string
		v    int
	}{
		{"--num-sessions", c.NumSessions}, {"--isl-block-size", c.ISLBlockSize},
		{"--synthesis-max-isl", c.SynthesisMaxISL}, {"--synthesis-max-osl", c.SynthesisMaxOSL},
		{"--num-prefix-prompts", c.NumPrefixPrompts}, {"--prefix-prompt-length", c.PrefixPromptLength},
		{"--shared-system-prompt-length", c.SharedSystemPromptLength}, {"--user-context-prompt-length", c.UserContextPromptLength},
	} {
		if n.v < 0 {
			add("%s must be >= 0 (got %d)", n.flag, n.v)
		}
	}
	for _, f := range []struct {
		flag string
		v    float64
	}{
		{"--session-turns-stddev", c.SessionTurnsStddev}, {"--session-turn-delay-mean", c.SessionTurnDelayMean},
		{"--session-turn-delay-stddev", c.SessionTurnDelayStddev}, {"--session-delay-ratio", c.SessionDelayRatio},
	} {
		if f.v < 0 {
			add("%s must be >= 0 (got %v)", f.flag, f.v)
		}
	}
	if c.SessionTurnsMean < 1 {
		add("--session-turns-mean must be >= 1 (got %v)", c.SessionTurnsMean)
	}
	synthetic := c.InputFile == "" && c.PublicDataset == ""
	if !synthetic {
		for _, f := range c.FlagsSet {
			if isSyntheticOnly(f) {
				add("--%s shapes synthetic prompts and cannot be used with --input-file or --public-dataset", f)
			}
		}
	}
	if synthetic {
		if sc, err := c.syntheticConfig(0); err != nil {
			add("%v", err)
		} else if err := dataset.ValidateSynthetic(&sc); err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				add("%s", line)
			}
		}
		if c.UserContextPromptLength > 0 && !c.NumDatasetEntriesSet {
			add("--user-context-prompt-length needs --num-dataset-entries: each conversation gets its own context prompt, so say how many conversations there are")
		}
	}
	if c.RequestCount > 0 && c.NumSessions > 0 {
		add("Both a request-count and number of conversations are set: give --request-count or --num-sessions, not both")
	}
	p = append(p, c.systemPromptProblems()...)
	return append(p, c.synthesisProblems()...)
}

// syntheticOnly are the flag prefixes and names that shape synthetic
// prompts only.
var syntheticOnly = []string{"isl", "isl-stddev", "seq-dist", "num-prefix-prompts", "prefix-prompt-length",
	"shared-system-prompt-length", "user-context-prompt-length", "session-turns-", "session-turn-delay-",
	"session-delay-ratio", "image-", "audio-", "video-", "rankings-"}

func isSyntheticOnly(flag string) bool {
	for _, s := range syntheticOnly {
		if flag == s || (strings.HasSuffix(s, "-") && strings.HasPrefix(flag, s)) {
			return true
		}
	}
	return false
}

// scheduleProblems checks the fixed-schedule flags (§5.4, §5.9).
func (c *Config) scheduleProblems() []string {
	var p []string
	add := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	if !c.FixedSchedule && (c.FixedScheduleAutoOffset || c.FixedScheduleStartOffsetSet || c.FixedScheduleEndOffsetSet) {
		add("--fixed-schedule-* can only be used with --fixed-schedule")
	}
	if c.FixedScheduleAutoOffset && c.FixedScheduleStartOffsetSet {
		add("--fixed-schedule-auto-offset and --fixed-schedule-start-offset cannot be used together: pick one")
	}
	if c.FixedScheduleStartOffsetSet && c.FixedScheduleEndOffsetSet && c.FixedScheduleEndOffset < c.FixedScheduleStartOffset {
		add("--fixed-schedule-end-offset (%v) must be >= --fixed-schedule-start-offset (%v)", c.FixedScheduleEndOffset, c.FixedScheduleStartOffset)
	}
	if c.FixedScheduleStartOffsetSet && c.FixedScheduleStartOffset < 0 {
		add("--fixed-schedule-start-offset must be >= 0 ms (got %v)", c.FixedScheduleStartOffset)
	}
	if c.FixedSchedule && c.DatasetSampling != "" {
		add("Dataset sampling strategy is not compatible with fixed schedule mode: drop --dataset-sampling-strategy")
	}
	if c.FixedSchedule && c.InputFile == "" {
		add("--fixed-schedule needs a timestamped dataset: give --input-file with a trace")
	}
	return p
}
