package export

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/metrics"
)

// maxMessageWidth bounds the Message column of the error summary: rich wraps
// long messages to the terminal; we cut them instead (the full text is in
// profile_export_aiperf.json).
const maxMessageWidth = 100

// WriteConsoleExport writes what AIPerf saves as profile_export_console.txt:
// the metrics table, then, when they apply, the HTTP trace timing table
// (info.ShowTraceTiming), the error summary table, the GPU Telemetry
// Summary (info.ShowGPUTelemetry), the Token Count Discrepancy Warning and
// the Output Sequence Length Mismatch Warning. A Schema14 run gets AIPerf
// 0.13's order and its prompt-cache hint instead (see appendConsole14). It
// writes nothing when s has no console results and no errors and there is
// no GPU telemetry to show.
func WriteConsoleExport(w io.Writer, s *metrics.Summary, info *RunInfo) error {
	if info == nil {
		info = &RunInfo{}
	}
	if info.SchemaVersion == Schema14 {
		return writeConsole(w, appendConsole14(nil, s, info))
	}
	b := appendMetricsTable(nil, s, info)
	if info.ShowTraceTiming {
		b = appendTraceTimingTable(b, s)
	}
	b = appendErrorTable(b, s.Errors)
	b = appendGPUTelemetry(b, info)
	b = appendUsageDiscrepancyPanel(b, s, info)
	b = appendOSLMismatchPanel(b, s, info)
	return writeConsole(w, b)
}

func writeConsole(w io.Writer, b []byte) error {
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("write console: %w", err)
	}
	return nil
}

// WriteConsole writes the console report printed at the end of a run:
// WriteConsoleExport's tables and panels, an empty line, then "CLI Command:",
// "Benchmark Duration: X.XX sec", "CSV Export:", "JSON Export:" and
// "Log File:" lines (each only when known), info.Notes, a notice when the run was
// cancelled, and an empty line.
func WriteConsole(w io.Writer, s *metrics.Summary, info *RunInfo) error {
	if info == nil {
		info = &RunInfo{}
	}
	if err := WriteConsoleExport(w, s, info); err != nil {
		return err
	}
	var sb strings.Builder
	sb.WriteString("\n")
	if info.CLICommand != "" {
		sb.WriteString("CLI Command: " + info.CLICommand + "\n")
	}
	if d := s.Get("benchmark_duration"); d != nil {
		fmt.Fprintf(&sb, "%s: %.2f %s", d.Header, d.Avg, d.Unit)
		sb.WriteString(cancelledSuffix(info) + "\n")
	} else if info.Duration > 0 {
		fmt.Fprintf(&sb, "Benchmark Duration: %.2f sec", info.Duration.Seconds())
		sb.WriteString(cancelledSuffix(info) + "\n")
	}
	for _, f := range [...]struct{ name, path string }{
		{"CSV Export", info.CSVPath},
		{"JSON Export", info.JSONPath},
		{"Log File", info.LogPath},
	} {
		if f.path != "" {
			sb.WriteString(f.name + ": " + f.path + "\n")
		}
	}
	for _, n := range info.Notes {
		sb.WriteString(n + "\n")
	}
	if info.WasCancelled {
		sb.WriteString("The profile run was cancelled early. Results shown may be incomplete or inaccurate.\n")
	}
	sb.WriteString("\n")
	if _, err := io.WriteString(w, sb.String()); err != nil {
		return fmt.Errorf("write console: %w", err)
	}
	return nil
}

func cancelledSuffix(info *RunInfo) string {
	if info.WasCancelled {
		return " (cancelled early)"
	}
	return ""
}

// appendMetricsTable appends two empty lines and, for each console group in
// metrics.ConsoleGroups order, the table of its results with Console set,
// in DisplayOrder: "NVIDIA AIPerf | <Title>: Effective" (then Active,
// Usage) as AIPerf 0.13 titles them, and "NVIDIA AIPerf | <Title>" for the
// default group, which is the only one in 1.0 runs. The tables follow each
// other without empty lines, as rich prints AIPerf 0.13's table group.
func appendMetricsTable(b []byte, s *metrics.Summary, info *RunInfo) []byte {
	first := true
	for _, g := range metrics.ConsoleGroups {
		var shown []*metrics.Result
		for i := range s.Results {
			if r := &s.Results[i]; r.Console && r.Group == g {
				shown = append(shown, r)
			}
		}
		title := "NVIDIA AIPerf | " + info.title()
		if g != metrics.GroupDefault {
			title += ": " + strings.ToUpper(g[:1]) + g[1:]
		}
		if len(shown) == 0 {
			continue
		}
		if first {
			b = appendStatsTable(b, title, shown)
			first = false
			continue
		}
		b = append(b, appendStatsTable(nil, title, shown)[2:]...) // no empty lines
	}
	return b
}

