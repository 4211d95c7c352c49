package runner

import (
	"bytes"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// ANSI sequences of the dashboard: it draws on the alternate screen with the
// cursor hidden, and restores both when it ends.
const (
	ansiEnter     = "\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J" // alternate screen, hide cursor, clear
	ansiLeave     = "\x1b[?25h\x1b[?1049l"              // show cursor, main screen
	ansiHome      = "\x1b[H"
	ansiClearLine = "\x1b[K" // to the end of the line
	ansiClearDown = "\x1b[J" // to the end of the screen
	ansiLineStart = "\r\x1b[2K"
)

// dashboardLabelWidth aligns the dashboard's row labels.
const dashboardLabelWidth = 11

// dashboardLines renders one dashboard frame for a terminal width cells wide
// (at least 40 are used): phase and progress, counts, rates, and the recent
// percentiles. Missing values (no streaming, closed loop) show as "-".
func dashboardLines(s snapshot, width int) []string {
	width = max(width, 40)
	title := "aiperf-go · " + phaseLabel(s.phase)
	clock := "elapsed " + clockString(s.elapsed)
	lines := []string{
		title + strings.Repeat(" ", max(1, width-utf8.RuneCountInString(title)-len(clock))) + clock,
		strings.Repeat("─", width),
		progressRow(s, width),
		row("Requests", fmt.Sprintf("%d done · %d errors · %d in flight", s.done, s.failed, s.inflight)),
		row("Throughput", fmt.Sprintf("%.1f req/s · %.1f output tokens/s", s.rate, s.outputTPS)),
		"",
		fmt.Sprintf("%-34s %12s %12s", fmt.Sprintf("Last %s (%d requests)", spanString(s.span), s.recentN), "p50", "p99"),
		quantileRow("Time to first token (ms)", s.ttft, 2),
		quantileRow("Inter token latency (ms)", s.itl, 2),
		quantileRow("Request latency (ms)", s.latency, 2),
		quantileRow("Schedule lateness (ms)", s.late, 3),
		"",
		"Ctrl-C stops the run; the results so far are still written.",
	}
	for i, l := range lines {
		lines[i] = fitWidth(l, width)
	}
	return lines
}

// progressRow is the bar with the phase's position: requests of a
// count-bound phase, time of a duration-bound one, and the ETA.
func progressRow(s snapshot, width int) string {
	eta := "?"
	if s.etaKnown {
		eta = clockString(s.eta)
	}
	tail := fmt.Sprintf(" %3.0f%%  %d", s.fraction()*100, s.done)
	switch {
	case s.total > 0:
		tail += fmt.Sprintf("/%d", s.total)
	case s.duration > 0:
		tail = fmt.Sprintf(" %3.0f%%  %s/%s", s.fraction()*100, clockString(s.elapsed), clockString(s.duration))
	}
	tail += "  ETA " + eta
	barWidth := min(60, max(10, width-dashboardLabelWidth-utf8.RuneCountInString(tail)-2))
	return row("Progress", "|"+bar(s.fraction(), barWidth)+"|"+tail)
}

// row is a labelled dashboard line.
func row(label, text string) string {
	return fmt.Sprintf("%-*s%s", dashboardLabelWidth, label, text)
}

// quantileRow is one metric's p50 and p99 with prec decimals, or "-" when
// the window has no value of it.
func quantileRow(label string, q quantiles, prec int) string {
	p50, p99 := "-", "-"
	if q.n > 0 {
		p50, p99 = fmt.Sprintf("%.*f", prec, q.p50), fmt.Sprintf("%.*f", prec, q.p99)
	}
	return fmt.Sprintf("  %-32s %12s %12s", label, p50, p99)
}

// spanString renders the recent window's span: whole seconds from 10 s up,
// else tenths.
func spanString(d time.Duration) string {
	if d >= 10*time.Second {
		return fmt.Sprintf("%.0f s", d.Seconds())
	}
	return fmt.Sprintf("%.1f s", d.Seconds())
}

// fitWidth cuts s to at most width runes.
func fitWidth(s string, width int) string {
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	r := []rune(s)
	return string(r[:width])
}

// writeFrame appends to b the sequences that redraw the screen with lines,
// keeping at most height of them (the last line gets no newline, so the
// screen never scrolls).
func writeFrame(b *bytes.Buffer, lines []string, height int) {
	if height > 0 && len(lines) > height {
		lines = lines[:height]
	}
	b.WriteString(ansiHome)
	for i, l := range lines {
		if i > 0 {
			b.WriteString("\r\n")
		}
		b.WriteString(l)
		b.WriteString(ansiClearLine)
	}
	b.WriteString(ansiClearDown)
}
