package main

import (
	"strings"
	"testing"
)

// TestUnknownFlagHint checks the one-line message of an unknown flag: the
// flag, the nearest one of the selected command (or the unimplemented
// AIPerf family), the command's --help, and exit 2.
func TestUnknownFlagHint(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"profile", "-m", "x", "--concurency", "3"}, "aiperf: unknown flag --concurency: did you mean --concurrency? (see aiperf profile --help)\n"},
		{[]string{"profile", "--wokers-max", "3"}, "aiperf: unknown flag --wokers-max: did you mean --workers-max? (see aiperf profile --help)\n"},
		{[]string{"profile", "--modle", "x"}, "aiperf: unknown flag --modle: did you mean --model? (see aiperf profile --help)\n"},
		{[]string{"profile", "--zzzzzzzz"}, "aiperf: unknown flag --zzzzzzzz (see aiperf profile --help)\n"},
		{[]string{"profile", "-Z"}, "aiperf: unknown flag -Z (see aiperf profile --help)\n"},
		{[]string{"--verzion"}, "aiperf: unknown flag --verzion: did you mean --version? (see aiperf --help)\n"},
		{[]string{"profile", "--accuracy-benchmark", "mmlu"}, "aiperf: unknown flag --accuracy-benchmark: AIPerf 0.13's accuracy benchmarking, which aiperf does not implement (docs/cli.md) (see aiperf profile --help)\n"},
	} {
		code, _, stderr := runCLI(t, tt.args...)
		if code != exitUsage || !strings.HasSuffix(stderr, tt.want) {
			t.Errorf("%q: exit %d, stderr %q, want exit 2 ending %q", tt.args, code, stderr, tt.want)
		}
	}
}
