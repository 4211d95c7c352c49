package main

import (
	"errors"
	"fmt"
)

// Exit statuses of aiperf-report, documented in its --help and in the
// README, so that a CI job can tell a regression from a check that could
// not be made:
//
//	0  success (regress: no workload regressed)
//	1  could not do it: a store, run or database that does not exist, a
//	   database error, a run group that cannot be merged; for regress,
//	   "could not check" (no matching runs, an unknown metric, workload or
//	   baseline)
//	2  invalid flags or arguments (nothing was done)
//	3  regress: at least one workload regressed
//	4  partial: some runs could not be read, or loaded only in part (records
//	   ending in a truncated line), and are named on stderr; the others
//	   were loaded
const (
	exitRegressed = 3
	exitPartial   = 4
)

// exitHelp is the exit status table as --help prints it.
const exitHelp = `EXIT STATUS
  0  success (regress: nothing regressed)
  1  could not do it, or regress could not check: a store, run, --db or
     workload that does not exist, no matching runs, a database error
  2  invalid flags or arguments: an unknown --metric, --status, stat or
     --format, a malformed --since
  3  regress: a workload regressed
  4  ingest: partial; the runs named on stderr could not be read, or
     loaded only in part (records ending in a truncated line); the others
     were loaded
`

// errRegressed is regress's error after it printed its verdicts and at
// least one workload regressed: exit status 3.
var errRegressed = &statusError{status: exitRegressed, err: errors.New("regression detected")}

// statusError is an error with its own exit status (see
// command.ExitCode).
type statusError struct {
	status int
	err    error
}

func (e *statusError) Error() string   { return e.err.Error() }
func (e *statusError) Unwrap() error   { return e.err }
func (e *statusError) ExitStatus() int { return e.status }

// partialError reports that failed of seen runs could not be loaded (each
// already named on stderr) and the others were: exit status 4.
func partialError(failed, seen int) error {
	return &statusError{status: exitPartial, err: fmt.Errorf("partial: %d of %d runs could not be loaded (named above); the others were", failed, seen)}
}