// appendStatsTable appends two empty lines and a titled table of results
// (Metric, avg, min, max, p99, p90, p50, std) in DisplayOrder, or nothing
// without results. Scalar results show N/A for the statistics they lack.
func appendStatsTable(b []byte, title string, shown []*metrics.Result) []byte {
	if len(shown) == 0 {
		return b
	}
	slices.SortStableFunc(shown, func(a, b *metrics.Result) int {
		return cmp.Compare(a.DisplayOrder, b.DisplayOrder)
	})
	cols := []column{{"Metric", true}, {"avg", true}, {"min", true}, {"max", true},
		{"p99", true}, {"p90", true}, {"p50", true}, {"std", true}}
	rows := make([][]string, 0, len(shown))
	for _, r := range shown {
		sep := " "
		if len([]rune(r.Header)) > 30 {
			sep = "\n"
		}
		cell := func(stat string, v float64) string {
			if slices.Contains(r.Missing, stat) {
				return "N/A"
			}
			return commaFloat(v)
		}
		row := []string{label(r, sep), cell("avg", r.Avg)}
		if r.Scalar {
			row = append(row, "N/A", "N/A", "N/A", "N/A", "N/A", "N/A")
		} else {
			row = append(row, cell("min", r.Min), cell("max", r.Max), cell("p99", r.P[8]),
				cell("p90", r.P[6]), cell("p50", r.P[4]), cell("std", r.Std))
		}
		rows = append(rows, row)
	}
	b = append(b, '\n', '\n')
	return appendTable(b, title, cols, rows)
}

// appendErrorTable appends two empty lines and the "NVIDIA AIPerf | Error
// Summary" table (Code, Type, Message, Count), or nothing without errors.
func appendErrorTable(b []byte, errs []metrics.ErrorCount) []byte {
	if len(errs) == 0 {
		return b
	}
	cols := []column{{"Code", true}, {"Type", true}, {"Message", false}, {"Count", true}}
	rows := make([][]string, 0, len(errs))
	for _, e := range errs {
		code, typ := "N/A", "N/A"
		if e.Error.Code != 0 {
			code = strconv.Itoa(e.Error.Code)
		}
		if t := singleLine(e.Error.Type); t != "" {
			typ = truncateCells(t, maxMessageWidth)
		}
		rows = append(rows, []string{code, typ,
			truncateCells(singleLine(e.Error.Message), maxMessageWidth), commaInt(int64(e.Count))})
	}
	b = append(b, '\n', '\n')
	return appendTable(b, "NVIDIA AIPerf | Error Summary", cols, rows)
}

// commaFloat formats v like Python's "{:,.2f}": two decimals, thousands
// separated by commas ("1,022,443.06"); NaN and infinities as Python does.
func commaFloat(v float64) string {
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	s := strconv.FormatFloat(v, 'f', 2, 64)
	sign := ""
	if s[0] == '-' {
		sign, s = "-", s[1:]
	}
	intPart, frac, _ := strings.Cut(s, ".")
	return sign + groupThousands(intPart) + "." + frac
}

// commaInt formats n like Python's "{:,}".
func commaInt(n int64) string {
	s := strconv.FormatInt(n, 10)
	if n < 0 {
		return "-" + groupThousands(s[1:])
	}
	return groupThousands(s)
}

func groupThousands(digits string) string {
	if len(digits) <= 3 {
		return digits
	}
	var sb strings.Builder
	head := len(digits) % 3
	if head > 0 {
		sb.WriteString(digits[:head])
	}
	for i := head; i < len(digits); i += 3 {
		if sb.Len() > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(digits[i : i+3])
	}
	return sb.String()
}

// pyG formats v like Python's "{:g}" for the thresholds shown in warnings
// (10 → "10", 7.5 → "7.5").
func pyG(v float64) string {
	return strconv.FormatFloat(v, 'g', 6, 64)
}
