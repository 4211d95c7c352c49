package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/verdict"
)

// thresholdProblems checks every --threshold, one problem per bad one,
// each naming the flag, the expression and the valid choices.
func thresholdProblems(exprs []string) []string {
	var p []string
	for _, e := range exprs {
		if _, err := verdict.Parse(e); err != nil {
			p = append(p, fmt.Sprintf("--threshold %q: %v (write TAG.STAT OP NUMBER in the metric's display unit, ms for latencies, e.g. 'time_to_first_token.p99<300')", e, err))
		}
	}
	return p
}

// thresholds parses the run's --threshold expressions (Validate has
// checked them; a library caller that skipped it gets the error here,
// before any request).
func (r *run) thresholds() ([]verdict.Threshold, error) {
	ts, err := verdict.ParseAll(r.cfg.Thresholds)
	if err != nil {
		return nil, &InputError{Err: fmt.Errorf("--threshold: %w", err)}
	}
	return ts, nil
}

// judge evaluates the thresholds against the run's summary and stores
// verdict.json with the run's other files (it is then listed in the
// manifest). It returns nil, and stores nothing, when the run has no
// thresholds. A run that was interrupted or failed is judged as well:
// status records which.
func (r *run) judge(ctx context.Context, arts *artifacts, ts []verdict.Threshold, s *metrics.Summary, status string) (*verdict.Verdict, error) {
	if len(ts) == 0 {
		return nil, nil
	}
	v := verdict.Evaluate(s, ts)
	v.RunID, v.Location, v.RunStatus = arts.run.ID, arts.run.Location(), status
	data, err := v.JSON()
	if err != nil {
		return v, err
	}
	if err := arts.run.Put(ctx, verdict.FileName, data); err != nil {
		return v, fmt.Errorf("store %s: %w", verdict.FileName, err)
	}
	if !v.Pass {
		r.log.Info("thresholds failed", "failed", v.Failed, "of", len(v.Checks))
	}
	return v, nil
}

// printVerdict prints the verdict's table to stdout, after the console
// report; a nil verdict prints nothing.
func (r *run) printVerdict(v *verdict.Verdict) {
	if v == nil || r.opts.Stdout == nil {
		return
	}
	if err := verdict.WriteTable(r.opts.Stdout, v); err != nil {
		r.log.Warn("verdict table", "error", errors.Unwrap(err))
	}
}
