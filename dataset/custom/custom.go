// Package custom loads the custom dataset files of --input-file (reference
// §4.2): single_turn, multi_turn, random_pool, mooncake_trace, bailian_trace
// and burst_gpt_trace, with auto-detection when the type is not given.
package custom

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/tokenizer"
	"github.com/aiperf-go/aiperf/trace"
)

// Options configure Load. Zero values take the reference defaults.
type Options struct {
	// Path is the --input-file: a file, or a directory for random_pool.
	Path string
	// Type is the --custom-dataset-type; empty means auto-detect.
	Type string
	// Corpus supplies synthetic prompt tokens (trace rows with
	// input_length) and, through Corpus.Tokenizer, token counts.
	Corpus *dataset.Corpus
	// Tokenizer counts input tokens; nil means Corpus.Tokenizer().
	Tokenizer tokenizer.Tokenizer
	// Seed makes sampling (random_pool) and prompt synthesis reproducible.
	Seed uint64
	// Models and ModelStrategy assign each turn's model when the row has
	// none (dataset.ModelRoundRobin or dataset.ModelRandom).
	Models        []string
	ModelStrategy string
	// OSLMean and OSLStddev give max_tokens for rows without an
	// output_length; OSLMean 0 means none.
	OSLMean, OSLStddev float64
	// BlockSize overrides the trace's hash block size (--isl-block-size);
	// 0 means the format's default (mooncake 512, bailian 16).
	BlockSize int
	// NumConversations is the random_pool pool size (--num-conversations);
	// 0 means 100.
	NumConversations int
	// BatchSize is --prompt-batch-size for random_pool; 0 means 1.
	BatchSize int
	// StartOffsetMS and EndOffsetMS, when set, drop trace rows whose
	// timestamp lies outside [start, end] (inclusive).
	StartOffsetMS, EndOffsetMS *float64
	// MaxISL drops trace rows with a longer input (--synthesis-max-isl);
	// MaxOSL caps output lengths (--synthesis-max-osl). 0 means no limit.
	MaxISL, MaxOSL int
	// Synthesis rescales trace rows (--synthesis-*, §7.2) after the filters
	// above, with the format's block size and MaxISL/MaxOSL as its caps;
	// nil or one that only caps leaves them alone.
	Synthesis *trace.Synthesis
	// IgnoreDelays drops timestamps and delays (--ignore-trace-delays).
	IgnoreDelays bool
	// MaxErrors bounds the bad lines one error lists; 0 means 20.
	MaxErrors int
}

// LineError is one malformed line or row of a dataset file.
type LineError struct {
	File  string // the file's path
	Line  int    // 1-based line (JSONL) or row (CSV, header is row 1)
	Field string // the offending field, or "" for the whole line
	Msg   string // what is wrong and, where it helps, the fix
}

func (e *LineError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: field %q: %s", e.File, e.Line, e.Field, e.Msg)
}

// FileError lists every bad line of a dataset, up to Options.MaxErrors,
// with the total count. Load returns it (possibly wrapped) when any line is
// malformed: nothing is silently skipped.
type FileError struct {
	Lines []LineError // the first MaxErrors bad lines, in file order
	Total int         // how many lines were bad in all
}

func (e *FileError) Error() string {
	msg := fmt.Sprintf("%d malformed line(s)", e.Total)
	for i := range e.Lines {
		msg += "\n  " + e.Lines[i].Error()
	}
	if e.Total > len(e.Lines) {
		msg += fmt.Sprintf("\n  … and %d more", e.Total-len(e.Lines))
	}
	return msg
}

// format is one custom dataset type.
type format struct {
	name string
	// detect reports whether the file (or directory) at path looks like this
	// format; called in priority order when Options.Type is empty.
	detect func(path string) bool
	// load reads the whole dataset.
	load func(ctx context.Context, o *Options) (*dataset.Dataset, error)
}

// formats are the custom types in auto-detection priority order. Each is
// defined in its own file.
var formats = []*format{&mooncakeFormat, &bailianFormat, &burstGPTFormat, &multiTurnFormat, &randomPoolFormat, &singleTurnFormat}

// Types returns the names of the supported custom dataset types.
func Types() []string {
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = f.name
	}
	return names
}

// Load reads the dataset at o.Path. With o.Type empty it picks the first
// format whose detector accepts the file and fails, naming the types tried,
// when none does (or saying the file is missing, empty or oversized). An
// o.Path of PayloadPrefix + FILE reads FILE in GenAI-Perf's payload format
// (o.Type must be empty). It returns a *FileError listing malformed lines,
// an error naming the path when the file cannot be read or is empty, and an
// error for an unknown type that lists the known ones.
func Load(ctx context.Context, o Options) (*dataset.Dataset, error) {
	if o.Corpus == nil {
		return nil, errors.New("custom dataset: nil corpus")
	}
	if o.Tokenizer == nil {
		o.Tokenizer = o.Corpus.Tokenizer()
	}
	if o.MaxErrors <= 0 {
		o.MaxErrors = 20
	}
	if o.NumConversations <= 0 {
		o.NumConversations = 100
	}
	if len(o.Models) == 0 {
		return nil, errors.New("custom dataset: no model names")
	}
	f := &payloadFormat
	if path, ok := payloadPath(o.Path); ok {
		if o.Type != "" {
			return nil, fmt.Errorf("--input-file %s%s reads GenAI-Perf's payload format, not the %s type: drop --custom-dataset-type", PayloadPrefix, path, o.Type)
		}
		o.Path = path
	} else {
		var err error
		if f, err = pick(&o); err != nil {
			return nil, err
		}
	}
	d, err := f.load(ctx, &o)
	if err != nil {
		return nil, fmt.Errorf("%s dataset %s: %w", f.name, o.Path, err)
	}
	return d, nil
}

func pick(o *Options) (*format, error) {
	if o.Type != "" {
		for _, f := range formats {
			if f.name == o.Type {
				return f, nil
			}
		}
		return nil, fmt.Errorf("custom dataset type %q: want one of %v", o.Type, Types())
	}
	for _, f := range formats {
		if f.detect(o.Path) {
			return f, nil
		}
	}
	// No detector reads a missing, empty or oversized file: say which.
	if err := CheckInputFile(o.Path); err != nil {
		return nil, fmt.Errorf("custom dataset: %w", err)
	}
	return nil, fmt.Errorf("custom dataset %s: cannot tell its type (tried %v); set --custom-dataset-type", o.Path, Types())
}

// modelPicker assigns models to turns that name none.
type modelPicker struct {
	models []string
	random bool
	rng    *rand.Rand
	next   int
}

func newModelPicker(o *Options, rng *rand.Rand) *modelPicker {
	return &modelPicker{models: o.Models, random: o.ModelStrategy == dataset.ModelRandom, rng: rng}
}

// pick returns the next model: round robin, or uniform with ModelRandom.
func (p *modelPicker) pick() string {
	if p.random {
		return p.models[p.rng.IntN(len(p.models))]
	}
	m := p.models[p.next%len(p.models)]
	p.next++
	return m
}
