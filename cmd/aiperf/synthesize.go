package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/peterbourgon/ff/v4"
	"github.com/peterbourgon/ff/v4/ffval"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/internal/command"
	"github.com/aiperf-go/aiperf/trace"
)

// synthesisStream names the random stream of the prefix-root draws, after
// AIPerf's rng.derive("dataset.synthesis.synthesizer").
const synthesisStream = "dataset.synthesis.synthesizer"

// synthesizeFlags are the settings of the synthesize and synthesize-trace
// subcommands.
type synthesizeFlags struct {
	name                  string
	inputFile, outputFile string
	s                     trace.Synthesis
	seed                  uint64
	stdout                io.Writer
}

// newSynthesizeCommand returns the "synthesize" subcommand (--input-file
// IN --output-file OUT) or, with positional true, "synthesize-trace"
// (IN OUT, AIPerf's earlier CLI): both rewrite a mooncake trace through
// trace.Synthesis and print a summary to stdout.
func newSynthesizeCommand(name string, positional bool, stdout io.Writer) *ff.Command {
	f := &synthesizeFlags{name: name, s: trace.DefaultSynthesis(), stdout: stdout}
	fs := ff.NewFlagSet(name)
	f.register(fs)
	usage := "aiperf synthesize --input-file IN --output-file OUT [flags]"
	if positional {
		usage = "aiperf synthesize-trace IN OUT [flags]"
	}
	return &ff.Command{
		Name:      name,
		Usage:     usage,
		ShortHelp: "rescale a mooncake trace: timing, shared-prefix and prompt lengths, prefix diversity, output lengths",
		LongHelp: "Rewrites a mooncake trace as AIPerf's trace synthesizer does: a row's shared prefix is its leading run " +
			"of hash_ids that occur more than once in the trace, the rest of its tokens its unique prompt. Fields other " +
			"than timestamp, input_length, output_length and hash_ids pass through. With every multiplier at 1 the rows " +
			"are copied unchanged (only --max-isl and --max-osl apply).",
		Flags: fs,
		Exec: func(ctx context.Context, args []string) error {
			if !positional && len(args) > 0 && args[0] == "agentic-code" {
				return command.Usage(errAgenticCode)
			}
			args, err := f.intermixed(args)
			if err != nil {
				return command.Usage(err)
			}
			if err := f.files(args, positional); err != nil {
				return command.Usage(err)
			}
			return f.exec(ctx)
		},
	}
}

// register binds f's settings to fs, each defaulting to its current value.
func (f *synthesizeFlags) register(fs *ff.FlagSet) {
	g := flagGroup{fs}
	num := func(p *float64) flag.Value { return finiteFloat{p} }
	g.add(0, "input-file", ffval.NewValueDefault(&f.inputFile, f.inputFile), "mooncake trace `PATH` to read (JSONL)")
	g.add(0, "output-file", ffval.NewValueDefault(&f.outputFile, f.outputFile), "`PATH` to write the synthesized trace to (parent directories are created)")
	g.add(0, "block-size", ffval.NewValueDefault(&f.s.BlockSize, f.s.BlockSize), "KV cache block size in `TOKENS`: the tokens per hash_ids entry")
	g.add(0, "speedup-ratio", num(&f.s.SpeedupRatio), "divide every timestamp by `RATIO` (2: twice the request rate)")
	g.add(0, "prefix-len-multiplier", num(&f.s.PrefixLenMultiplier), "scale each row's shared prefix (its leading blocks that occur in other rows too) by `FACTOR`")
	g.add(0, "prefix-root-multiplier", ffval.NewValueDefault(&f.s.PrefixRootMultiplier, f.s.PrefixRootMultiplier), "spread the rows at random over `N` disjoint copies of the prefix tree")
	g.add(0, "prompt-len-multiplier", num(&f.s.PromptLenMultiplier), "scale each row's unique prompt (the tokens after its shared prefix) by `FACTOR`")
	g.add(0, "output-len-multiplier", num(&f.s.OutputLenMultiplier), "scale output_length by `FACTOR` (rounded half to even, at least 1)")
	g.add(0, "max-isl", ffval.NewValueDefault(&f.s.MaxISL, f.s.MaxISL), "cap input_length at `TOKENS` (dropping the blocks past it); unset: no cap")
	g.add(0, "max-osl", ffval.NewValueDefault(&f.s.MaxOSL, f.s.MaxOSL), "cap output_length at `TOKENS`; unset: no cap")
	g.add(0, "random-seed", ffval.NewValueDefault(&f.seed, f.seed), "`SEED` of the --prefix-root-multiplier draws (default 0: the same output every time)", "seed")
}

