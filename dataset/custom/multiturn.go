package custom

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/aiperf-go/aiperf/dataset"
)

// multiTurnFormat is the multi_turn type (§4.2): one conversation per line,
// {"session_id": …, "turns": [turn, …]}, each turn with the single_turn
// fields. History accumulates (deltas_without_responses): each request
// carries the earlier turns and the live replies.
var multiTurnFormat = format{
	name:   "multi_turn",
	detect: detectMultiTurn,
	load:   loadMultiTurn,
}

// detectMultiTurn accepts a file whose first record says "type":
// "multi_turn", or, with no type, has "turns".
func detectMultiTurn(path string) bool {
	return detectRecord(path, "multi_turn", func(obj jsonObject) bool { return obj.has("turns") })
}

// multiRecord is one parsed multi_turn line.
type multiRecord struct {
	id    string
	hasID bool
	rows  []*turnRow
}

// loadMultiTurn reads the file. Records sharing a session_id are joined
// into one conversation, in file order, as AIPerf does; records without one
// get a generated id. A leading text-only "system" turn with no timing or
// per-request settings becomes the conversation's SystemPrompt (its texts
// joined with "\n"), unless it is the conversation's only turn.
func loadMultiTurn(ctx context.Context, o *Options) (*dataset.Dataset, error) {
	var files mediaFiles
	var recs []multiRecord
	bad, err := readTurnFile(ctx, o, func(line int, obj jsonObject) *LineError {
		rec, lerr := parseMultiRecord(obj, line, &files)
		if lerr == nil {
			recs = append(recs, rec)
		}
		return lerr
	})
	if err != nil {
		return nil, err
	}
	convs := groupMultiRecords(recs)
	prompts := make([]string, len(convs))
	for i := range convs {
		prompts[i] = hoistSystemTurn(&convs[i])
	}
	timed, err := checkSchedule(o, convs, bad)
	if err != nil {
		return nil, err
	}
	out := newTurnMaker(o).conversations(convs, dataset.DeltasWithoutResponses)
	for i := range out {
		out[i].SystemPrompt = prompts[i]
	}
	return &dataset.Dataset{Conversations: out, Sampling: dataset.SamplingSequential, Timed: timed}, nil
}

// parseMultiRecord validates one multi_turn line.
func parseMultiRecord(obj jsonObject, line int, files *mediaFiles) (multiRecord, *LineError) {
	var rec multiRecord
	if t, ok, lerr := obj.getString("", "type"); lerr != nil {
		return rec, lerr
	} else if ok && t != "multi_turn" {
		return rec, &LineError{Field: "type", Msg: fmt.Sprintf(`%q in a multi_turn record (want "multi_turn" or no type)`, t)}
	}
	var lerr *LineError
	if rec.id, rec.hasID, lerr = obj.getString("", "session_id"); lerr != nil {
		return rec, lerr
	}
	items, ok, lerr := obj.getArray("", "turns")
	switch {
	case lerr != nil:
		return rec, lerr
	case !ok:
		msg := "missing: a multi_turn record needs a list of turns"
		if hasModality(obj) {
			msg += "; this looks like a single_turn record: set --custom-dataset-type single_turn"
		}
		return rec, &LineError{Field: "turns", Msg: msg}
	case len(items) == 0:
		return rec, &LineError{Field: "turns", Msg: "empty: at least one turn must be given"}
	}
	rec.rows = make([]*turnRow, len(items))
	for i, raw := range items {
		field := fmt.Sprintf("turns[%d]", i)
		var tobj jsonObject
		if jsonKind(raw) != "an object" || json.Unmarshal(raw, &tobj) != nil {
			return rec, wrongType(field, "an object", raw)
		}
		r, lerr := parseTurnRow(tobj, field+".", rowTurn, "", files)
		if lerr != nil {
			return rec, lerr
		}
		r.line = line
		rec.rows[i] = r
	}
	return rec, nil
}

// groupMultiRecords joins records by session_id, placed where the id first
// appears, in file order; records without an id get a generated one that
// no record uses.
func groupMultiRecords(recs []multiRecord) []rowConv {
	names := sessionNamer{taken: make(map[string]bool)}
	for _, r := range recs {
		if r.hasID {
			names.taken[r.id] = true
		}
	}
	var convs []rowConv
	at := make(map[string]int)
	for _, r := range recs {
		if !r.hasID {
			convs = append(convs, rowConv{id: names.name(), rows: r.rows})
			continue
		}
		if i, ok := at[r.id]; ok {
			convs[i].rows = append(convs[i].rows, r.rows...)
			continue
		}
		at[r.id] = len(convs)
		convs = append(convs, rowConv{id: r.id, rows: r.rows})
	}
	return convs
}

// hoistSystemTurn removes a leading system turn from c and returns its text,
// as AIPerf: only a role "system" turn carrying texts alone (no media), with
// no timestamp, delay, output_length, model or extra, and not the only turn.
// It returns "" and leaves c alone otherwise.
func hoistSystemTurn(c *rowConv) string {
	if len(c.rows) < 2 {
		return ""
	}
	r := c.rows[0]
	m := &r.content
	if r.role != "system" || r.hasTimestamp || r.hasDelay || r.hasSettings ||
		len(m.images)+len(m.audios)+len(m.videos) > 0 || len(m.texts) == 0 {
		return ""
	}
	texts := make([]string, len(m.texts))
	for i, t := range m.texts {
		texts[i] = t.text
	}
	prompt := strings.Join(texts, "\n")
	if prompt == "" {
		return ""
	}
	c.rows = c.rows[1:]
	return prompt
}
