package multirun

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/internal/pyjson"
)

// File names of the aggregate, under <artifact-dir>/aggregate/.
const (
	AggregateDir  = "aggregate"
	AggregateJSON = "profile_export_aiperf_aggregate.json"
	AggregateCSV  = "profile_export_aiperf_aggregate.csv"
)

// aggregateSchemaVersion is AIPerf's AggregateConfidenceJsonExporter
// SCHEMA_VERSION: the aggregate's shape is versioned apart from the
// per-run summary.
const aggregateSchemaVersion = "1.0"

// WriteJSON writes profile_export_aiperf_aggregate.json as AIPerf does:
// schema_version, aiperf_version, metadata (aggregation_type,
// num_profile_runs, num_successful_runs, failed_runs, confidence_level,
// run_labels, cooldown_seconds) and metrics, one block per flattened key
// with mean, std, min, max, cv, se, ci_low, ci_high, t_critical and unit.
// Non-finite values are null. Indented by two spaces, no trailing newline.
func WriteJSON(w io.Writer, a *Aggregate, version string) error {
	b := make([]byte, 0, 64<<10)
	b = append(b, "{\n  \"schema_version\": "...)
	b = pyjson.AppendString(b, aggregateSchemaVersion)
	b = append(b, ",\n  \"aiperf_version\": "...)
	b = pyjson.AppendString(b, version)
	b = append(b, ",\n  \"metadata\": {\n    \"aggregation_type\": \"confidence\",\n    \"num_profile_runs\": "...)
	b = strconv.AppendInt(b, int64(a.NumRuns), 10)
	b = append(b, ",\n    \"num_successful_runs\": "...)
	b = strconv.AppendInt(b, int64(len(a.RunLabels)), 10)
	b = append(b, ",\n    \"failed_runs\": "...)
	if len(a.Failed) == 0 {
		b = append(b, "[]"...)
	} else {
		b = append(b, '[')
		for i, f := range a.Failed {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n      {\n        \"label\": "...)
			b = pyjson.AppendString(b, f.Label)
			b = append(b, ",\n        \"error\": "...)
			b = pyjson.AppendString(b, f.Error)
			b = append(b, "\n      }"...)
		}
		b = append(b, "\n    ]"...)
	}
	b = append(b, ",\n    \"confidence_level\": "...)
	b = pyjson.AppendFloat(b, a.ConfidenceLevel)
	b = append(b, ",\n    \"run_labels\": ["...)
	for i, l := range a.RunLabels {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n      "...)
		b = pyjson.AppendString(b, l)
	}
	if len(a.RunLabels) > 0 {
		b = append(b, "\n    "...)
	}
	b = append(b, "],\n    \"cooldown_seconds\": "...)
	b = pyjson.AppendFloat(b, a.Cooldown.Seconds())
	b = append(b, "\n  },\n  \"metrics\": {"...)
	for i, m := range a.Metrics {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n    "...)
		b = pyjson.AppendString(b, m.Key)
		b = append(b, ": {"...)
		for j, f := range m.fields() {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n      \""...)
			b = append(b, f.name...)
			b = append(b, "\": "...)
			b = pyjson.AppendFloat(b, f.v)
		}
		b = append(b, ",\n      \"unit\": "...)
		b = pyjson.AppendString(b, m.Unit)
		b = append(b, "\n    }"...)
	}
	if len(a.Metrics) > 0 {
		b = append(b, "\n  "...)
	}
	b = append(b, "}\n}"...)
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("write aggregate json: %w", err)
	}
	return nil
}

// field is one named statistic of an aggregated metric.
type field struct {
	name     string
	v        float64
	decimals int // in the CSV
}

// fields returns m's statistics in AIPerf's order.
func (m *Metric) fields() []field {
	return []field{
		{"mean", m.Mean, 2}, {"std", m.Std, 2}, {"min", m.Min, 2}, {"max", m.Max, 2},
		{"cv", m.CV, 4}, {"se", m.SE, 4}, {"ci_low", m.CILow, 2}, {"ci_high", m.CIHigh, 2},
		{"t_critical", m.TCritical, 4},
	}
}

// WriteCSV writes profile_export_aiperf_aggregate.csv as AIPerf does, with
// CRLF line ends: the metrics table (metric,mean,std,min,max,cv,se,ci_low,
// ci_high,t_critical,unit; cv, se and t_critical with 4 decimals, the rest
// with 2, infinities as inf, NaN empty), an empty line, then the metadata
// rows (Aggregation Type, Total Runs, Successful Runs, Confidence Level, Run
// Labels as a Python list, Cooldown Seconds).
func WriteCSV(w io.Writer, a *Aggregate) error {
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	rows := [][]string{{"metric", "mean", "std", "min", "max", "cv", "se", "ci_low", "ci_high", "t_critical", "unit"}}
	for i := range a.Metrics {
		m := &a.Metrics[i]
		row := []string{m.Key}
		for _, f := range m.fields() {
			row = append(row, formatCSV(f.v, f.decimals))
		}
		rows = append(rows, append(row, m.Unit))
	}
	quoted := make([]string, len(a.RunLabels))
	for i, l := range a.RunLabels {
		quoted[i] = "'" + l + "'"
	}
	rows = append(rows, nil,
		[]string{"Aggregation Type", "confidence"},
		[]string{"Total Runs", strconv.Itoa(a.NumRuns)},
		[]string{"Successful Runs", strconv.Itoa(len(a.RunLabels))},
		[]string{"Confidence Level", string(pyjson.AppendFloat(nil, a.ConfidenceLevel))},
		[]string{"Run Labels", "[" + strings.Join(quoted, ", ") + "]"},
		[]string{"Cooldown Seconds", string(pyjson.AppendFloat(nil, a.Cooldown.Seconds()))},
	)
	if err := cw.WriteAll(rows); err != nil {
		return fmt.Errorf("write aggregate csv: %w", err)
	}
	return nil
}

// formatCSV formats v with the given decimals as Python's f"{v:.Nf}", "inf"
// and "-inf" for infinities, and "" for NaN.
func formatCSV(v float64, decimals int) string {
	if math.IsNaN(v) {
		return ""
	}
	return pyFixed(v, decimals)
}
