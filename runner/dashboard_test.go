package runner

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/record"
)

func init() {
	// Registered here only when no other test file of the package registers
	// "update", so that the two can coexist.
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files in testdata")
	}
}

// updateGolden tells whether -update was given.
func updateGolden() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// checkGolden compares got with testdata/name, or rewrites it with -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if updateGolden() {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run with -update after checking):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func TestDashboardGolden(t *testing.T) {
	frames := []struct {
		name  string
		s     snapshot
		width int
	}{{
		name: "streaming, open loop, count-bound, 80 columns",
		s: snapshot{
			phase: record.PhaseProfiling, done: 450, total: 1000, failed: 3, inflight: 12,
			elapsed: 12 * time.Second, eta: 15 * time.Second, etaKnown: true,
			span: 10 * time.Second, recentN: 375, rate: 37.5, outputTPS: 1234.56,
			ttft:    quantiles{p50: 12.3456, p99: 45.678, n: 375},
			itl:     quantiles{p50: 1.234, p99: 4.5678, n: 375},
			latency: quantiles{p50: 123.45, p99: 456.789, n: 375},
			late:    quantiles{p50: 0.0123, p99: 0.4567, n: 380},
		},
		width: 80,
	}, {
		name: "not streaming, closed loop, duration-bound, warmup, 60 columns",
		s: snapshot{
			phase: record.PhaseWarmup, done: 7, duration: time.Minute, elapsed: 3500 * time.Millisecond,
			eta: 56500 * time.Millisecond, etaKnown: true, span: 3500 * time.Millisecond, recentN: 7, rate: 2,
			latency: quantiles{p50: 500, p99: 990, n: 7},
		},
		width: 60,
	}}
	var b strings.Builder
	for _, f := range frames {
		b.WriteString("== " + f.name + "\n")
		for _, l := range dashboardLines(f.s, f.width) {
			b.WriteString(l + "\n")
		}
	}
	checkGolden(t, "dashboard.golden", b.String())
}

// TestDashboardLinesFitWidth checks that no line is wider than the terminal.
func TestDashboardLinesFitWidth(t *testing.T) {
	s := snapshot{phase: record.PhaseProfiling, done: 123456789, total: 987654321, failed: 1234567, inflight: 99999,
		rate: 123456.7, outputTPS: 98765432.1, etaKnown: true, eta: 100 * time.Hour}
	for _, width := range []int{40, 45, 200} {
		lines := dashboardLines(s, width)
		for _, l := range lines {
			if n := len([]rune(l)); n > width {
				t.Errorf("width %d: line of %d: %q", width, n, l)
			}
		}
		if width == 200 && !strings.Contains(lines[2], "|"+strings.Repeat("█", 7)) {
			t.Errorf("bar at width 200: %q", lines[2])
		}
	}
	if got := len([]rune(dashboardLines(s, 10)[1])); got != 40 {
		t.Errorf("a 10-column terminal gets %d columns, want the 40 minimum", got)
	}
}

func TestDashboardWriteFrame(t *testing.T) {
	var b bytes.Buffer
	writeFrame(&b, []string{"a", "b", "c"}, 2)
	want := ansiHome + "a" + ansiClearLine + "\r\nb" + ansiClearLine + ansiClearDown
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
