package mockserver

import (
	"slices"
	"sync"
	"time"
)

// EventKind says what a sent event carried.
type EventKind uint8

// Event kinds, in the order a stream sends them.
const (
	// EventRole is the role-only first chat chunk.
	EventRole EventKind = iota + 1
	// EventReasoning is a chunk of reasoning_content tokens.
	EventReasoning
	// EventContent is a chunk of content (or completion text) tokens.
	EventContent
	// EventMalformed is an injected "data: {not json" event.
	EventMalformed
	// EventUsage is the trailing usage chunk with empty choices.
	EventUsage
	// EventDone is "data: [DONE]".
	EventDone
	// EventBody is a whole non-streaming response body.
	EventBody
	// EventError is an injected error response.
	EventError
	// EventReset is the moment the connection was reset.
	EventReset
)

var eventKindNames = [...]string{"", "role", "reasoning", "content", "malformed", "usage", "done", "body", "error", "reset"}

// String returns the kind's lower-case name.
func (k EventKind) String() string {
	if int(k) < len(eventKindNames) {
		return eventKindNames[k]
	}
	return "unknown"
}

// Event is one write of a response.
type Event struct {
	Kind EventKind
	// Tokens is the number of tokens the event carries (reasoning or
	// content events, and bodies); 0 for the others.
	Tokens int
	// At is taken just before the event is written and flushed, so a
	// client that has received the event finds it in the timeline. It
	// carries a monotonic reading.
	At time.Time
}

// Timeline is the server-side record of one request: the ground truth
// against which a client's TTFT and ITL can be checked.
type Timeline struct {
	// RequestID is the request's X-Request-ID header.
	RequestID string
	// Path is the request's URL path.
	Path string
	// Arrival is when the handler started, before the body was read.
	Arrival time.Time
	// CorrelationID is the request's X-Correlation-ID header.
	CorrelationID string
	// Body is the request body as received.
	Body []byte
	// Events are the response's writes in order.
	Events []Event
}

// TokenEvents returns the events that carry tokens (reasoning, content,
// or a non-streaming body), in order.
func (t Timeline) TokenEvents() []Event {
	var out []Event
	for _, e := range t.Events {
		if e.Kind == EventReasoning || e.Kind == EventContent || e.Kind == EventBody {
			out = append(out, e)
		}
	}
	return out
}

// TTFT returns the delay from arrival to the first token event; ok is
// false if none was sent.
func (t Timeline) TTFT() (d time.Duration, ok bool) {
	ev := t.TokenEvents()
	if len(ev) == 0 {
		return 0, false
	}
	return ev[0].At.Sub(t.Arrival), true
}

// ITLs returns the gaps between consecutive token events; empty if fewer
// than two were sent.
func (t Timeline) ITLs() []time.Duration {
	ev := t.TokenEvents()
	var out []time.Duration
	for i := 1; i < len(ev); i++ {
		out = append(out, ev[i].At.Sub(ev[i-1].At))
	}
	return out
}

// timelines stores timelines by request ID.
type timelines struct {
	mu   sync.Mutex
	byID map[string]*Timeline
}

// start creates and stores the timeline of a request, replacing an earlier
// one with the same ID.
func (ts *timelines) start(id, path string, arrival time.Time) *recorder {
	t := &Timeline{RequestID: id, Path: path, Arrival: arrival}
	ts.mu.Lock()
	if ts.byID == nil {
		ts.byID = make(map[string]*Timeline)
	}
	ts.byID[id] = t
	ts.mu.Unlock()
	return &recorder{ts: ts, t: t}
}

// get returns a deep copy of the timeline of id.
func (ts *timelines) get(id string) (Timeline, bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t, ok := ts.byID[id]
	if !ok {
		return Timeline{}, false
	}
	c := *t
	c.Events = slices.Clone(t.Events)
	return c, true
}

// recorder appends the events of one request; a nil recorder records
// nothing.
type recorder struct {
	ts *timelines
	t  *Timeline
}

// setRequest records the request's correlation id and a copy of its body.
func (r *recorder) setRequest(correlationID string, body []byte) {
	if r == nil {
		return
	}
	r.ts.mu.Lock()
	r.t.CorrelationID, r.t.Body = correlationID, slices.Clone(body)
	r.ts.mu.Unlock()
}

// add records an event of the given kind sent now.
func (r *recorder) add(kind EventKind, tokens int) {
	if r == nil {
		return
	}
	now := time.Now()
	r.ts.mu.Lock()
	r.t.Events = append(r.t.Events, Event{Kind: kind, Tokens: tokens, At: now})
	r.ts.mu.Unlock()
}

// all returns deep copies of every timeline, by request ID.
func (ts *timelines) all() map[string]Timeline {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	out := make(map[string]Timeline, len(ts.byID))
	for id, t := range ts.byID {
		c := *t
		c.Events = slices.Clone(t.Events)
		out[id] = c
	}
	return out
}
