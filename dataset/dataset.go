// Package dataset builds the conversations a run sends: synthetic prompts
// from the embedded corpus today, custom files and public datasets later.
package dataset

// Turn is one request of a conversation, before it becomes a wire payload.
type Turn struct {
	// Role is the message role, "user" by default.
	Role string
	// Texts are the prompt texts of the turn (more than one with batching).
	Texts []string
	// Model is the model name for this turn.
	Model string
	// MaxTokens is the requested output length, or 0 for none.
	MaxTokens int
	// InputTokens is the client-side token count of the turn's texts joined
	// with " ", as AIPerf computes ISL.
	InputTokens int
	// DelayMS is the wait after the previous turn's reply (later turns only).
	DelayMS float64
}

// Conversation is one session: a dataset id and its turns in order.
type Conversation struct {
	SessionID string
	Turns     []Turn
}
