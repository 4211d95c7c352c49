package runner

import (
	"fmt"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/record"
)

// simpleBarWidth is the width of the simple UI's bar, in cells.
const simpleBarWidth = 30

// progressLine renders the simple UI's line from the counters alone at
// monotonic time now (the rate is the phase's average).
func progressLine(c *counters, now int64) string {
	return simpleLine(counterSnapshot(c, now))
}

// simpleLine renders one line in tqdm's shape:
//
//	Profiling: 25/100 |███████▌      |  25% [00:05<00:15, 5.0 req/s, 2 errors]
//
// A count-bound phase shows done/total; a duration-bound one the requests
// done and the fraction of its duration gone. The time after "<" is the ETA,
// "?" when it cannot be told yet.
func simpleLine(s snapshot) string {
	head := fmt.Sprintf("%d", s.done)
	frac := s.fraction()
	if s.total > 0 {
		head = fmt.Sprintf("%d/%d", s.done, s.total)
	}
	eta := "?"
	if s.etaKnown {
		eta = clockString(s.eta)
	}
	return fmt.Sprintf("%s: %s |%s| %3.0f%% [%s<%s, %.1f req/s, %d errors]",
		phaseLabel(s.phase), head, bar(frac, simpleBarWidth), frac*100, clockString(s.elapsed), eta, s.rate, s.failed)
}

// fraction is how much of the phase is done, in [0, 1]: requests of a
// count-bound phase, time of a duration-bound one.
func (s *snapshot) fraction() float64 {
	switch {
	case s.total > 0:
		return min(1, float64(s.done)/float64(s.total))
	case s.duration > 0:
		return min(1, s.elapsed.Seconds()/s.duration.Seconds())
	}
	return 0
}

// phaseLabel names a phase as AIPerf's progress bars do.
func phaseLabel(p record.Phase) string {
	switch p {
	case record.PhaseWarmup:
		return "Warming Up"
	case record.PhaseProfiling:
		return "Profiling"
	}
	return "Starting"
}

// bar renders frac of width cells with full blocks and one partial block.
func bar(frac float64, width int) string {
	const partial = " ▏▎▍▌▋▊▉"
	eighths := int(min(1, max(0, frac)) * float64(width) * 8)
	full, rest := eighths/8, eighths%8
	var b strings.Builder
	b.WriteString(strings.Repeat("█", full))
	if full < width {
		b.WriteString(string([]rune(partial)[rest]))
		b.WriteString(strings.Repeat(" ", width-full-1))
	}
	return b.String()
}

// clockString renders d as mm:ss (or h:mm:ss).
func clockString(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%02d:%02d", s/60, s%60)
}
