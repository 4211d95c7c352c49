package endpoint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/internal/pyjson"
)

// Options are the run-wide settings that shape every request body.
type Options struct {
	// Streaming asks for an SSE response; ignored by endpoints that do not
	// support streaming.
	Streaming bool
	// LegacyMaxTokens sends chat's limit as max_tokens instead of
	// max_completion_tokens (--use-legacy-max-tokens).
	LegacyMaxTokens bool
	// Backend is the Triton backend whose input tensors the kserve type
	// sends (--backend: BackendTensorRTLLM, the default, or BackendVLLM);
	// other types ignore it.
	Backend string
	// Extra are the --extra-inputs fields, shallow-merged into the body: a
	// key already in the body has its value replaced in place, a new key is
	// appended; for a key given twice the last value wins.
	Extra []Field
}

// Member is one top-level key of a body being built, its value already
// encoded as compact JSON.
type Member struct {
	Key   string
	Value []byte
}

// Context is what a codec may use of a turn's conversation besides the
// turn itself.
type Context struct {
	// SystemPrompt is the conversation's system prompt ("" for none).
	SystemPrompt string
	// UserContext is the conversation's user-context prompt ("" for none).
	UserContext string
	// Tools is the tools list to send (the turn's, or in accumulating
	// modes the latest earlier turn's), nil for none.
	Tools json.RawMessage
	// History holds the encoded chat message objects of the session's
	// earlier turns (see Request), when the context mode accumulates.
	History []json.RawMessage
	// Options are the run-wide settings (never nil).
	Options *Options
}

// Payload returns the exact JSON body for a turn sent on its own: Request
// over a one-turn conversation with no system prompt, user context or
// history. A nil o means the zero Options.
func (e *Endpoint) Payload(t *dataset.Turn, o *Options) ([]byte, error) {
	return e.body(t, &chatContext{tools: t.Tools}, o)
}

// Request returns the exact JSON body for turn ti of conversation c:
// compact, keys in AIPerf's order, strings escaped as AIPerf's json.dumps
// does. history holds the encoded chat message objects of the session's
// earlier turns, in order (user messages from UserMessage, assistant replies
// from AssistantMessage); it is used only by chat in the context modes that
// accumulate (all but MessageArrayWithResponses) and ignored otherwise. A
// history entry that is a JSON array (UserMessage of a turn with Messages)
// contributes its items; an empty entry contributes nothing. A nil o means
// the zero Options.
//
// The bodies, before --extra-inputs (o.Extra) and then the turn's Extra
// object are shallow-merged in (see Options.Extra; the turn's keys win):
//
//	chat:            {"messages":[…],"model":…,"stream":…,["tools"],
//	                  ["max_completion_tokens"|"max_tokens"],["stream_options"]}
//	completions:     {"prompt":…,"model":…,"stream":…,["max_tokens"],["stream_options"]}
//	embeddings:      {"model":…,"input":[texts]}
//	nim_embeddings:  {"model":…,"input":[texts, or "<text> <img src='url'/>"]}
//	nim_rankings:    {"model":…,"query":{"text":q},"passages":[{"text":p},…]}
//	hf_tei_rankings: {"query":q,"texts":[p,…]}
//	cohere_rankings: {"model":…,"query":q,"documents":[p,…]}
//
// A turn's Lazy text is produced here and sent as its one text.
//
// A turn with Payload is sent as that JSON, compacted, whatever the type:
// nothing is added. Chat messages are described at chatMessages; tools are
// the turn's Tools, or in accumulating modes those of the latest earlier turn
// that has some. Max tokens are sent only when MaxTokens > 0 (never by
// embeddings and rankings); stream_options is {"include_usage":true}, sent
// only when streaming. Completions send a string prompt for one text, else a
// list; they ignore history, system prompt, user context, media and Messages,
// as every non-chat type does. Rankings take the query from Query, or else
// Texts[0], and the passages from Passages, or else the remaining Texts.
//
// It returns an error for ti out of range, an endpoint not obtained from
// Lookup, JSON fields (Payload, Messages, Tools, Extra, history, o.Extra)
// that are not valid JSON, a turn Extra that is not an object, Messages that
// are not an array, an audio without a format, a rankings turn without a
// query, or a nim_embeddings turn whose texts and images differ in number.
func (e *Endpoint) Request(c *dataset.Conversation, ti int, history []json.RawMessage, o *Options) ([]byte, error) {
	if c == nil || ti < 0 || ti >= len(c.Turns) {
		n := 0
		if c != nil {
			n = len(c.Turns)
		}
		return nil, fmt.Errorf("endpoint: turn %d out of range (conversation of %d)", ti, n)
	}
	t := &c.Turns[ti]
	cc := chatContext{
		system:      c.SystemPrompt,
		userContext: c.UserContext,
		verbatim:    c.ContextMode == dataset.MessageArrayWithResponses,
		tools:       t.Tools,
	}
	if !cc.verbatim {
		cc.history = history
		for i := ti; cc.tools == nil && i > 0; i-- {
			cc.tools = c.Turns[i-1].Tools
		}
	}
	return e.body(t, &cc, o)
}

