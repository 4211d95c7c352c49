package main

import (
	"strings"
	"testing"
)

// TestPlotNamesAIPerfReport: aiperf plot draws nothing; it names the
// aiperf-report command line with the same directories, --output and
// --theme (./artifacts without directories, as Python aiperf) and exits 2.
func TestPlotNamesAIPerfReport(t *testing.T) {
	const prefix = "aiperf: plot is part of aiperf-report (the runner carries no DuckDB); run: "
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"plot"}, "aiperf-report plot ./artifacts"},
		{[]string{"plot", "artifacts/run1", "--output", "out", "--theme", "dark"}, "aiperf-report plot artifacts/run1 --output out --theme dark"},
		{[]string{"plot", "--paths", "a", "--paths", "b", "c"}, "aiperf-report plot a b c"},
		{[]string{"plot", "my runs/it's"}, `aiperf-report plot 'my runs/it'\''s'`},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		if code != 2 || stdout != "" || stderr != prefix+tc.want+"\n" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and %q", tc.args, code, stdout, stderr, prefix+tc.want)
		}
	}
	if code, _, stderr := runCLI(t, "plot", "--dashboard"); code != 2 || !strings.Contains(stderr, "dashboard") {
		t.Errorf("plot --dashboard: exit %d %q, want 2 naming the flag", code, stderr)
	}
}
