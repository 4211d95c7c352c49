package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/aiperf-go/aiperf/runner"
	"github.com/aiperf-go/aiperf/verdict"
)

// exitThresholds is the exit status of a run that finished but failed a
// --threshold. A run that failed (1), was cut short by a signal (130,
// 143) or was refused (2) exits with that status instead.
const exitThresholds = 3

// thresholdsError is the error of a profile command whose runs finished
// but failed at least one --threshold: exit status 3.
type thresholdsError struct {
	failed, total int
	where         []string
}

func (e *thresholdsError) Error() string {
	return fmt.Sprintf("%d of %d thresholds failed (see the verdict table above; verdict.json in %s)", e.failed, e.total, strings.Join(e.where, ", "))
}

// ExitStatus is 3 (see command.ExitCode).
func (e *thresholdsError) ExitStatus() int { return exitThresholds }

// verdicts gathers the verdicts of a profile command's runs (one, or one
// per run of --num-profile-runs and sweeps) and appends each to the
// GitHub step summary file when there is one.
type verdicts struct {
	// stepSummary is $GITHUB_STEP_SUMMARY; "" writes none.
	stepSummary string
	stderr      io.Writer
	failed      *thresholdsError
}

// observe takes one run's result (nil, or without thresholds: nothing to
// do). A step summary that cannot be written is a warning, not a verdict.
func (v *verdicts) observe(res *runner.Result) {
	if res == nil || res.Verdict == nil {
		return
	}
	vd := res.Verdict
	if v.stepSummary != "" {
		if err := verdict.AppendFile(v.stepSummary, verdict.Markdown(vd)); err != nil {
			fmt.Fprintf(v.stderr, "aiperf: warning: GITHUB_STEP_SUMMARY: %v\n", err)
		}
	}
	if vd.Pass {
		return
	}
	if v.failed == nil {
		v.failed = &thresholdsError{}
	}
	v.failed.failed += vd.Failed
	v.failed.total += len(vd.Checks)
	v.failed.where = append(v.failed.where, vd.Location)
}

// err is the command's error when every run finished: a *thresholdsError
// when a threshold failed, else nil.
func (v *verdicts) err() error {
	if v.failed == nil {
		return nil
	}
	return v.failed
}
