package custom

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/aiperf-go/aiperf/dataset"
)

// bailianFormat is the bailian_trace type (§4.2): Alibaba's Qwen Bailian
// usage traces, one request per JSONL line, hash blocks of 16 tokens,
// timestamps in seconds, sessions chained by chat_id/parent_chat_id.
//
// Upstream, the hash_ids are salted SipHash values of 16-token blocks of the
// real prompts; that is how the trace was made. The file already carries the
// ids, so loading treats them as opaque block ids exactly as mooncake does.
var bailianFormat = format{
	name:   "bailian_trace",
	detect: detectBailian,
	load:   loadBailian,
}

// detectBailian accepts a file whose first line is an object with chat_id.
func detectBailian(path string) bool {
	obj, ok := firstJSONObject(path)
	_, has := obj["chat_id"]
	return ok && has
}

// bailianLine holds a line's known fields undecoded; others are ignored.
type bailianLine struct {
	ChatID       json.RawMessage `json:"chat_id"`
	ParentChatID json.RawMessage `json:"parent_chat_id"`
	Timestamp    json.RawMessage `json:"timestamp"`
	InputLength  json.RawMessage `json:"input_length"`
	OutputLength json.RawMessage `json:"output_length"`
	Type         json.RawMessage `json:"type"` // the request type (text/search/image/file)
	Turn         json.RawMessage `json:"turn"`
	HashIDs      json.RawMessage `json:"hash_ids"`
}

// bailianRow is a parsed row with its chain links.
type bailianRow struct {
	*traceRow
	chat, parent int
}

// parseBailian validates one line against the bailian_trace schema, with
// hash block size size, and returns the row (line unset) or the first bad
// field ("" for the whole line) and what is wrong.
func parseBailian(b []byte, size int) (r bailianRow, field, msg string) {
	var l bailianLine
	if msg := decodeLine(b, &l); msg != "" {
		return r, "", msg
	}
	for _, req := range []struct {
		name string
		raw  json.RawMessage
	}{{"chat_id", l.ChatID}, {"timestamp", l.Timestamp}, {"input_length", l.InputLength}, {"output_length", l.OutputLength}} {
		if isNull(req.raw) {
			return r, req.name, "missing (required)"
		}
	}
	r = bailianRow{traceRow: &traceRow{input: traceSynthetic, hasOutput: true, hasTimestamp: true, turn: 1}, parent: -1}
	ints := []struct {
		name string
		raw  json.RawMessage
		v    *int
	}{
		{"chat_id", l.ChatID, &r.chat},
		{"parent_chat_id", l.ParentChatID, &r.parent},
		{"input_length", l.InputLength, &r.inputLength},
		{"output_length", l.OutputLength, &r.outputLength},
		{"turn", l.Turn, &r.turn},
	}
	for _, f := range ints {
		if isNull(f.raw) {
			continue
		}
		if *f.v, msg = decodeInt(f.raw, voiceWant); msg != "" {
			return r, f.name, msg
		}
	}
	seconds, msg := decodeNumber(l.Timestamp, voiceWant)
	switch {
	case msg != "":
		return r, "timestamp", msg
	case seconds < 0:
		return r, "timestamp", fmt.Sprintf("must be >= 0 s, got %v", seconds)
	}
	r.timestamp = seconds * 1000
	if !isNull(l.Type) {
		if _, msg := decodeString(l.Type, voiceWant); msg != "" {
			return r, "type", msg
		}
	}
	if r.outputLength < 0 {
		return r, "output_length", fmt.Sprintf("must be >= 0, got %d", r.outputLength)
	}
	if !isNull(l.HashIDs) {
		if r.hashIDs, msg = decodeInts(l.HashIDs, voiceWant); msg != "" {
			return r, "hash_ids", msg
		}
	}
	if len(r.hashIDs) > 0 {
		if _, msg := blockFinal(r.inputLength, r.hashIDs, size); msg != "" {
			return r, "hash_ids", msg
		}
	} else if r.inputLength <= 0 {
		return r, "input_length", fmt.Sprintf("must be > 0, got %d", r.inputLength)
	}
	return r, "", ""
}

// loadBailian reads a bailian_trace file.
func loadBailian(ctx context.Context, o *Options) (*dataset.Dataset, error) {
	size := traceBlockSize(o, bailianBlockSize)
	errs := newBadLines(o)
	rows, total, err := readTraceRows(ctx, o, errs, func(b []byte) (bailianRow, *traceRow, string, string) {
		r, field, msg := parseBailian(b, size)
		return r, r.traceRow, field, msg
	})
	if err != nil {
		return nil, err
	}
	return traceFinish(ctx, o, groupBailian(rows), errs, total, size)
}

// groupBailian groups rows by the root of their parent_chat_id chain, as
// AIPerf's union-find: a row whose parent is -1, itself, or not among the
// (kept) rows is a root, and a cycle stops at the row where it closes.
// Sessions come in order of their first row in the file, are named by the
// root chat_id, and hold their rows sorted by turn (stable), each row a
// complete request (message_array_with_responses). When chat ids repeat,
// the last row with an id is the one its children link through.
func groupBailian(rows []bailianRow) []traceSession {
	byChat := make(map[int]int, len(rows)) // chat_id -> parent_chat_id
	for _, r := range rows {
		byChat[r.chat] = r.parent
	}
	roots := make(map[int]int)
	root := func(chat int) int {
		if rt, ok := roots[chat]; ok {
			return rt
		}
		var path []int
		seen := make(map[int]bool)
		cur := chat
		for {
			parent, ok := byChat[cur]
			if !ok || parent == -1 || seen[cur] {
				break
			}
			seen[cur] = true
			if _, known := byChat[parent]; parent == cur || !known {
				break
			}
			path = append(path, cur)
			cur = parent
		}
		for _, n := range path {
			roots[n] = cur
		}
		roots[chat] = cur
		return cur
	}
	var sessions []traceSession
	index := make(map[int]int)
	for _, r := range rows {
		rt := root(r.chat)
		i, ok := index[rt]
		if !ok {
			i = len(sessions)
			index[rt] = i
			sessions = append(sessions, traceSession{id: strconv.Itoa(rt), mode: dataset.MessageArrayWithResponses})
		}
		sessions[i].rows = append(sessions[i].rows, r.traceRow)
	}
	for i := range sessions {
		slices.SortStableFunc(sessions[i].rows, func(a, b *traceRow) int { return cmp.Compare(a.turn, b.turn) })
	}
	return sessions
}
