package custom

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aiperf-go/aiperf/dataset"
)

// traceInput says what a trace row sends.
type traceInput int

const (
	traceSynthetic traceInput = iota // input_length, with or without hash_ids
	traceText                        // text_input, sent literally
	traceMessages                    // messages, sent verbatim
	tracePayload                     // payload, the whole body verbatim
)

// traceRow is one validated row of a trace file (mooncake, bailian or
// burst_gpt), in the form the common steps below work on.
type traceRow struct {
	line        int // 1-based line (JSONL) or row (CSV)
	input       traceInput
	inputLength int   // traceSynthetic: prompt tokens
	hashIDs     []int // traceSynthetic: hash blocks, or none
	text        string
	messages    json.RawMessage
	tools       json.RawMessage
	payload     json.RawMessage
	extra       json.RawMessage

	outputLength int // with hasOutput: max_tokens, 0 meaning none
	hasOutput    bool
	// timestamp and delay are in ms.
	timestamp, delay       float64
	hasTimestamp, hasDelay bool

	delta   bool   // mooncake message_mode "delta"
	session string // the session the row joins; "" for its own
	turn    int    // bailian: order within the session
}

// traceSession is one conversation's rows, in send order.
type traceSession struct {
	id   string
	mode string // a dataset context mode
	rows []*traceRow
}

// traceKeep reports whether r survives the trace filters of §4.2: a
// timestamp inside [StartOffsetMS, EndOffsetMS] (inclusive; rows without one
// are kept) and an input_length within MaxISL.
func traceKeep(o *Options, r *traceRow) bool {
	if r.hasTimestamp {
		if o.StartOffsetMS != nil && r.timestamp < *o.StartOffsetMS {
			return false
		}
		if o.EndOffsetMS != nil && r.timestamp > *o.EndOffsetMS {
			return false
		}
	}
	return o.MaxISL <= 0 || r.input != traceSynthetic || r.inputLength <= o.MaxISL
}

// traceBlockSize returns the hash block size of o: Options.BlockSize, or
// def, the format's own, when that is not set.
func traceBlockSize(o *Options, def int) int {
	if o.BlockSize > 0 {
		return o.BlockSize
	}
	return def
}

// readTraceRows reads the JSONL trace at o.Path and parses each non-blank
// line with parse, which returns the row, its common part and, for a bad
// line, the bad field ("" for the whole line) and what is wrong. Rows that
// pass traceKeep are returned in file order with their line set; bad lines
// go to errs. total counts the non-blank lines. The error is a read error
// or ctx's.
func readTraceRows[R any](ctx context.Context, o *Options, errs *badLines, parse func(b []byte) (R, *traceRow, string, string)) (rows []R, total int, err error) {
	total, err = scanFile(ctx, o.Path, errs, func(line int, b []byte) {
		r, common, field, msg := parse(b)
		if msg != "" {
			errs.addRow(line, field, msg)
			return
		}
		common.line = line
		if traceKeep(o, common) {
			rows = append(rows, r)
		}
	})
	return rows, total, err
}

// traceFinish ends every trace load: it applies the fixed-schedule rule,
// returns the *FileError of every bad line found, explains a trace with no
// rows left, rescales the rows by o.Synthesis (traceSynthesize) and builds
// the dataset with hash block size blockSize.
func traceFinish(ctx context.Context, o *Options, sessions []traceSession, errs *badLines, total, blockSize int) (*dataset.Dataset, error) {
	timed := traceSchedule(o, sessions, errs)
	if err := errs.err(); err != nil {
		return nil, err
	}
	if len(sessions) == 0 {
		return nil, traceEmpty(o, total)
	}
	if err := traceSynthesize(o, sessions, blockSize); err != nil {
		return nil, err
	}
	return traceBuild(ctx, o, sessions, blockSize, timed)
}

// traceEmpty explains a trace with no rows to send: the file has none, or
// the filters dropped them all.
func traceEmpty(o *Options, rows int) error {
	if rows == 0 {
		return fmt.Errorf("no rows in %s", o.Path)
	}
	return fmt.Errorf("all %d rows of %s were dropped by the trace filters (fixed-schedule start/end offsets, synthesis max ISL)", rows, o.Path)
}