// intermixed returns the positional arguments of args, parsing the flags
// that follow them (ff stops at the first argument), as AIPerf's
// `synthesize-trace IN OUT --speedup-ratio 2` allows.
func (f *synthesizeFlags) intermixed(args []string) ([]string, error) {
	var pos, tail []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, tail = args[:i], args[i+1:]
	}
	for len(args) > 0 {
		if !strings.HasPrefix(args[0], "-") || args[0] == "-" {
			pos, args = append(pos, args[0]), args[1:]
			continue
		}
		fs := ff.NewFlagSet(f.name)
		f.register(fs)
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.GetArgs()
	}
	return append(pos, tail...), nil
}

// errAgenticCode refuses AIPerf 0.13's `aiperf synthesize agentic-code`:
// a generator of some 1,800 lines with its own statistical models and
// bundled configs, which aiperf-go does not carry.
var errAgenticCode = errors.New("synthesize agentic-code (AIPerf 0.13's named agentic-coding workload generator) is not supported: " +
	"to rescale a recorded mooncake trace, use aiperf synthesize --input-file IN --output-file OUT")

// files settles the input and output paths from the flags and args.
func (f *synthesizeFlags) files(args []string, positional bool) error {
	switch {
	case !positional && len(args) > 0:
		return fmt.Errorf("synthesize takes no arguments, got %q: give --input-file and --output-file (or use synthesize-trace IN OUT)", args)
	case len(args) > 2:
		return fmt.Errorf("%s takes an input and an output file, got %d arguments", f.name, len(args))
	case len(args) >= 1 && f.inputFile != "", len(args) == 2 && f.outputFile != "":
		return fmt.Errorf("%s: give each file once, as an argument or as --input-file/--output-file", f.name)
	}
	if len(args) >= 1 {
		f.inputFile = args[0]
	}
	if len(args) == 2 {
		f.outputFile = args[1]
	}
	switch {
	case f.inputFile == "":
		return errors.New("--input-file is required: the mooncake trace to synthesize from")
	case f.outputFile == "":
		return errors.New("--output-file is required: where to write the synthesized trace")
	case f.s.BlockSize < 1:
		return fmt.Errorf("--block-size must be >= 1, got %d", f.s.BlockSize)
	}
	return f.s.Check("")
}

// exec synthesizes the trace and reports, as AIPerf's synthesize-trace.
func (f *synthesizeFlags) exec(_ context.Context) error {
	rng := dataset.NewRand(f.seed, synthesisStream)
	sum, err := trace.SynthesizeFile(f.inputFile, f.outputFile, f.s, rng)
	if err != nil {
		return fmt.Errorf("%s: %w", f.name, err)
	}
	w := f.stdout
	fmt.Fprintf(w, "Input file:                %s\n", f.inputFile)
	fmt.Fprintf(w, "Output file:               %s\n", f.outputFile)
	fmt.Fprintf(w, "Block size:                %d\n", f.s.BlockSize)
	fmt.Fprintf(w, "Speedup ratio:             %.2f\n", f.s.SpeedupRatio)
	fmt.Fprintf(w, "Prefix length multiplier:  %.2f\n", f.s.PrefixLenMultiplier)
	fmt.Fprintf(w, "Prefix root multiplier:    %d\n", f.s.PrefixRootMultiplier)
	fmt.Fprintf(w, "Prompt length multiplier:  %.2f\n", f.s.PromptLenMultiplier)
	fmt.Fprintf(w, "Output length multiplier:  %.2f\n", f.s.OutputLenMultiplier)
	if f.s.MaxISL > 0 {
		fmt.Fprintf(w, "Max ISL:                   %d\n", f.s.MaxISL)
	}
	if f.s.MaxOSL > 0 {
		fmt.Fprintf(w, "Max OSL:                   %d\n", f.s.MaxOSL)
	}
	fmt.Fprintf(w, "\nGenerated %d synthetic traces\nOutput saved to %s\n\n", sum.Rows, f.outputFile)
	_, err = fmt.Fprintf(w, "Synthesis Statistics:\n  Tree nodes: %d\n  Tree depth: %d\n", sum.TreeNodes, sum.TreeDepth)
	return err
}