// body builds the request body of t, producing its Lazy text if it has
// one; cc is used by chat only.
func (e *Endpoint) body(t *dataset.Turn, cc *chatContext, o *Options) ([]byte, error) {
	t = t.Resolved()
	if t.Payload != nil {
		b, err := appendCompact(make([]byte, 0, len(t.Payload)), t.Payload)
		if err != nil {
			return nil, fmt.Errorf("endpoint: turn payload: %w", err)
		}
		return b, nil
	}
	if o == nil {
		o = &Options{}
	}
	runExtra := o.Extra
	if _, owns := e.codec.(runExtraOwner); owns {
		runExtra = nil
	}
	extra, err := mergeTurnExtra(runExtra, t.Extra)
	if err != nil {
		return nil, err
	}
	streaming := o.Streaming && e.SupportsStreaming
	var scratch [6]Member
	members := scratch[:0]
	switch e.Name {
	case "chat":
		messages, err := chatMessages(t, cc)
		if err != nil {
			return nil, err
		}
		members = append(members, Member{"messages", messages})
		members = appendModelStream(members, t.Model, streaming)
		if members, err = appendTools(members, cc.tools); err != nil {
			return nil, err
		}
		if t.MaxTokens > 0 {
			key := "max_completion_tokens"
			if o.LegacyMaxTokens {
				key = "max_tokens"
			}
			members = append(members, Member{key, strconv.AppendInt(nil, int64(t.MaxTokens), 10)})
		}
	case "completions":
		members = append(members, Member{"prompt", prompt(t.Texts)})
		members = appendModelStream(members, t.Model, streaming)
		if t.MaxTokens > 0 {
			members = append(members, Member{"max_tokens", strconv.AppendInt(nil, int64(t.MaxTokens), 10)})
		}
	case "embeddings":
		members = append(members, Member{"model", pyjson.AppendString(nil, t.Model)})
		members = append(members, Member{"input", stringList(nil, t.Texts)})
	case "nim_embeddings":
		input, err := nimEmbeddingsInput(t)
		if err != nil {
			return nil, err
		}
		members = append(members, Member{"model", pyjson.AppendString(nil, t.Model)})
		members = append(members, Member{"input", input})
	case "nim_rankings", "hf_tei_rankings", "cohere_rankings":
		if members, err = e.rankingsMembers(members, t); err != nil {
			return nil, err
		}
	default:
		if e.codec == nil {
			return nil, fmt.Errorf("endpoint: no payload for type %q", e.Name)
		}
		c := &Context{SystemPrompt: cc.system, UserContext: cc.userContext, History: cc.history, Tools: cc.tools, Options: o}
		if members, err = e.codec.Members(members, t, c, streaming); err != nil {
			return nil, err
		}
		return writeObject(members, extra)
	}
	if streaming {
		members = append(members, Member{"stream_options", []byte(`{"include_usage":true}`)})
	}
	return writeObject(members, extra)
}

// runExtraOwner is implemented by a Codec that places the run's
// --extra-inputs itself (in Members) instead of at the top level; the
// turn's Extra is still merged at the top level.
type runExtraOwner interface{ ownsRunExtra() }

// appendTools appends the "tools" member, compacted, when tools is not
// nil.
func appendTools(members []Member, tools json.RawMessage) ([]Member, error) {
	if tools == nil {
		return members, nil
	}
	b, err := appendCompact(nil, tools)
	if err != nil {
		return nil, fmt.Errorf("endpoint: turn tools: %w", err)
	}
	return append(members, Member{"tools", b}), nil
}

