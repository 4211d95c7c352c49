package public

import (
	"encoding/json"
	"math/rand/v2"

	"github.com/aiperf-go/aiperf/dataset"
)

// entry is one element of the ShareGPT array. Decoding it fails with a
// *json.UnmarshalTypeError, which the reader treats as an entry without
// pairs, when the element is not an object or "conversations" not a list.
type entry struct {
	Conversations []message `json:"conversations"`
}

// message is one element of "conversations"; ok is false for an element
// that is not an object. From and Value are "" when absent or not strings.
type message struct {
	From, Value string
	ok          bool
}

func (m *message) UnmarshalJSON(b []byte) error {
	var raw struct {
		From  json.RawMessage `json:"from"`
		Value json.RawMessage `json:"value"`
	}
	if len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &raw) != nil {
		*m = message{}
		return nil
	}
	*m = message{From: str(raw.From), Value: str(raw.Value), ok: true}
	return nil
}

// str returns the JSON string in b, or "" when b is not a string.
func str(b json.RawMessage) string {
	var s string
	if len(b) == 0 || b[0] != '"' || json.Unmarshal(b, &s) != nil {
		return ""
	}
	return s
}

// pair is one prompt and its completion.
type pair struct{ prompt, completion string }

// pairs returns the entry's prompt/completion pairs as AIPerf's loader
// extracts them: among the object messages (at least 2 needed), when any is
// from "human" or "gpt", each adjacent human→gpt pair of the messages with
// those roles, skipping pairs with an empty value; otherwise the values of
// the first two messages as one pair, when both are non-empty.
func (e *entry) pairs() []pair {
	var msgs []message
	for _, m := range e.Conversations {
		if m.ok {
			msgs = append(msgs, m)
		}
	}
	if len(msgs) < 2 {
		return nil
	}
	var roles []message
	for _, m := range msgs {
		if m.From == "human" || m.From == "gpt" {
			roles = append(roles, m)
		}
	}
	if len(roles) == 0 {
		if msgs[0].Value == "" || msgs[1].Value == "" {
			return nil
		}
		return []pair{{msgs[0].Value, msgs[1].Value}}
	}
	var out []pair
	for i := 0; i < len(roles)-1; {
		if roles[i].From == "human" && roles[i+1].From == "gpt" {
			if roles[i].Value != "" && roles[i+1].Value != "" {
				out = append(out, pair{roles[i].Value, roles[i+1].Value})
			}
			i += 2
		} else {
			i++
		}
	}
	return out
}

// modelPicker assigns models to turns in order: round robin over the kept
// turns, or uniform draws from the run's seed.
type modelPicker struct {
	models []string
	rng    *rand.Rand // nil: round robin
	next   int
}

func newModelPicker(o *ShareGPTOptions) *modelPicker {
	p := &modelPicker{models: o.Models}
	if o.ModelStrategy == dataset.ModelRandom {
		p.rng = dataset.NewRand(o.Seed, "dataset.loader.sharegpt")
	}
	return p
}

func (p *modelPicker) pick() string {
	if p.rng != nil {
		return p.models[p.rng.IntN(len(p.models))]
	}
	m := p.models[p.next%len(p.models)]
	p.next++
	return m
}
