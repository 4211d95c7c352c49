package custom

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/aiperf-go/aiperf/dataset"
)

// PayloadPrefix marks an --input-file in GenAI-Perf's payload format,
// as `--input-file payload:FILE` (GenAI-Perf's input type PAYLOAD). It is
// not a --custom-dataset-type: only the prefix selects it.
const PayloadPrefix = "payload:"

// payloadFormat is GenAI-Perf's payload input (its PayloadInputRetriever):
// JSONL, one request per line. A line's prompt is its "text" or
// "text_input" (one of them), or else input_length synthetic tokens (with
// hash_ids, as a mooncake trace); output_length becomes max_tokens;
// timestamp (ms, replayed on a fixed schedule), delay (ms) and session_id
// (rows sharing one form a multi-turn session) place the request; every
// other member is merged into the request body, over what the endpoint
// builds. A line with no prompt field at all is a request body of its own,
// sent as given (without timestamp, delay and session_id; output_length,
// when given, as its max_tokens).
var payloadFormat = format{
	name: "payload",
	load: loadPayload,
}

// payloadMember is one member of a payload line, in file order.
type payloadMember struct {
	key string
	raw json.RawMessage
}

// parsePayload validates one payload line with hash block size size and
// returns the row (line unset) or the first bad field ("" for the whole
// line) and what is wrong.
func parsePayload(b []byte, size int) (r *traceRow, field, msg string) {
	members, msg := payloadMembers(b)
	if msg != "" {
		return nil, "", msg
	}
	l := mooncakeLine{}
	var rest []payloadMember
	var text, textInput json.RawMessage
	for _, m := range members {
		switch m.key {
		case "text":
			text = m.raw
		case "text_input":
			textInput = m.raw
		case "input_length":
			l.InputLength = m.raw
		case "hash_ids":
			l.HashIDs = m.raw
		case "output_length":
			l.OutputLength = m.raw
		case "timestamp":
			l.Timestamp = m.raw
		case "delay":
			l.Delay = m.raw
		case "session_id":
			l.SessionID = m.raw
		default:
			rest = append(rest, m)
		}
	}
	prompt, field, msg := payloadPrompt(text, textInput)
	if msg != "" {
		return nil, field, msg
	}
	r = &traceRow{}
	switch {
	case prompt != nil:
		// GenAI-Perf takes the text and ignores input_length and hash_ids.
		l.TextInput, l.InputLength, l.HashIDs = prompt, nil, nil
	case isNull(l.InputLength) && !isNull(l.HashIDs):
		return nil, "hash_ids", "only allowed with input_length"
	case isNull(l.InputLength):
		return payloadBody(rest, &l)
	}
	if field, msg := r.mooncakeInput(&l, size); msg != "" {
		return nil, field, msg
	}
	if field, msg := r.mooncakeSettings(&l); msg != "" {
		return nil, field, msg
	}
	if len(rest) > 0 {
		r.extra = joinMembers(rest)
	}
	return r, "", ""
}

// payloadPrompt returns the line's literal prompt: text or text_input,
// whichever is a non-empty string (nil when neither is); both non-empty
// is an error, as in GenAI-Perf. An empty string counts as none, as
// GenAI-Perf's test for a prompt is Python's truthiness.
func payloadPrompt(text, textInput json.RawMessage) (json.RawMessage, string, string) {
	var prompt json.RawMessage
	for _, f := range []struct {
		name string
		raw  json.RawMessage
	}{{"text", text}, {"text_input", textInput}} {
		if isNull(f.raw) {
			continue
		}
		s, msg := decodeString(f.raw, voiceWant)
		switch {
		case msg != "":
			return nil, f.name, msg
		case s == "":
			continue
		case prompt != nil:
			return nil, "text_input", "text and text_input are both given: give one of them"
		}
		prompt = f.raw
	}
	return prompt, "", ""
}

// payloadBody makes a line without a prompt field a verbatim request
// body: its other members, with output_length as max_tokens unless the
// body sets max_tokens itself.
func payloadBody(rest []payloadMember, l *mooncakeLine) (*traceRow, string, string) {
	r := &traceRow{input: tracePayload}
	if field, msg := r.mooncakeSettings(l); msg != "" {
		return nil, field, msg
	}
	if len(rest) == 0 {
		return nil, "", "no request: give text, text_input or input_length for a prompt, or the request body's own members (messages, model, …)"
	}
	if r.hasOutput && r.outputLength > 0 && !hasMember(rest, "max_tokens") {
		rest = append(rest, payloadMember{key: "max_tokens", raw: json.RawMessage(fmt.Sprint(r.outputLength))})
	}
	r.payload = joinMembers(rest)
	return r, "", ""
}

func hasMember(ms []payloadMember, key string) bool {
	for _, m := range ms {
		if m.key == key {
			return true
		}
	}
	return false
}

// payloadMembers splits a line's JSON object into its members in order;
// a member given twice keeps its place and its last value, as a JSON
// object decoded into a map keeps the last.
func payloadMembers(b []byte) ([]payloadMember, string) {
	var obj jsonObject
	if msg := decodeLine(b, &obj); msg != "" {
		return nil, msg
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		return nil, notObject
	}
	var out []payloadMember
	at := map[string]int{}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, notObject
		}
		key, _ := k.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, notObject
		}
		raw = compactJSON(raw)
		if i, ok := at[key]; ok {
			out[i].raw = raw
			continue
		}
		at[key] = len(out)
		out = append(out, payloadMember{key: key, raw: raw})
	}
	return out, ""
}

// joinMembers writes members as one compact JSON object, in order.
func joinMembers(ms []payloadMember) json.RawMessage {
	var b strings.Builder
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.raw)
	}
	b.WriteByte('}')
	return json.RawMessage(b.String())
}

// loadPayload reads a payload file: rows group into sessions as mooncake
// rows do (session_id, else one row each), and a first row with a
// timestamp makes the trace timed (a fixed schedule).
func loadPayload(ctx context.Context, o *Options) (*dataset.Dataset, error) {
	size := traceBlockSize(o, mooncakeBlockSize)
	errs := newBadLines(o)
	rows, total, err := readTraceRows(ctx, o, errs, func(b []byte) (*traceRow, *traceRow, string, string) {
		r, field, msg := parsePayload(b, size)
		return r, r, field, msg
	})
	if err != nil {
		return nil, err
	}
	return traceFinish(ctx, o, groupMooncake(rows, errs), errs, total, size)
}

// payloadPath returns path without PayloadPrefix and whether it had it.
func payloadPath(path string) (string, bool) {
	return strings.CutPrefix(path, PayloadPrefix)
}