// traceSchedule applies the fixed-schedule rule and returns whether the
// trace is timed: it is when its first row (in file order) has a timestamp,
// and then every session's first row needs one; when it is not, a timestamp
// would be ignored, so one is an error too. With IgnoreDelays nothing is
// timed and nothing is checked.
func traceSchedule(o *Options, sessions []traceSession, errs *badLines) bool {
	if o.IgnoreDelays || len(sessions) == 0 {
		return false
	}
	first := sessions[0].rows[0]
	for _, s := range sessions {
		for _, r := range s.rows {
			if r.line < first.line {
				first = r
			}
		}
	}
	timed := first.hasTimestamp
	var bad []*traceRow
	for _, s := range sessions {
		for i, r := range s.rows {
			if (timed && i == 0 && !r.hasTimestamp) || (!timed && r.hasTimestamp) {
				bad = append(bad, r)
			}
		}
	}
	for _, r := range bad {
		if timed {
			errs.addRow(r.line, "timestamp", "missing: the first row has a timestamp, so the trace replays on a fixed schedule and every session's first row needs one")
		} else {
			errs.addRow(r.line, "timestamp", "the first row has no timestamp, so timestamps would be ignored: give the first row one for a fixed schedule, or use delay")
		}
	}
	return timed
}

// traceBuild turns validated, filtered, grouped rows into the dataset. It
// synthesizes prompts with hash block size blockSize (§4.3), visiting rows
// session by session, as AIPerf does, then assigns models and max_tokens in
// the same order. It returns ctx's error when cancelled.
func traceBuild(ctx context.Context, o *Options, sessions []traceSession, blockSize int, timed bool) (*dataset.Dataset, error) {
	p := newBlockPrompts(o, blockSize)
	jobs := make([][]int, len(sessions))
	for i, s := range sessions {
		jobs[i] = make([]int, len(s.rows))
		for k, r := range s.rows {
			switch {
			case r.input == traceText:
				jobs[i][k] = p.planCount(r.text)
			case r.input != traceSynthetic:
				jobs[i][k] = -1
			case len(r.hashIDs) > 0:
				jobs[i][k] = p.planBlocks(r.hashIDs, r.inputLength)
			default:
				jobs[i][k] = p.planSynthetic(r.inputLength)
			}
		}
	}
	if err := p.run(ctx); err != nil {
		return nil, err
	}
	models := newModelPicker(o, seededPCG(o.Seed, streamTraceModel))
	osl := seededPCG(o.Seed, streamTraceOSL)
	convs := make([]dataset.Conversation, len(sessions))
	for i, s := range sessions {
		c := dataset.Conversation{SessionID: s.id, ContextMode: s.mode, Turns: make([]dataset.Turn, len(s.rows))}
		for k, r := range s.rows {
			t := dataset.Turn{Model: models.pick(), Extra: r.extra}
			switch r.input {
			case traceSynthetic, traceText:
				text, lazy, tokens := p.result(jobs[i][k])
				t.Role, t.InputTokens = "user", tokens
				if lazy != nil {
					t.Lazy = lazy
				} else {
					t.Texts = []string{text}
				}
			case traceMessages:
				t.Messages, t.Tools = r.messages, r.tools
			case tracePayload:
				t.Payload = r.payload
			}
			switch {
			case r.hasOutput && o.MaxOSL > 0:
				t.MaxTokens = min(r.outputLength, o.MaxOSL)
			case r.hasOutput:
				t.MaxTokens = r.outputLength
			case o.OSLMean > 0 && r.input != tracePayload:
				// MaxTokens 0 means "none", so a draw of 0 becomes 1. A
				// payload carries its own settings.
				t.MaxTokens = max(1, dataset.SamplePositiveNormalInt(osl, o.OSLMean, o.OSLStddev))
			}
			if !o.IgnoreDelays {
				t.TimestampMS, t.HasTimestamp = r.timestamp, r.hasTimestamp
				t.DelayMS = r.delay
			}
			c.Turns[k] = t
		}
		convs[i] = c
	}
	p.release()
	return &dataset.Dataset{Conversations: convs, Sampling: dataset.SamplingSequential, Timed: timed}, nil
}
