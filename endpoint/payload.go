package endpoint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/pyjson"
)

// Options are the run-wide settings that shape every request body.
type Options struct {
	// Streaming asks for an SSE response; ignored by endpoints that do not
	// support streaming.
	Streaming bool
	// LegacyMaxTokens sends chat's limit as max_tokens instead of
	// max_completion_tokens (--use-legacy-max-tokens).
	LegacyMaxTokens bool
	// Extra are the --extra-inputs fields, shallow-merged into the body: a
	// key already in the body has its value replaced in place, a new key is
	// appended; for a key given twice the last value wins.
	Extra []Field
}

// member is one top-level key of a body being built, its value already
// encoded.
type member struct {
	key   string
	value []byte
}

// Payload returns the exact JSON body sent for turn t: compact, keys in
// AIPerf's order, strings escaped as AIPerf does (see appendString). A nil o
// means the zero Options. It returns an error for an endpoint not obtained
// from Lookup or an extra field whose value is not valid JSON.
//
// The bodies, before the extra fields are merged in:
//
//	chat:        {"messages":[{"role":…,"content":…}],"model":…,"stream":…,
//	              ["max_completion_tokens"|"max_tokens"],["stream_options"]}
//	completions: {"prompt":…,"model":…,"stream":…,["max_tokens"],["stream_options"]}
//	embeddings:  {"model":…,"input":[texts]}
//
// Max tokens are sent only when t.MaxTokens > 0 (embeddings ignore them);
// stream_options is {"include_usage":true}, sent only when streaming. The
// chat role is t.Role, or "user" when empty. One text gives a plain string
// content (or prompt); several give a list (chat: text parts, empty ones
// skipped).
func (e *Endpoint) Payload(t *dataset.Turn, o *Options) ([]byte, error) {
	if o == nil {
		o = &Options{}
	}
	streaming := o.Streaming && e.SupportsStreaming
	var scratch [5]member
	members := scratch[:0]
	switch e.Name {
	case "chat":
		members = append(members, member{"messages", chatMessages(t)})
		members = appendModelStream(members, t.Model, streaming)
		if t.MaxTokens > 0 {
			key := "max_completion_tokens"
			if o.LegacyMaxTokens {
				key = "max_tokens"
			}
			members = append(members, member{key, strconv.AppendInt(nil, int64(t.MaxTokens), 10)})
		}
	case "completions":
		members = append(members, member{"prompt", prompt(t.Texts)})
		members = appendModelStream(members, t.Model, streaming)
		if t.MaxTokens > 0 {
			members = append(members, member{"max_tokens", strconv.AppendInt(nil, int64(t.MaxTokens), 10)})
		}
	case "embeddings":
		members = append(members, member{"model", pyjson.AppendString(nil, t.Model)})
		members = append(members, member{"input", stringList(nil, t.Texts)})
	default:
		return nil, fmt.Errorf("endpoint: no payload for type %q", e.Name)
	}
	if streaming {
		members = append(members, member{"stream_options", []byte(`{"include_usage":true}`)})
	}
	return writeObject(members, o.Extra)
}

func appendModelStream(members []member, model string, streaming bool) []member {
	stream := []byte("false")
	if streaming {
		stream = []byte("true")
	}
	return append(members, member{"model", pyjson.AppendString(nil, model)}, member{"stream", stream})
}

// chatMessages encodes the one-message list of a turn.
func chatMessages(t *dataset.Turn) []byte {
	role := t.Role
	if role == "" {
		role = "user"
	}
	b := append(make([]byte, 0, 64+textsLen(t.Texts)), `[{"role":`...)
	b = pyjson.AppendString(b, role)
	b = append(b, `,"content":`...)
	if len(t.Texts) == 1 {
		b = pyjson.AppendString(b, t.Texts[0])
	} else {
		// AIPerf skips empty content parts.
		b = append(b, '[')
		first := true
		for _, s := range t.Texts {
			if s == "" {
				continue
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, `{"type":"text","text":`...)
			b = pyjson.AppendString(b, s)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, "}]"...)
}

// prompt encodes completions' prompt: a string for one text, else a list.
func prompt(texts []string) []byte {
	if len(texts) == 1 {
		return pyjson.AppendString(make([]byte, 0, 2+len(texts[0])), texts[0])
	}
	return stringList(nil, texts)
}

func stringList(b []byte, texts []string) []byte {
	if b == nil {
		b = make([]byte, 0, 2+textsLen(texts)+3*len(texts))
	}
	b = append(b, '[')
	for i, s := range texts {
		if i > 0 {
			b = append(b, ',')
		}
		b = pyjson.AppendString(b, s)
	}
	return append(b, ']')
}

func textsLen(texts []string) int {
	n := 0
	for _, s := range texts {
		n += len(s)
	}
	return n
}

// writeObject writes members and then extra as one JSON object with the
// shallow-merge rule of Options.Extra.
func writeObject(members []member, extra []Field) ([]byte, error) {
	size := 2
	for _, m := range members {
		size += len(m.key) + len(m.value) + 4
	}
	for _, f := range extra {
		size += len(f.Key) + len(f.Value) + 4
	}
	buf := bytes.NewBuffer(make([]byte, 0, size))
	buf.WriteByte('{')
	n := 0
	writeKey := func(key string) {
		if n > 0 {
			buf.WriteByte(',')
		}
		n++
		buf.Write(pyjson.AppendString(buf.AvailableBuffer(), key))
		buf.WriteByte(':')
	}
	writeExtra := func(f *Field) error {
		if err := json.Compact(buf, f.Value); err != nil {
			return fmt.Errorf("endpoint: extra field %q: %w", f.Key, err)
		}
		return nil
	}
	for _, m := range members {
		writeKey(m.key)
		if f := lastField(extra, m.key); f != nil {
			if err := writeExtra(f); err != nil {
				return nil, err
			}
			continue
		}
		buf.Write(m.value)
	}
	for i := range extra {
		key := extra[i].Key
		if hasMember(members, key) || lastField(extra[:i], key) != nil {
			continue // already written in its first position
		}
		writeKey(key)
		if err := writeExtra(lastField(extra, key)); err != nil {
			return nil, err
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// lastField returns the last field called key, or nil.
func lastField(fields []Field, key string) *Field {
	for i := len(fields) - 1; i >= 0; i-- {
		if fields[i].Key == key {
			return &fields[i]
		}
	}
	return nil
}

func hasMember(members []member, key string) bool {
	for _, m := range members {
		if m.key == key {
			return true
		}
	}
	return false
}
