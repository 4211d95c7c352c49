package custom

import (
	"cmp"
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/tokenizer"
)

// seededPCG returns the generator of one named stream of seed: PCG seeded
// with (seed, FNV-1a of stream). The same seed and name always give the same
// values; different names give independent streams, so that, say, giving one
// row an output_length does not change the models other rows get.
func seededPCG(seed uint64, stream string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(stream))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// Stream names of the custom formats' random draws.
const (
	streamModelPick = "custom.model"
	streamOutputLen = "custom.osl"
	streamPoolDraw  = "custom.random_pool"
)

// rowConv is one conversation's rows before they become Turns.
type rowConv struct {
	id   string
	rows []*turnRow
}

// turnMaker turns rows into dataset.Turns, filling in what a row leaves
// out: role "user", a model from Options.Models, max_tokens drawn from the
// OSL distribution, and the client-side input token count.
type turnMaker struct {
	tok                tokenizer.Tokenizer
	models             *modelPicker
	osl                *rand.Rand
	oslMean, oslStddev float64
	ignoreTiming       bool
}

func newTurnMaker(o *Options) *turnMaker {
	return &turnMaker{
		tok:          o.Tokenizer,
		models:       newModelPicker(o, seededPCG(o.Seed, streamModelPick)),
		osl:          seededPCG(o.Seed, streamOutputLen),
		oslMean:      o.OSLMean,
		oslStddev:    o.OSLStddev,
		ignoreTiming: o.IgnoreDelays,
	}
}

// conversations builds convs in order, turn by turn, so that model and
// output-length draws follow the conversation order. mode is each
// conversation's context mode; a single_turn file passes "" and sets it
// itself.
func (m *turnMaker) conversations(convs []rowConv, mode string) []dataset.Conversation {
	out := make([]dataset.Conversation, len(convs))
	for i, c := range convs {
		out[i] = dataset.Conversation{SessionID: c.id, ContextMode: mode, Turns: make([]dataset.Turn, len(c.rows))}
		for j, r := range c.rows {
			out[i].Turns[j] = m.turn(r)
		}
	}
	return out
}

// turn builds the Turn of a validated row.
func (m *turnMaker) turn(r *turnRow) dataset.Turn {
	query, passages, rest, _ := rankingTexts(r.content.texts, "")
	t := dataset.Turn{
		Role:     cmp.Or(r.role, "user"),
		Texts:    rest,
		Query:    query,
		Passages: passages,
		// Pool entries are drawn many times: no two turns share a slice.
		Images:    slices.Clone(r.content.images),
		Audios:    slices.Clone(r.content.audios),
		Videos:    slices.Clone(r.content.videos),
		Model:     r.model,
		MaxTokens: r.outputLength,
		Extra:     r.extra,
	}
	if len(r.content.texts) > 0 {
		all := make([]string, len(r.content.texts))
		for i, nt := range r.content.texts {
			all[i] = nt.text
		}
		t.InputTokens = m.tok.Count(strings.Join(all, " "))
	}
	if t.Model == "" {
		t.Model = m.models.pick()
	}
	if t.MaxTokens == 0 && m.oslMean > 0 {
		// MaxTokens 0 means "none", so a draw of 0 becomes 1, as synthetic.
		t.MaxTokens = max(1, dataset.SamplePositiveNormalInt(m.osl, m.oslMean, m.oslStddev))
	}
	if !m.ignoreTiming {
		t.DelayMS = r.delay
		t.TimestampMS, t.HasTimestamp = r.timestamp, r.hasTimestamp
	}
	return t
}

// detectRecord is the detector of a record format: it accepts a file whose
// first record says "type": typ or, with no type, satisfies untyped.
func detectRecord(path, typ string, untyped func(jsonObject) bool) bool {
	obj, ok := firstJSONObject(path)
	if !ok {
		return false
	}
	if obj.has("type") {
		t, _, _ := obj.getString("", "type")
		return t == typ
	}
	return untyped(obj)
}

// readTurnFile reads the JSONL file of a single_turn or multi_turn load
// with readRecords, calling fn with each record. It returns the load's
// collector, or an error: the file's, errBlankFile, or the *FileError of
// its bad lines.
func readTurnFile(ctx context.Context, o *Options, fn func(line int, obj jsonObject) *LineError) (*badLines, error) {
	bad := newBadLines(o)
	n, err := readRecords(ctx, o.Path, bad, fn)
	switch {
	case err != nil:
		return nil, err
	case n == 0:
		return nil, errBlankFile
	}
	return bad, bad.err()
}

// checkSchedule applies the fixed-schedule rule of §4.2 and returns whether
// the dataset is timed: it is when its first record has a timestamp, and
// then the first turn of every conversation needs one; when it is not,
// a timestamp anywhere would be ignored, so it is an error too. The error
// is the *FileError of the rows that break it (and of bad's earlier lines).
// With Options.IgnoreDelays (--ignore-trace-delays) nothing is timed and
// nothing is checked.
func checkSchedule(o *Options, convs []rowConv, bad *badLines) (bool, error) {
	if o.IgnoreDelays || len(convs) == 0 || len(convs[0].rows) == 0 {
		return false, bad.err()
	}
	timed := convs[0].rows[0].hasTimestamp
	type flaw struct {
		r   *turnRow
		msg string
	}
	var flaws []flaw
	for _, c := range convs {
		for j, r := range c.rows {
			switch {
			case timed && j == 0 && !r.hasTimestamp:
				flaws = append(flaws, flaw{r, "missing: the first record has a timestamp, so the file replays on a fixed schedule and every conversation's first turn needs one"})
			case !timed && r.hasTimestamp:
				flaws = append(flaws, flaw{r, "the first record has no timestamp, so timestamps would be ignored: give the first record one for a fixed schedule, or use delay"})
			}
		}
	}
	for _, f := range flaws {
		bad.addRow(f.r.line, f.r.pre+"timestamp", f.msg)
	}
	return timed, bad.err()
}

// sessionNamer generates the session ids of conversations whose records
// name none: session_000000, session_000001, …, skipping ids the file uses.
type sessionNamer struct {
	taken map[string]bool
	next  int
}

// name returns the next free generated id.
func (s *sessionNamer) name() string {
	for {
		id := fmt.Sprintf("session_%06d", s.next)
		s.next++
		if !s.taken[id] {
			return id
		}
	}
}
