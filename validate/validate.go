// Package validate checks that a dataset or artifact file is well-formed,
// as `aiperf validate --target FORMAT --input FILE` does, and names every
// problem with its file, line and field. Datasets are read by the very
// loaders `aiperf profile --input-file` uses (package dataset/custom), so
// a file that validates also loads; the artifacts of a run
// (profile_export.jsonl, profile_export_aiperf.json, inputs.json) get
// checkers of their own, as aiperf-go's readers of them live with DuckDB.
package validate

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/aiperf-go/aiperf/dataset/custom"
)

// Artifact targets, besides the dataset types of custom.Types.
const (
	// TargetRecords is profile_export.jsonl: one record per line.
	TargetRecords = "profile-export-jsonl"
	// TargetSummary is profile_export_aiperf.json: the run's statistics.
	TargetSummary = "profile-export-json"
	// TargetInputs is inputs.json: the payloads sent, per session.
	TargetInputs = "inputs-json"
	// TargetPayload is GenAI-Perf's payload file (--input-file
	// payload:FILE).
	TargetPayload = "payload"
)

// Problem is one thing wrong with a file.
type Problem struct {
	File  string // the file's path
	Line  int    // 1-based line, 0 for the file as a whole
	Field string // the offending field (a dotted path), "" for the whole line
	Msg   string // what is wrong
}

func (p Problem) String() string {
	loc := p.File
	if p.Line > 0 {
		loc = fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	if p.Field == "" {
		return loc + ": " + p.Msg
	}
	return fmt.Sprintf("%s: field %q: %s", loc, p.Field, p.Msg)
}

// Result is what Check found: how many rows (lines, records, sessions or
// metrics) it read and every problem, in file order.
type Result struct {
	Rows     int
	Problems []Problem
}

// Targets returns the target names Check takes: DatasetTargets, then
// the artifacts.
func Targets() []string {
	return append(DatasetTargets(), TargetRecords, TargetSummary, TargetInputs)
}

// DatasetTargets returns the dataset types in AIPerf's hyphenated spelling
// (mooncake-trace, as `aiperf validate` names its one target), then
// TargetPayload. Check also takes them as --custom-dataset-type spells
// them (mooncake_trace).
func DatasetTargets() []string {
	var out []string
	for _, t := range custom.Types() {
		out = append(out, strings.ReplaceAll(t, "_", "-"))
	}
	return append(out, TargetPayload)
}

// ErrTarget reports a target Check does not know; its text lists them.
type ErrTarget struct{ Target string }

func (e *ErrTarget) Error() string {
	return fmt.Sprintf("unknown target %q: want one of %s", e.Target, strings.Join(Targets(), ", "))
}

// Check validates the file at path as target. It returns an *ErrTarget
// for an unknown target, an error when the file cannot be read at all, and
// otherwise a Result whose Problems are empty when the file is valid.
func Check(ctx context.Context, target, path string) (Result, error) {
	switch target {
	case TargetRecords:
		return checkRecords(path)
	case TargetSummary, "profile-export-aiperf-json":
		return checkSummary(path)
	case TargetInputs:
		return checkInputs(path)
	case TargetPayload:
		return checkDataset(ctx, "", path)
	}
	typ := strings.ReplaceAll(target, "-", "_")
	if !slices.Contains(custom.Types(), typ) {
		return Result{}, &ErrTarget{Target: target}
	}
	return checkDataset(ctx, typ, path)
}
