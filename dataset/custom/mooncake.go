package custom

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/aiperf-go/aiperf/dataset"
)

// mooncakeFormat is the mooncake_trace type (§4.2, §4.3): one request per
// JSONL line, with a synthetic prompt from input_length (and hash_ids), a
// literal text_input, verbatim messages or a verbatim payload.
var mooncakeFormat = format{
	name:   "mooncake_trace",
	detect: detectMooncake,
	load:   loadMooncake,
}

// mooncakeInputs are the input fields, of which a row gives exactly one.
var mooncakeInputs = []string{"input_length", "text_input", "messages", "payload"}

// detectMooncake accepts a file whose first line is an object with an
// input field or hash_ids and no chat_id (which marks bailian_trace).
func detectMooncake(path string) bool {
	head, ok := traceHead(path)
	if !ok {
		return false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(head, &obj) != nil {
		return false
	}
	if _, ok := obj["chat_id"]; ok {
		return false
	}
	for _, k := range [...]string{"input_length", "text_input", "hash_ids", "messages", "payload"} {
		if _, ok := obj[k]; ok {
			return true
		}
	}
	return false
}

// mooncakeLine holds a line's known fields undecoded; others are ignored,
// as AIPerf's model allows extra fields.
type mooncakeLine struct {
	Type         json.RawMessage `json:"type"`
	InputLength  json.RawMessage `json:"input_length"`
	TextInput    json.RawMessage `json:"text_input"`
	Messages     json.RawMessage `json:"messages"`
	Payload      json.RawMessage `json:"payload"`
	Tools        json.RawMessage `json:"tools"`
	MessageMode  json.RawMessage `json:"message_mode"`
	OutputLength json.RawMessage `json:"output_length"`
	HashIDs      json.RawMessage `json:"hash_ids"`
	Timestamp    json.RawMessage `json:"timestamp"`
	Delay        json.RawMessage `json:"delay"`
	SessionID    json.RawMessage `json:"session_id"`
	Extra        json.RawMessage `json:"extra"`
}

// parseMooncake validates one line against the mooncake_trace schema, with
// hash block size size, and returns the row (line unset) or the first bad
// field ("" for the whole line) and what is wrong.
func parseMooncake(b []byte, size int) (r *traceRow, field, msg string) {
	var l mooncakeLine
	if msg := traceObjectLine(b, &l); msg != "" {
		return nil, "", msg
	}
	if !traceAbsent(l.Type) {
		if t, msg := traceStr(l.Type); msg != "" {
			return nil, "type", msg
		} else if t != "mooncake_trace" {
			return nil, "type", fmt.Sprintf("%q in a mooncake_trace row (want \"mooncake_trace\" or no type)", t)
		}
	}
	raws := []json.RawMessage{l.InputLength, l.TextInput, l.Messages, l.Payload}
	var given []string
	for i, raw := range raws {
		if !traceAbsent(raw) {
			given = append(given, mooncakeInputs[i])
		}
	}
	switch {
	case len(given) == 0:
		return nil, "", "exactly one of input_length, text_input, messages or payload is required"
	case len(given) > 1:
		return nil, given[1], fmt.Sprintf("%s are mutually exclusive: give exactly one of input_length, text_input, messages or payload", strings.Join(given, " and "))
	}
	r = &traceRow{}
	if field, msg := r.mooncakeInput(&l, size); msg != "" {
		return nil, field, msg
	}
	if field, msg := r.mooncakeSettings(&l); msg != "" {
		return nil, field, msg
	}
	return r, "", ""
}

// mooncakeInput decodes the row's one input field, hash_ids and tools.
func (r *traceRow) mooncakeInput(l *mooncakeLine, size int) (field, msg string) {
	if !traceAbsent(l.HashIDs) && traceAbsent(l.InputLength) {
		return "hash_ids", "only allowed with input_length, not with text_input, messages or payload"
	}
	if !traceAbsent(l.Tools) && traceAbsent(l.Messages) {
		return "tools", "only allowed with messages"
	}
	switch {
	case !traceAbsent(l.InputLength):
		r.input = traceSynthetic
		if r.inputLength, msg = traceInt(l.InputLength); msg != "" {
			return "input_length", msg
		}
		if !traceAbsent(l.HashIDs) {
			if r.hashIDs, msg = traceInts(l.HashIDs); msg != "" {
				return "hash_ids", msg
			}
		}
		if len(r.hashIDs) > 0 {
			if _, msg := blockFinal(r.inputLength, r.hashIDs, size); msg != "" {
				return "hash_ids", msg
			}
		} else if r.inputLength <= 0 {
			return "input_length", fmt.Sprintf("must be > 0, got %d", r.inputLength)
		}
	case !traceAbsent(l.TextInput):
		r.input = traceText
		if r.text, msg = traceStr(l.TextInput); msg != "" {
			return "text_input", msg
		}
	case !traceAbsent(l.Messages):
		r.input = traceMessages
		var objs []map[string]json.RawMessage
		if r.messages, objs, msg = traceObjects(l.Messages); msg != "" {
			return "messages", msg
		}
		for i, m := range objs {
			if _, ok := m["role"]; !ok {
				return "messages", fmt.Sprintf("element %d has no \"role\"", i)
			}
		}
		if !traceAbsent(l.Tools) {
			if r.tools, _, msg = traceObjects(l.Tools); msg != "" {
				return "tools", msg
			}
		}
	default:
		r.input = tracePayload
		if r.payload, msg = traceObject(l.Payload, true); msg != "" {
			return "payload", msg
		}
	}
	return "", ""
}

// mooncakeSettings decodes the fields besides the input.
func (r *traceRow) mooncakeSettings(l *mooncakeLine) (field, msg string) {
	if !traceAbsent(l.OutputLength) {
		if r.outputLength, msg = traceInt(l.OutputLength); msg != "" {
			return "output_length", msg
		}
		if r.outputLength < 0 {
			return "output_length", fmt.Sprintf("must be >= 0, got %d", r.outputLength)
		}
		r.hasOutput = true
	}
	for _, f := range []struct {
		name string
		raw  json.RawMessage
		v    *float64
		has  *bool
	}{{"timestamp", l.Timestamp, &r.timestamp, &r.hasTimestamp}, {"delay", l.Delay, &r.delay, &r.hasDelay}} {
		if traceAbsent(f.raw) {
			continue
		}
		if *f.v, msg = traceNum(f.raw); msg != "" {
			return f.name, msg
		}
		if *f.v < 0 {
			return f.name, fmt.Sprintf("must be >= 0 ms, got %v", *f.v)
		}
		*f.has = true
	}
	if !traceAbsent(l.SessionID) {
		if r.session, msg = traceStr(l.SessionID); msg != "" {
			return "session_id", msg
		}
	}
	var extraKeys map[string]json.RawMessage
	if !traceAbsent(l.Extra) {
		if r.extra, msg = traceObject(l.Extra, false); msg != "" {
			return "extra", msg
		}
		if r.input == tracePayload {
			return "extra", "cannot be combined with payload, which is sent verbatim: put the fields in payload"
		}
		_ = json.Unmarshal(r.extra, &extraKeys)
	}
	if !traceAbsent(l.MessageMode) {
		mode, msg := traceStr(l.MessageMode)
		switch {
		case msg != "":
			return "message_mode", msg
		case mode != "history" && mode != "delta":
			return "message_mode", fmt.Sprintf("%q: want \"history\" or \"delta\"", mode)
		case mode == "delta" && r.input != traceMessages:
			return "message_mode", "\"delta\" is only supported with messages"
		case mode == "delta" && extraKeys["messages"] != nil:
			return "extra", "with message_mode \"delta\", extra must not hold \"messages\": it would overwrite the assembled history"
		}
		r.delta = mode == "delta"
	}
	return "", ""
}

// loadMooncake reads a mooncake_trace file.
func loadMooncake(ctx context.Context, o *Options) (*dataset.Dataset, error) {
	size := o.BlockSize
	if size <= 0 {
		size = mooncakeBlockSize
	}
	f, err := os.Open(o.Path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	errs := newTraceErrs(o)
	var rows []*traceRow
	total := 0
	err = traceScan(ctx, f, errs, func(line int, b []byte) {
		total++
		r, field, msg := parseMooncake(b, size)
		if msg != "" {
			errs.add(line, field, msg)
			return
		}
		r.line = line
		if traceKeep(o, r) {
			rows = append(rows, r)
		}
	})
	if err != nil {
		return nil, err
	}
	sessions := groupMooncake(rows, errs)
	timed := traceSchedule(o, sessions, errs)
	if err := errs.err(); err != nil {
		return nil, err
	}
	if len(sessions) == 0 {
		return nil, traceEmpty(o, total)
	}
	return traceBuild(ctx, o, sessions, size, timed)
}

// mooncakeClass is what a session's rows must agree on.
type mooncakeClass int

const (
	classSynthetic mooncakeClass = iota // input_length or text_input rows
	classHistory                        // messages, message_mode history
	classDelta                          // messages, message_mode delta
	classPayload                        // payload rows
)

func (r *traceRow) mooncakeClass() mooncakeClass {
	switch {
	case r.input == tracePayload:
		return classPayload
	case r.input == traceMessages && r.delta:
		return classDelta
	case r.input == traceMessages:
		return classHistory
	}
	return classSynthetic
}

// mooncakeModes are the context modes of the classes (§4.7).
var mooncakeModes = [...]string{
	classSynthetic: dataset.DeltasWithoutResponses,
	classHistory:   dataset.MessageArrayWithResponses,
	classDelta:     dataset.DeltasWithoutResponses,
	classPayload:   dataset.MessageArrayWithResponses,
}

// groupMooncake groups rows into sessions in order of first appearance:
// rows sharing a session_id form one session, in file order; any other row
// is its own session. A row whose class differs from its session's first
// row goes to errs.
func groupMooncake(rows []*traceRow, errs *traceErrs) []traceSession {
	names := traceNames{taken: make(map[string]bool)}
	for _, r := range rows {
		if r.session != "" {
			names.taken[r.session] = true
		}
	}
	var sessions []traceSession
	index := make(map[string]int)
	for _, r := range rows {
		if r.session == "" {
			sessions = append(sessions, traceSession{id: names.name(), mode: mooncakeModes[r.mooncakeClass()], rows: []*traceRow{r}})
			continue
		}
		i, ok := index[r.session]
		if !ok {
			index[r.session] = len(sessions)
			sessions = append(sessions, traceSession{id: r.session, mode: mooncakeModes[r.mooncakeClass()], rows: []*traceRow{r}})
			continue
		}
		s := &sessions[i]
		if first := s.rows[0]; first.mooncakeClass() != r.mooncakeClass() {
			errs.add(r.line, "session_id", fmt.Sprintf("session %q mixes %s rows with %s rows (line %d); each session must use one kind",
				r.session, r.mooncakeClass(), first.mooncakeClass(), first.line))
			continue
		}
		s.rows = append(s.rows, r)
	}
	return sessions
}

func (c mooncakeClass) String() string {
	return [...]string{"input_length/text_input", "messages (history)", "messages (delta)", "payload"}[c]
}
