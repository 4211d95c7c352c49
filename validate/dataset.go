package validate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/dataset/custom"
	"github.com/aiperf-go/aiperf/tokenizer"
)

// checkDataset loads path as the custom dataset type typ ("" for
// GenAI-Perf's payload format), as aiperf profile --input-file would
// (builtin tokenizer, every bad line listed),
// and turns the loader's errors into problems; Rows counts the file's
// non-blank lines (0 for a random_pool directory).
func checkDataset(ctx context.Context, typ, path string) (Result, error) {
	if err := custom.CheckInputFile(path); err != nil {
		return Result{Problems: []Problem{{File: path, Msg: err.Error()}}}, nil
	}
	tok, err := tokenizer.Builtin()
	if err != nil {
		return Result{}, fmt.Errorf("validate: %w", err)
	}
	corpus, err := dataset.NewCorpus(tok)
	if err != nil {
		return Result{}, fmt.Errorf("validate: %w", err)
	}
	o := custom.Options{Path: path, Type: typ, Corpus: corpus, Models: []string{"validate"}, MaxErrors: math.MaxInt32}
	if typ == "" {
		o.Path = custom.PayloadPrefix + path
	}
	_, err = custom.Load(ctx, o)
	var fe *custom.FileError
	switch {
	case errors.As(err, &fe):
		var r Result
		for _, l := range fe.Lines {
			r.Problems = append(r.Problems, Problem{File: l.File, Line: l.Line, Field: l.Field, Msg: l.Msg})
		}
		return r, nil
	case ctx.Err() != nil:
		return Result{}, ctx.Err()
	case err != nil:
		return Result{Problems: []Problem{{File: path, Msg: err.Error()}}}, nil
	}
	return Result{Rows: countLines(path)}, nil
}

// countLines counts the non-blank lines of the file at path, 0 for a
// directory or a file that cannot be read.
func countLines(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n := 0
	for _, l := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			n++
		}
	}
	return n
}
