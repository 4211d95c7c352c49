package custom

import (
	"context"
	"encoding/json"
	"fmt"
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
	obj, ok := firstJSONObject(path)
	if !ok {
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
	if msg := decodeLine(b, &l); msg != "" {
		return nil, "", msg
	}
	if !isNull(l.Type) {
		if t, msg := decodeString(l.Type, voiceWant); msg != "" {
			return nil, "type", msg
		} else if t != "mooncake_trace" {
			return nil, "type", fmt.Sprintf("%q in a mooncake_trace row (want \"mooncake_trace\" or no type)", t)
		}
	}
	textWins(&l)
	raws := []json.RawMessage{l.InputLength, l.TextInput, l.Messages, l.Payload}
	var given []string
	for i, raw := range raws {
		if !isNull(raw) {
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

// textWins settles a row with both input_length and text_input as
// GenAI-Perf does (its payload input, which reads mooncake traces, takes
// the text when there is one and synthesizes input_length tokens only
// without it): a non-empty text_input wins, and input_length and hash_ids
// are ignored; an empty text_input ("") gives way to input_length. AIPerf
// 0.13 refuses such rows; accepting them lets GenAI-Perf's traces run.
// A text_input that is not a string wins too, so that it is reported.
func textWins(l *mooncakeLine) {
	if isNull(l.InputLength) || isNull(l.TextInput) {
		return
	}
	if t, msg := decodeString(l.TextInput, voiceWant); msg == "" && t == "" {
		l.TextInput = nil
		return
	}
	l.InputLength, l.HashIDs = nil, nil
}

// mooncakeInput decodes the row's one input field, hash_ids and tools.
func (r *traceRow) mooncakeInput(l *mooncakeLine, size int) (field, msg string) {
	if !isNull(l.HashIDs) && isNull(l.InputLength) {
		return "hash_ids", "only allowed with input_length, not with text_input, messages or payload"
	}
	if !isNull(l.Tools) && isNull(l.Messages) {
		return "tools", "only allowed with messages"
	}
	switch {
	case !isNull(l.InputLength):
		r.input = traceSynthetic
		if r.inputLength, msg = decodeInt(l.InputLength, voiceWant); msg != "" {
			return "input_length", msg
		}
		if !isNull(l.HashIDs) {
			if r.hashIDs, msg = decodeInts(l.HashIDs, voiceWant); msg != "" {
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
	case !isNull(l.TextInput):
		r.input = traceText
		if r.text, msg = decodeString(l.TextInput, voiceWant); msg != "" {
			return "text_input", msg
		}
	case !isNull(l.Messages):
		r.input = traceMessages
		var objs []jsonObject
		if r.messages, objs, msg = decodeObjects(l.Messages, voiceWant); msg != "" {
			return "messages", msg
		}
		for i, m := range objs {
			if _, ok := m["role"]; !ok {
				return "messages", fmt.Sprintf("element %d has no \"role\"", i)
			}
		}
		if !isNull(l.Tools) {
			if r.tools, _, msg = decodeObjects(l.Tools, voiceWant); msg != "" {
				return "tools", msg
			}
		}
	default:
		r.input = tracePayload
		if r.payload, msg = decodeObject(l.Payload, voiceWant, true); msg != "" {
			return "payload", msg
		}
	}
	return "", ""
}

// mooncakeSettings decodes the fields besides the input.
func (r *traceRow) mooncakeSettings(l *mooncakeLine) (field, msg string) {
	if !isNull(l.OutputLength) {
		if r.outputLength, msg = decodeInt(l.OutputLength, voiceWant); msg != "" {
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
		if isNull(f.raw) {
			continue
		}
		if *f.v, msg = decodeNumber(f.raw, voiceWant); msg != "" {
			return f.name, msg
		}
		if *f.v < 0 {
			return f.name, fmt.Sprintf("must be >= 0 ms, got %v", *f.v)
		}
		*f.has = true
	}
	if !isNull(l.SessionID) {
		if r.session, msg = decodeString(l.SessionID, voiceWant); msg != "" {
			return "session_id", msg
		}
	}
	var extraKeys jsonObject
	if !isNull(l.Extra) {
		if r.extra, msg = decodeObject(l.Extra, voiceWant, false); msg != "" {
			return "extra", msg
		}
		if r.input == tracePayload {
			return "extra", "cannot be combined with payload, which is sent verbatim: put the fields in payload"
		}
		_ = json.Unmarshal(r.extra, &extraKeys)
	}
	if !isNull(l.MessageMode) {
		mode, msg := decodeString(l.MessageMode, voiceWant)
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
	size := traceBlockSize(o, mooncakeBlockSize)
	errs := newBadLines(o)
	rows, total, err := readTraceRows(ctx, o, errs, func(b []byte) (*traceRow, *traceRow, string, string) {
		r, field, msg := parseMooncake(b, size)
		return r, r, field, msg
	})
	if err != nil {
		return nil, err
	}
	return traceFinish(ctx, o, groupMooncake(rows, errs), errs, total, size)
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
func groupMooncake(rows []*traceRow, errs *badLines) []traceSession {
	names := sessionNamer{taken: make(map[string]bool)}
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
			errs.addRow(r.line, "session_id", fmt.Sprintf("session %q mixes %s rows with %s rows (line %d); each session must use one kind",
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
