package report

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Stats are the columns of run_metrics a check can name after the tag.
var Stats = []string{"avg", "sum", "min", "max", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99", "std"}

// Check is one regression rule: a metric statistic (e.g.
// "time_to_first_token.p99") and how far it may move from the baseline, as
// fractions (0.1 = 10 %); a NaN bound is not checked.
type Check struct {
	Tag, Stat                string
	MaxIncrease, MaxDecrease float64
}

// ParseCheck builds a Check from "tag.stat" and bounds like "10%" or "0.1"
// ("" for none).
func ParseCheck(metric, maxIncrease, maxDecrease string) (Check, error) {
	tag, stat, ok := strings.Cut(metric, ".")
	if !ok || tag == "" {
		return Check{}, fmt.Errorf("--metric %q must be tag.stat, e.g. time_to_first_token.p99", metric)
	}
	valid := false
	for _, s := range Stats {
		valid = valid || s == stat
	}
	if !valid {
		return Check{}, fmt.Errorf("--metric %q: unknown statistic %q: use one of %s", metric, stat, strings.Join(Stats, ", "))
	}
	c := Check{Tag: tag, Stat: stat, MaxIncrease: math.NaN(), MaxDecrease: math.NaN()}
	var err error
	if c.MaxIncrease, err = parseFraction(maxIncrease); err != nil {
		return c, fmt.Errorf("--max-increase: %w", err)
	}
	if c.MaxDecrease, err = parseFraction(maxDecrease); err != nil {
		return c, fmt.Errorf("--max-decrease: %w", err)
	}
	if math.IsNaN(c.MaxIncrease) && math.IsNaN(c.MaxDecrease) {
		return c, fmt.Errorf("give --max-increase or --max-decrease, e.g. --max-increase 10%%")
	}
	return c, nil
}

func parseFraction(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return math.NaN(), nil
	}
	pct := strings.HasSuffix(s, "%")
	f, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil || f < 0 || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%q is not a non-negative number or percentage", s)
	}
	if pct {
		f /= 100
	}
	return f, nil
}

// Finding is the verdict on the newest run of one workload.
type Finding struct {
	// Workload is the run's workload_id, and its labels (k=v,k=v) when it
	// has some.
	Workload, Run string
	// Baseline describes what Run was compared with, naming the runs.
	Baseline      string
	Value         float64
	BaselineValue float64
	// Change is (Value - BaselineValue) / BaselineValue.
	Change    float64
	Regressed bool
}

// Evaluate compares value with the mean of baseline under c. With no
// baseline it is not a regression.
func (c Check) Evaluate(value float64, baseline []float64) (mean, change float64, regressed bool) {
	if len(baseline) == 0 {
		return math.NaN(), math.NaN(), false
	}
	for _, b := range baseline {
		mean += b
	}
	mean /= float64(len(baseline))
	if mean == 0 {
		if value == 0 {
			return mean, 0, false
		}
		change = math.Inf(1)
		if value < 0 {
			change = math.Inf(-1)
		}
	} else {
		change = (value - mean) / math.Abs(mean)
	}
	regressed = (!math.IsNaN(c.MaxIncrease) && change > c.MaxIncrease) ||
		(!math.IsNaN(c.MaxDecrease) && change < -c.MaxDecrease)
	return mean, change, regressed
}

// RegressOptions select the runs a regression check compares.
type RegressOptions struct {
	Check Check
	// Previous is how many earlier complete runs of the same workload form
	// the baseline (default 1).
	Previous int
	// BaselineRun, when set, is the single baseline run for every workload.
	BaselineRun string
	// Workload restricts the check to one workload id, with or without
	// its labels ("" = all).
	Workload string
}

