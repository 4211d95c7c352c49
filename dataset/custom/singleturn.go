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
	return detectRecord(path, "single_turn", func(obj jsonObject) bool {
		return !obj.has("turns") && hasModality(obj)
	})
}

// loadSingleTurn reads the file: each record becomes a turn; records with
// the same session_id join the conversation of the first, the others are
// conversations of their own with a generated id. A conversation of more
// than one record uses message_array_with_responses, AIPerf's mode for
// self-contained turns: each record is sent as written, with no history
// and no earlier replies.
func loadSingleTurn(ctx context.Context, o *Options) (*dataset.Dataset, error) {
	var files mediaFiles
	var rows []*turnRow
	bad, err := readTurnFile(ctx, o, func(line int, obj jsonObject) *LineError {
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
	convs := groupSessions(rows)
	timed, err := checkSchedule(o, convs, bad)
	if err != nil {
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
	recs := make([]multiRecord, len(rows))
	for i, r := range rows {
		recs[i] = multiRecord{id: r.sessionID, hasID: r.hasSessionID, rows: []*turnRow{r}}
	}
	return groupMultiRecords(recs)
}
