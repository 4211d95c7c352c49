// Package dataset builds the conversations a run sends: synthetic prompts
// from the embedded corpus, custom files (package dataset/custom) and public
// datasets.
package dataset

import "encoding/json"

// Context modes say how a conversation's turns become request histories
// (reference §4.7).
const (
	// DeltasWithoutResponses: each turn is new user content; a request
	// carries every previous turn plus the live assistant replies.
	DeltasWithoutResponses = "deltas_without_responses"
	// MessageArrayWithResponses: each turn already holds its full context
	// and is sent verbatim, with no accumulation.
	MessageArrayWithResponses = "message_array_with_responses"
	// DeltasWithResponses: deltas that carry canned assistant turns; the
	// live reply is discarded.
	DeltasWithResponses = "deltas_with_responses"
)

// Turn is one request of a conversation, before it becomes a wire payload.
type Turn struct {
	// Role is the message role, "user" by default.
	Role string
	// Texts are the prompt texts of the turn (more than one with batching).
	Texts []string
	// Lazy, when not nil, is the turn's one prompt text, produced only when
	// a request is built (see LazyText); Texts is nil then. Readers go
	// through Resolved.
	Lazy LazyText `json:"-"`
	// Query and Passages are the named texts of a rankings turn; Texts is
	// empty then.
	Query    string
	Passages []string
	// Images are image URLs or data URLs ("data:image/png;base64,…").
	Images []string
	// Audios are "<format>,<base64>" strings (format wav or mp3).
	Audios []string
	// Videos are video URLs or data URLs.
	Videos []string
	// Model is the model name for this turn.
	Model string
	// MaxTokens is the requested output length, or 0 for none.
	MaxTokens int
	// InputTokens is the client-side token count of the turn's texts joined
	// with " ", as AIPerf computes ISL.
	InputTokens int
	// DelayMS is the wait after the previous turn's reply (later turns), or
	// before sending (single-turn rows with a delay).
	DelayMS float64
	// TimestampMS is the absolute schedule time of the turn, in ms from the
	// start of the schedule; meaningful only when HasTimestamp.
	TimestampMS  float64
	HasTimestamp bool
	// Extra is a JSON object shallow-merged into the top of the request
	// body after --extra-inputs (it wins); nil for none.
	Extra json.RawMessage
	// Messages is a verbatim OpenAI message list sent instead of Texts
	// (mooncake "messages"); nil for none.
	Messages json.RawMessage
	// Tools is a verbatim OpenAI tools list sent with Messages; nil for none.
	Tools json.RawMessage
	// Payload is a verbatim request body sent as is (mooncake "payload",
	// raw_payload); nil for none. Model, streaming and extras are not
	// applied to it.
	Payload json.RawMessage
}

// LazyText is a prompt kept in a compact form, such as references to the
// shared token blocks of a trace, and produced when a request is built: a
// long trace's prompts need not all be in memory at once.
type LazyText interface {
	// Text returns the prompt: the same text on every call. It is safe for
	// concurrent use.
	Text() string
	// Len returns the byte length of Text, or an estimate of it when
	// knowing it exactly would mean producing the text.
	Len() int
}

// Resolved returns t when it has no Lazy text, else a copy of t whose
// Texts hold the produced text.
func (t *Turn) Resolved() *Turn {
	if t.Lazy == nil {
		return t
	}
	c := *t
	c.Texts, c.Lazy = []string{t.Lazy.Text()}, nil
	return &c
}

// TextLen returns the byte length of the turn's prompt texts (estimated
// for a Lazy text; see LazyText.Len).
func (t *Turn) TextLen() int {
	if t.Lazy != nil {
		return t.Lazy.Len()
	}
	n := 0
	for _, s := range t.Texts {
		n += len(s)
	}
	return n
}

// Conversation is one session: a dataset id and its turns in order.
type Conversation struct {
	SessionID string
	Turns     []Turn
	// SystemPrompt, when not empty, is sent as a leading system message on
	// chat endpoints (shared system prompt, or a leading system turn).
	SystemPrompt string
	// UserContext, when not empty, is sent as a leading user message before
	// the turns (--user-context-prompt-length).
	UserContext string
	// ContextMode is one of the context mode constants; empty means
	// DeltasWithoutResponses.
	ContextMode string
}

// Dataset is what a source hands the runner: the conversations and the
// defaults the source implies.
type Dataset struct {
	Conversations []Conversation
	// Sampling is the source's default sampling strategy (Sampling*
	// constants), used when the user gave none.
	Sampling string
	// Timed reports that the first turn carries a timestamp, which
	// auto-enables fixed-schedule replay (§4.2).
	Timed bool
}