// Regress checks the newest complete run of each workload against its
// baseline, reading the views run_summary (run_id, workload_id, labels,
// start_time, status) and run_metrics. A workload is a workload_id and the
// run's labels.
func Regress(ctx context.Context, db *sql.DB, o RegressOptions) ([]Finding, error) {
	if o.Previous <= 0 {
		o.Previous = 1
	}
	stat := o.Check.Stat
	q := `SELECT s.workload_id, coalesce(CAST(s.labels AS VARCHAR), ''), s.run_id, m.` + stat + `
		FROM run_summary s JOIN run_metrics m ON m.run_id = s.run_id AND m.tag = ?
		WHERE s.status = 'complete' AND m.` + stat + ` IS NOT NULL
		ORDER BY s.workload_id, s.start_time, s.run_id`
	rows, err := db.QueryContext(ctx, q, o.Check.Tag)
	if err != nil {
		return nil, fmt.Errorf("regress: %w", err)
	}
	defer rows.Close()
	type point struct {
		run string
		v   float64
	}
	// A workload is its workload_id and its labels: runs labelled
	// differently (gpu=h100, gpu=a100) are never each other's baseline.
	series := map[string][]point{}
	var order []string
	for rows.Next() {
		var w, labels, run string
		var v float64
		if err := rows.Scan(&w, &labels, &run, &v); err != nil {
			return nil, err
		}
		id := w
		if w = workloadWithLabels(id, labels); o.Workload != "" && o.Workload != id && o.Workload != w {
			continue
		}
		if _, ok := series[w]; !ok {
			order = append(order, w)
		}
		series[w] = append(series[w], point{run, v})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var named *point
	if o.BaselineRun != "" {
		var v float64
		err := db.QueryRowContext(ctx, `SELECT `+stat+` FROM run_metrics WHERE run_id = ? AND tag = ?`, o.BaselineRun, o.Check.Tag).Scan(&v)
		if err != nil {
			return nil, fmt.Errorf("baseline run %s has no %s.%s: %w", o.BaselineRun, o.Check.Tag, stat, err)
		}
		named = &point{o.BaselineRun, v}
	}
	var out []Finding
	for _, w := range order {
		s := series[w]
		newest := s[len(s)-1]
		f := Finding{Workload: w, Run: newest.run, Value: newest.v}
		var base []float64
		if named != nil {
			if named.run == newest.run {
				continue
			}
			base, f.Baseline = []float64{named.v}, named.run
		} else {
			prev := s[max(0, len(s)-1-o.Previous) : len(s)-1]
			ids := make([]string, len(prev))
			for i, p := range prev {
				base, ids[i] = append(base, p.v), p.run
			}
			f.Baseline = fmt.Sprintf("mean of %d previous run(s)", len(prev))
			if len(ids) > 0 {
				f.Baseline += ": " + strings.Join(ids, ", ")
			}
		}
		f.BaselineValue, f.Change, f.Regressed = o.Check.Evaluate(f.Value, base)
		out = append(out, f)
	}
	return out, nil
}

// FindingsTable renders findings for Write.
func FindingsTable(c Check, fs []Finding) *Table {
	t := &Table{Columns: []string{"workload", "run", "metric", "value", "baseline", "baseline value", "change", "verdict"}}
	for _, f := range fs {
		verdict := "ok"
		if f.Regressed {
			verdict = "REGRESSED"
		} else if math.IsNaN(f.BaselineValue) {
			verdict = "no baseline"
		}
		change := ""
		if !math.IsNaN(f.Change) {
			change = fmt.Sprintf("%+.1f%%", 100*f.Change)
		}
		t.Rows = append(t.Rows, []any{f.Workload, f.Run, c.Tag + "." + c.Stat, f.Value, f.Baseline, f.BaselineValue, change, verdict})
	}
	return t
}

// workloadWithLabels appends a run's labels (a JSON object) to its
// workload id as "|k=v,k=v", sorted by key; no labels add nothing.
func workloadWithLabels(workload, labels string) string {
	var m map[string]any
	if json.Unmarshal([]byte(labels), &m) != nil || len(m) == 0 {
		return workload
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%v", k, m[k])
	}
	return workload + "|" + strings.Join(parts, ",")
}
