package endpoint

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/internal/pyjson"
)

// chatContext is what a chat body needs beyond the turn itself.
type chatContext struct {
	system      string            // conversation system prompt, "" for none
	userContext string            // conversation user-context prompt, "" for none
	verbatim    bool              // MessageArrayWithResponses: Messages is the whole list
	history     []json.RawMessage // earlier messages (accumulating modes only)
	tools       json.RawMessage   // the tools list to send, nil for none
}

// UserMessage returns the encoded chat message object of turn t,
// {"role":…,"content":…}: the same bytes Request puts in messages for it.
// The role is t.Role, or "user" when empty. For a turn with Messages it
// returns those messages as a compact JSON array, which Request splices into
// messages item by item when it is passed back as a history entry. It
// returns nil for a turn Request rejects (an audio without a format, or
// Messages that are not a JSON array).
func (e *Endpoint) UserMessage(t *dataset.Turn) json.RawMessage {
	if t.Messages != nil {
		b, err := compactArray(t.Messages)
		if err != nil {
			return nil
		}
		return b
	}
	t = t.Resolved()
	b, err := appendTurnMessage(make([]byte, 0, 32+turnLen(t)), t)
	if err != nil {
		return nil
	}
	return b
}

// AssistantMessage returns {"role":"assistant","content":text}, encoded as
// AIPerf does (strings escaped as json.dumps with ensure_ascii=False).
func AssistantMessage(text string) json.RawMessage {
	b := append(make([]byte, 0, 40+len(text)), `{"role":"assistant","content":`...)
	b = pyjson.AppendString(b, text)
	return append(b, '}')
}

// chatMessages encodes the messages list of a chat body (§6.2, chat message
// rendering). In MessageArrayWithResponses mode a turn with Messages sends
// them verbatim (compacted) and nothing else. Otherwise the list is: a
// system message with the system prompt, a user message with the user
// context (each when not empty), the history entries, then the turn's
// Messages items when it has some, else its own message (see
// appendTurnMessage).
func chatMessages(t *dataset.Turn, cc *chatContext) ([]byte, error) {
	if cc.verbatim && t.Messages != nil {
		return compactArray(t.Messages)
	}
	size := 32 + turnLen(t) + len(t.Messages)
	if cc.system != "" {
		size += 32 + len(cc.system)
	}
	if cc.userContext != "" {
		size += 32 + len(cc.userContext)
	}
	for _, h := range cc.history {
		size += len(h) + 1
	}
	b := append(make([]byte, 0, size), '[')
	n := 0
	if cc.system != "" {
		b = appendTextMessage(b, "system", cc.system)
		n++
	}
	if cc.userContext != "" {
		b = appendTextMessage(sep(b, n), "user", cc.userContext)
		n++
	}
	var err error
	for i, h := range cc.history {
		if b, err = appendItems(b, &n, h, false); err != nil {
			return nil, fmt.Errorf("endpoint: history entry %d: %w", i, err)
		}
	}
	if t.Messages != nil {
		if b, err = appendItems(b, &n, t.Messages, true); err != nil {
			return nil, fmt.Errorf("endpoint: turn messages: %w", err)
		}
	} else if b, err = appendTurnMessage(sep(b, n), t); err != nil {
		return nil, err
	}
	return append(b, ']'), nil
}

// sep appends the comma that precedes list item n+1.
func sep(b []byte, n int) []byte {
	if n > 0 {
		return append(b, ',')
	}
	return b
}

// appendTextMessage appends {"role":role,"content":text}.
func appendTextMessage(b []byte, role, text string) []byte {
	b = append(b, `{"role":`...)
	b = pyjson.AppendString(b, role)
	b = append(b, `,"content":`...)
	b = pyjson.AppendString(b, text)
	return append(b, '}')
}

// appendItems appends the JSON value v, compacted, as the next item(s) of a
// list holding n items: an array contributes its items (none when empty),
// anything else itself. With wantArray, a value that is not an array is an
// error. An empty v contributes nothing.
func appendItems(b []byte, n *int, v json.RawMessage, wantArray bool) ([]byte, error) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		if wantArray {
			return b, errors.New("empty, not a JSON array")
		}
		return b, nil
	}
	isArray := v[0] == '['
	if wantArray && !isArray {
		return b, errors.New("not a JSON array")
	}
	start := len(b)
	b = sep(b, *n)
	at := len(b)
	b, err := appendCompact(b, v)
	if err != nil {
		return b[:start], err
	}
	if isArray {
		inner := b[at+1 : len(b)-1]
		if len(inner) == 0 {
			return b[:start], nil
		}
		b = b[:at+copy(b[at:], inner)]
	}
	*n++
	return b, nil
}

