package trace

import (
	"bytes"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/pyjson"
)

// rule is the report's horizontal rule.
var rule = strings.Repeat("=", 60)

// WriteReport writes the console report of AIPerf's analyze-trace:
//
//	Trace Analysis Report
//	============================================================
//	Total requests:        10,000
//	Unique prefixes:       2,543
//	Cache hit rate:        68.5%
//	Prefix reuse ratio:    45.2%
//
//	ISL (Input Sequence Length):
//	  Min:     512
//	  P25:     1,024
//	  Median:  ...
//	  P75:     ...
//	  Max:     ...
//	  Mean:    ...
//
//	OSL (Output Sequence Length):
//	  ...
//	============================================================
//
// Counts have thousands separators and rates one decimal. A length value
// is written as an integer when it is one, else with one decimal
// (1,433.3). A block over no rows reads "  No data". The closing rule is
// AIPerf's. It makes one Write call and returns its error.
func (a *Analysis) WriteReport(w io.Writer) error {
	var b bytes.Buffer
	b.WriteString("Trace Analysis Report\n")
	b.WriteString(rule + "\n")
	field := func(label, value string) {
		b.WriteString(label)
		b.WriteString(strings.Repeat(" ", max(1, 23-len(label))))
		b.WriteString(value)
		b.WriteByte('\n')
	}
	field("Total requests:", groupThousands(strconv.Itoa(a.TotalRequests)))
	field("Unique prefixes:", groupThousands(strconv.Itoa(a.UniquePrefixes)))
	field("Cache hit rate:", percent(a.CacheHitRate))
	field("Prefix reuse ratio:", percent(a.PrefixReuseRatio))
	writeLengths(&b, "ISL (Input Sequence Length):", a.ISLStats)
	writeLengths(&b, "OSL (Output Sequence Length):", a.OSLStats)
	b.WriteString(rule + "\n")
	_, err := w.Write(b.Bytes())
	return err
}

// writeLengths writes one distribution block, preceded by a blank line.
func writeLengths(b *bytes.Buffer, title string, s *Stats) {
	b.WriteString("\n" + title + "\n")
	if s == nil {
		b.WriteString("  No data\n")
		return
	}
	for _, kv := range []struct {
		label string
		v     float64
	}{
		{"Min:", s.Min}, {"P25:", s.P25}, {"Median:", s.Median},
		{"P75:", s.P75}, {"Max:", s.Max}, {"Mean:", s.Mean},
	} {
		b.WriteString("  " + kv.label + strings.Repeat(" ", 9-len(kv.label)))
		b.WriteString(length(kv.v))
		b.WriteByte('\n')
	}
}

// percent formats a fraction as Python's f"{x:.1%}".
func percent(x float64) string {
	return strconv.FormatFloat(x*100, 'f', 1, 64) + "%"
}

// length formats a length statistic with thousands separators: without
// decimals when it is integral (1,024), else with one (1,433.3).
func length(x float64) string {
	prec := 1
	if x == math.Trunc(x) {
		prec = 0
	}
	return groupThousands(strconv.FormatFloat(x, 'f', prec, 64))
}

// groupThousands inserts commas into the integer part of a decimal number
// ("-1234567.5" → "-1,234,567.5"), as Python's "," format option does.
func groupThousands(s string) string {
	sign, rest := "", s
	if strings.HasPrefix(rest, "-") {
		sign, rest = "-", rest[1:]
	}
	intPart, frac, _ := strings.Cut(rest, ".")
	if len(intPart) <= 3 {
		return s
	}
	var b strings.Builder
	b.WriteString(sign)
	head := len(intPart) % 3
	if head == 0 {
		head = 3
	}
	b.WriteString(intPart[:head])
	for i := head; i < len(intPart); i += 3 {
		b.WriteByte(',')
		b.WriteString(intPart[i : i+3])
	}
	if frac != "" {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

// WriteJSON writes the Analysis as AIPerf writes its --output-file
// (pydantic's model_dump_json(indent=2)): the fields in AIPerf's order,
// floats in Python's repr form (1200.0, 0.3055555555555555), null for a
// nil *Stats, and no trailing newline. It makes one Write call and returns
// its error.
func (a *Analysis) WriteJSON(w io.Writer) error {
	j := jsonWriter{b: make([]byte, 0, 1536)}
	j.b = append(j.b, '{')
	j.int("total_requests", int64(a.TotalRequests))
	j.int("unique_prefixes", int64(a.UniquePrefixes))
	j.int("num_prefix_groups", int64(a.NumPrefixGroups))
	j.float("cache_hit_rate", a.CacheHitRate)
	j.int("min_isl", a.MinISL)
	j.int("max_isl", a.MaxISL)
	j.float("avg_isl", a.AvgISL)
	j.int("min_osl", a.MinOSL)
	j.int("max_osl", a.MaxOSL)
	j.float("avg_osl", a.AvgOSL)
	j.float("prefix_reuse_ratio", a.PrefixReuseRatio)
	j.stats("isl_stats", a.ISLStats)
	j.stats("osl_stats", a.OSLStats)
	j.stats("context_length_stats", a.ContextLengthStats)
	j.stats("unique_prompt_length_stats", a.UniquePromptLengthStats)
	j.stats("hit_rate_stats", a.HitRateStats)
	j.b = append(j.b, "\n}"...)
	_, err := w.Write(j.b)
	return err
}

// jsonWriter appends the members of pydantic's indented JSON.
type jsonWriter struct {
	b      []byte
	indent string // of the members being written
	n      int    // members written at this level
}

func (j *jsonWriter) key(k string) {
	if j.n > 0 {
		j.b = append(j.b, ',')
	}
	j.n++
	j.b = append(j.b, '\n')
	j.b = append(j.b, "  "+j.indent...)
	j.b = pyjson.AppendString(j.b, k)
	j.b = append(j.b, ": "...)
}

func (j *jsonWriter) int(k string, v int64) {
	j.key(k)
	j.b = strconv.AppendInt(j.b, v, 10)
}

func (j *jsonWriter) float(k string, v float64) {
	j.key(k)
	j.b = pyjson.AppendFloat(j.b, v)
}

func (j *jsonWriter) stats(k string, s *Stats) {
	j.key(k)
	if s == nil {
		j.b = append(j.b, "null"...)
		return
	}
	inner := jsonWriter{b: append(j.b, '{'), indent: j.indent + "  "}
	inner.float("mean", s.Mean)
	inner.float("std_dev", s.StdDev)
	inner.float("min", s.Min)
	inner.float("p25", s.P25)
	inner.float("median", s.Median)
	inner.float("p75", s.P75)
	inner.float("max", s.Max)
	j.b = append(inner.b, '\n')
	j.b = append(j.b, "  "+j.indent...)
	j.b = append(j.b, '}')
}
