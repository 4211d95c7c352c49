package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/peterbourgon/ff/v4"

	"github.com/aiperf-go/aiperf/internal/command"
	"github.com/aiperf-go/aiperf/validate"
)

// newValidateCommand returns `aiperf validate --target FORMAT --input
// FILE` (or, as AIPerf also takes them, `aiperf validate FORMAT FILE`):
// it checks a dataset or artifact file and lists every problem on stdout,
// one per line as FILE:LINE: field "F": what is wrong. Exit 0 when the
// file is valid, 1 when it has problems (as AIPerf), 2 for bad flags.
func newValidateCommand(stdout io.Writer) *ff.Command {
	fs := ff.NewFlagSet("validate")
	target := fs.StringLong("target", "", "the file's `FORMAT`: "+strings.Join(validate.Targets(), ", "))
	input := fs.StringLong("input", "", "the `FILE` to check (a directory for random-pool)")
	return &ff.Command{
		Name:      "validate",
		Usage:     "aiperf validate --target FORMAT --input FILE",
		ShortHelp: "check a dataset or artifact file and name every problem (file, line, field)",
		LongHelp: "Datasets (" + strings.Join(validate.DatasetTargets(), ", ") + "; the " +
			"underscore spellings of --custom-dataset-type work too) are read by the loaders of aiperf profile " +
			"--input-file, so a file that validates also loads. Artifacts: profile-export-jsonl " +
			"(profile_export.jsonl records), profile-export-json (profile_export_aiperf.json), inputs-json " +
			"(inputs.json). Exit 0 when valid, 1 listing every problem, 2 for bad flags.",
		Flags: fs,
		Exec: func(ctx context.Context, args []string) error {
			return runValidate(ctx, stdout, *target, *input, args)
		},
	}
}

// runValidate checks input as target (or the positional TARGET INPUT)
// and reports on stdout.
func runValidate(ctx context.Context, stdout io.Writer, target, input string, args []string) error {
	// The flag parser stops at the first positional argument, and AIPerf's
	// own example is `aiperf validate mooncake-trace --input FILE`.
	var rest []string
	for i := 0; i < len(args); i++ {
		name, value, inline := strings.Cut(args[i], "=")
		if name != "--target" && name != "--input" {
			rest = append(rest, args[i])
			continue
		}
		if !inline {
			if i+1 == len(args) {
				return command.Usage(fmt.Errorf("%s needs a value", name))
			}
			i++
			value = args[i]
		}
		if name == "--target" {
			target = value
		} else {
			input = value
		}
	}
	args = rest
	if target == "" && len(args) > 0 {
		target, args = args[0], args[1:]
	}
	if input == "" && len(args) > 0 {
		input, args = args[0], args[1:]
	}
	switch {
	case len(args) > 0:
		return command.Usage(fmt.Errorf("validate takes one --target and one --input, got extra arguments %q", args))
	case target == "":
		return command.Usage(fmt.Errorf("validate needs --target FORMAT: one of %s", strings.Join(validate.Targets(), ", ")))
	case input == "":
		return command.Usage(errors.New("validate needs --input FILE: the dataset or artifact file to check"))
	}
	res, err := validate.Check(ctx, target, input)
	var et *validate.ErrTarget
	if errors.As(err, &et) {
		return command.Usage(fmt.Errorf("--target: %w", err))
	}
	if err != nil {
		return err
	}
	if len(res.Problems) == 0 {
		_, err := fmt.Fprintf(stdout, "%s: valid %s (%d rows)\n", input, target, res.Rows)
		return err
	}
	for _, p := range res.Problems {
		fmt.Fprintln(stdout, p)
	}
	return fmt.Errorf("validate: %s is not a valid %s: %d problem(s), listed above", input, target, len(res.Problems))
}