// compactArray returns v compacted, or an error when it is not a JSON array.
func compactArray(v json.RawMessage) ([]byte, error) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || v[0] != '[' {
		return nil, errors.New("endpoint: turn messages: not a JSON array")
	}
	b, err := appendCompact(make([]byte, 0, len(v)), v)
	if err != nil {
		return nil, fmt.Errorf("endpoint: turn messages: %w", err)
	}
	return b, nil
}

// appendTurnMessage appends the message of turn t: {"role":…,"content":…}.
// One text and no media give a plain string content. Otherwise content is a
// list of parts, empty strings skipped: text parts, then
// {"type":"image_url","image_url":{"url":u}}, then
// {"type":"input_audio","input_audio":{"data":b64,"format":fmt}}, then
// {"type":"video_url","video_url":{"url":u}}. An audio is "<fmt>,<b64>" or a
// data:audio/<fmt>;base64,<b64> URL; one without a comma is an error.
func appendTurnMessage(b []byte, t *dataset.Turn) ([]byte, error) {
	role := t.Role
	if role == "" {
		role = "user"
	}
	b = append(b, `{"role":`...)
	b = pyjson.AppendString(b, role)
	b = append(b, `,"content":`...)
	if len(t.Texts) == 1 && len(t.Images) == 0 && len(t.Audios) == 0 && len(t.Videos) == 0 {
		b = pyjson.AppendString(b, t.Texts[0])
		return append(b, '}'), nil
	}
	// An empty parts list stays [], as this package has always sent; newer
	// AIPerf sends "" instead.
	b = append(b, '[')
	n := 0
	for _, s := range t.Texts {
		if s != "" {
			b = append(sep(b, n), `{"type":"text","text":`...)
			b = append(pyjson.AppendString(b, s), '}')
			n++
		}
	}
	for _, u := range t.Images {
		if u != "" {
			b = append(sep(b, n), `{"type":"image_url","image_url":{"url":`...)
			b = append(pyjson.AppendString(b, u), "}}"...)
			n++
		}
	}
	for i, a := range t.Audios {
		if a == "" {
			continue
		}
		format, data, err := splitAudio(a)
		if err != nil {
			return b, fmt.Errorf("endpoint: turn audio %d: %w", i, err)
		}
		b = append(sep(b, n), `{"type":"input_audio","input_audio":{"data":`...)
		b = pyjson.AppendString(b, data)
		b = append(b, `,"format":`...)
		b = append(pyjson.AppendString(b, format), "}}"...)
		n++
	}
	for _, u := range t.Videos {
		if u != "" {
			b = append(sep(b, n), `{"type":"video_url","video_url":{"url":`...)
			b = append(pyjson.AppendString(b, u), "}}"...)
			n++
		}
	}
	return append(b, "]}"...), nil
}

// splitAudio splits "<fmt>,<b64>", or a data:audio/<fmt>;base64,<b64> URL
// (format "wav" when the URL names none), into format and data.
func splitAudio(a string) (format, data string, err error) {
	head, data, ok := strings.Cut(a, ",")
	if !ok {
		return "", "", fmt.Errorf("want \"format,base64\", got %d bytes without a comma", len(a))
	}
	if rest, isURL := strings.CutPrefix(head, "data:audio/"); isURL {
		format, _, _ = strings.Cut(rest, ";")
		if format == "" {
			format = "wav"
		}
		return format, data, nil
	}
	return head, data, nil
}

// turnLen is the byte length of the turn's texts and media, to size buffers.
func turnLen(t *dataset.Turn) int {
	n := textsLen(t.Texts) + textsLen(t.Images) + textsLen(t.Audios) + textsLen(t.Videos)
	if k := len(t.Texts) + len(t.Images) + len(t.Audios) + len(t.Videos); k > 1 {
		n += 48 * k
	}
	return n
}
