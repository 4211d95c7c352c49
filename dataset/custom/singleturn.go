package custom

import (
	"context"

	"github.com/aiperf-go/aiperf/dataset"
)

// singleTurnFormat is the single_turn type (§4.2): one request per line, sent
// in file order. Lines sharing a session_id form one conversation whose
// turns are sent one after another, each self-contained (no history).
var singleTurnFormat = format{
	name:   "single_turn",
	detect: detectSingleTurn,
	load:   loadSingleTurn,
}

// detectSingleTurn accepts a file whose first record says "type":
// "single_turn", or, with no type, has a content field and no "turns".
func detectSingleTurn(path string) bool {
	obj, ok := firstJSONObject(path)
	if !ok {
		return false
	}
	if obj.has("type") {
		t, _, _ := obj.getString("", "type")
		return t == "single_turn"
	}
	return !obj.has("turns") && hasModality(obj)
}

// loadSingleTurn reads the file: each record becomes a turn; records with
// the same session_id join the conversation of the first, the others are
// conversations of their own with a generated id. A conversation of more
// than one record uses message_array_with_responses, AIPerf's mode for
// self-contained turns: each record is sent as written, with no history
// and no earlier replies.
func loadSingleTurn(ctx context.Context, o *Options) (*dataset.Dataset, error) {
	bad := &badLines{max: o.MaxErrors}
	var files mediaFiles
	var rows []*turnRow
	n, err := readRecords(ctx, o.Path, bad, func(line int, obj jsonObject) *LineError {
		r, lerr := parseTurnRow(obj, "", rowSingleTurn, "", &files)
		if lerr != nil {
			return lerr
		}
		r.line = line
		rows = append(rows, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, errBlankFile
	}
	if err := bad.err(); err != nil {
		return nil, err
	}
	convs := groupSessions(rows)
	timed := checkSchedule(o.Path, convs, o.IgnoreDelays, bad)
	if err := bad.err(); err != nil {
		return nil, err
	}
	out := newTurnMaker(o).conversations(convs, "")
	for i := range out {
		if len(out[i].Turns) > 1 {
			out[i].ContextMode = dataset.MessageArrayWithResponses
		}
	}
	return &dataset.Dataset{Conversations: out, Sampling: dataset.SamplingSequential, Timed: timed}, nil
}

// groupSessions makes one conversation per session_id, placed where the id
// first appears, and one per row without an id, in file order.
func groupSessions(rows []*turnRow) []rowConv {
	names := sessionNamer{taken: make(map[string]bool)}
	for _, r := range rows {
		if r.hasSessionID {
			names.taken[r.sessionID] = true
		}
	}
	var convs []rowConv
	at := make(map[string]int)
	for _, r := range rows {
		if !r.hasSessionID {
			convs = append(convs, rowConv{id: names.name(), rows: []*turnRow{r}})
			continue
		}
		if i, ok := at[r.sessionID]; ok {
			convs[i].rows = append(convs[i].rows, r)
			continue
		}
		at[r.sessionID] = len(convs)
		convs = append(convs, rowConv{id: r.sessionID, rows: []*turnRow{r}})
	}
	return convs
}