// mergeTurnExtra returns the extra fields of one request: the run's, then
// the turn's object members (which win under writeObject's rule). It
// returns run itself when the turn has none.
func mergeTurnExtra(run []Field, turn json.RawMessage) ([]Field, error) {
	turn = bytes.TrimSpace(turn)
	if len(turn) == 0 || string(turn) == "null" {
		return run, nil
	}
	fields, err := parseObject(string(turn))
	if err != nil {
		return nil, fmt.Errorf("endpoint: turn extra: %w", err)
	}
	merged := make([]Field, 0, len(run)+len(fields))
	return append(append(merged, run...), fields...), nil
}

func appendModelStream(members []Member, model string, streaming bool) []Member {
	stream := []byte("false")
	if streaming {
		stream = []byte("true")
	}
	return append(members, Member{"model", pyjson.AppendString(nil, model)}, Member{"stream", stream})
}

// prompt encodes completions' prompt: a string for one text, else a list.
func prompt(texts []string) []byte {
	if len(texts) == 1 {
		return pyjson.AppendString(make([]byte, 0, 2+len(texts[0])), texts[0])
	}
	return stringList(nil, texts)
}

// nimEmbeddingsInput encodes nim_embeddings' input list (empty texts and
// images dropped): the texts; or, with images, "<img src='url'/>" per image,
// each prefixed by its text and a space when there are texts, which must
// then be as many as the images.
func nimEmbeddingsInput(t *dataset.Turn) ([]byte, error) {
	texts := nonEmpty(t.Texts)
	images := nonEmpty(t.Images)
	if len(images) == 0 {
		return stringList(nil, texts), nil
	}
	if len(texts) > 0 && len(texts) != len(images) {
		return nil, fmt.Errorf("endpoint: nim_embeddings: %d texts and %d images; with both, want as many of each", len(texts), len(images))
	}
	inputs := make([]string, len(images))
	for i, u := range images {
		if len(texts) > 0 {
			inputs[i] = texts[i] + " <img src='" + u + "'/>"
		} else {
			inputs[i] = "<img src='" + u + "'/>"
		}
	}
	return stringList(nil, inputs), nil
}

// nonEmpty returns the non-empty strings of ss (ss itself when all are).
func nonEmpty(ss []string) []string {
	for i, s := range ss {
		if s == "" {
			out := append([]string(nil), ss[:i]...)
			for _, s := range ss[i+1:] {
				if s != "" {
					out = append(out, s)
				}
			}
			return out
		}
	}
	return ss
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

// appendCompact appends src to b with insignificant space removed, or
// returns an error when src is not valid JSON.
func appendCompact(b []byte, src []byte) ([]byte, error) {
	buf := bytes.NewBuffer(b)
	if err := json.Compact(buf, src); err != nil {
		return b, err
	}
	return buf.Bytes(), nil
}

// writeObject writes members and then extra as one JSON object with the
// shallow-merge rule of Options.Extra.
func writeObject(members []Member, extra []Field) ([]byte, error) {
	size := 2
	for _, m := range members {
		size += len(m.Key) + len(m.Value) + 4
	}
	for _, f := range extra {
		size += len(f.Key) + len(f.Value) + 4
	}
	b := append(make([]byte, 0, size), '{')
	n := 0
	var err error
	for _, m := range members {
		b = appendKey(b, n, m.Key)
		n++
		if f := lastField(extra, m.Key); f != nil {
			if b, err = appendExtra(b, f); err != nil {
				return nil, err
			}
			continue
		}
		b = append(b, m.Value...)
	}
	for i := range extra {
		key := extra[i].Key
		if hasMember(members, key) || lastField(extra[:i], key) != nil {
			continue // already written in its first position
		}
		b = appendKey(b, n, key)
		n++
		if b, err = appendExtra(b, lastField(extra, key)); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// appendKey appends the key of member n+1 of an object, with its comma.
func appendKey(b []byte, n int, key string) []byte {
	return append(pyjson.AppendString(sep(b, n), key), ':')
}

// appendExtra appends the compacted value of f.
func appendExtra(b []byte, f *Field) ([]byte, error) {
	b, err := appendCompact(b, f.Value)
	if err != nil {
		return nil, fmt.Errorf("endpoint: extra field %q: %w", f.Key, err)
	}
	return b, nil
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

func hasMember(members []Member, key string) bool {
	for _, m := range members {
		if m.Key == key {
			return true
		}
	}
	return false
}
