package verdict

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WriteTable prints the verdict as a console table: one row per threshold
// (metric, stat, comparator, threshold, actual, verdict), then the reason
// of each check that failed without a value, then one line with the
// outcome.
func WriteTable(w io.Writer, v *Verdict) error {
	var b strings.Builder
	b.WriteString("\nCI verdict (--threshold)\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "METRIC\tSTAT\tCOMPARATOR\tTHRESHOLD\tACTUAL\tVERDICT")
	for _, c := range v.Checks {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", c.Metric, c.Stat, c.Op, withUnit(number(c.Value), c.Unit), actual(c), word(c.Pass))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("verdict table: %w", err)
	}
	for _, c := range v.Checks {
		if c.Reason != "" {
			fmt.Fprintf(&b, "  %s: %s\n", c.Expr, c.Reason)
		}
	}
	b.WriteString(outcome(v) + "\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("verdict table: %w", err)
	}
	return nil
}

// Markdown returns the verdict as a GitHub step summary: a heading with the
// outcome, the run id and where its results are, and the table.
func Markdown(v *Verdict) string {
	var b strings.Builder
	mark := "✅"
	if !v.Pass {
		mark = "❌"
	}
	fmt.Fprintf(&b, "### %s aiperf thresholds: %s\n\n", mark, outcome(v))
	if v.RunID != "" {
		fmt.Fprintf(&b, "Run `%s`", v.RunID)
		if v.Location != "" {
			fmt.Fprintf(&b, ", results in `%s`", v.Location)
		}
		if v.RunStatus != "" {
			fmt.Fprintf(&b, " (run %s)", v.RunStatus)
		}
		b.WriteString(".\n\n")
	}
	b.WriteString("| Metric | Stat | Comparator | Threshold | Actual | Verdict |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, c := range v.Checks {
		verdict := "✅ pass"
		if !c.Pass {
			verdict = "❌ fail"
			if c.Reason != "" {
				verdict += ": " + cell(c.Reason)
			}
		}
		fmt.Fprintf(&b, "| `%s` | %s | `%s` | %s | %s | %s |\n", c.Metric, c.Stat, c.Op,
			withUnit(number(c.Value), c.Unit), actual(c), verdict)
	}
	b.WriteString("\n")
	return b.String()
}

// AppendFile appends text to the file at path, creating it when missing;
// $GITHUB_STEP_SUMMARY is such a file, shared by every step of a job, so
// it is never truncated.
func AppendFile(path, text string) (err error) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("step summary: %w", err)
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	if _, err := io.WriteString(f, text); err != nil {
		return fmt.Errorf("step summary: %w", err)
	}
	return nil
}

// outcome is the verdict in words, e.g. "FAIL: 1 of 3 thresholds failed".
func outcome(v *Verdict) string {
	n := len(v.Checks)
	if v.Pass {
		return fmt.Sprintf("PASS: all %d %s passed", n, plural(n))
	}
	return fmt.Sprintf("FAIL: %d of %d %s failed", v.Failed, n, plural(n))
}

func plural(n int) string {
	if n == 1 {
		return "threshold"
	}
	return "thresholds"
}

func word(pass bool) string {
	if pass {
		return "PASS"
	}
	return "FAIL"
}

// actual formats a check's value as the console report does (two
// decimals), or "n/a" without one.
func actual(c Check) string {
	if c.Actual == nil {
		return "n/a"
	}
	return withUnit(strconv.FormatFloat(*c.Actual, 'f', 2, 64), c.Unit)
}

func number(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func withUnit(s, unit string) string {
	if unit == "" {
		return s
	}
	return s + " " + unit
}

// cell keeps text from breaking a Markdown table row.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
