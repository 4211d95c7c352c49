package endpoint

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/valyala/fastjson"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/internal/pyjson"
	"github.com/aiperf-go/aiperf/record"
)

// tgi is the Hugging Face Text Generation Inference type
// (huggingface_generate): POST /generate, or /generate_stream when
// streaming.
type tgi struct{}

func init() {
	Register(Endpoint{Name: "huggingface_generate", Path: "/generate", StreamPath: "/generate_stream",
		Title: "LLM Metrics", SupportsStreaming: true, ProducesTokens: true, TokenizesInput: true}, tgi{})
}

var _ Codec = tgi{}

// Members builds {"inputs": texts joined by spaces, "parameters":
// {["max_new_tokens"], …--extra-inputs}} as AIPerf does: the run's
// --extra-inputs go inside parameters (merged by the rule of
// Options.Extra), while the turn's Extra is merged at the top level
// afterwards by the caller (tgi is a runExtraOwner). The system prompt,
// history, media and Messages are not sent.
func (tgi) Members(members []Member, t *dataset.Turn, c *Context, _ bool) ([]Member, error) {
	inputs := pyjson.AppendString(nil, strings.Join(nonEmpty(t.Texts), " "))
	var params []Member
	if t.MaxTokens > 0 {
		params = append(params, Member{"max_new_tokens", strconv.AppendInt(nil, int64(t.MaxTokens), 10)})
	}
	p, err := writeObject(params, c.Options.Extra)
	if err != nil {
		return nil, fmt.Errorf("endpoint: huggingface_generate parameters: %w", err)
	}
	return append(members, Member{"inputs", inputs}, Member{"parameters", p}), nil
}

func (tgi) ownsRunExtra() {}

// Authorize sets "Authorization: Bearer <key>" when key is not empty.
func (tgi) Authorize(h http.Header, key string) {
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
}

// Parse reads a TGI body or stream event. A stream event (it has "token")
// gives token.text, never generated_text, which repeats the whole text on
// the last event; its details.generated_tokens, when present, is the
// completion token count. A body is {"generated_text":…} or a list whose
// first item is one. An error object gives a *ServerError; anything else
// without text gives ok=false.
func (tgi) Parse(v *fastjson.Value) (resp record.Response, ok bool, err error) {
	if v.Type() == fastjson.TypeArray {
		a, _ := v.Array()
		if len(a) == 0 {
			return resp, false, nil
		}
		v = a[0]
	}
	if v.Type() != fastjson.TypeObject {
		return resp, false, fmt.Errorf("endpoint: parse response: %s is not an object", v.Type())
	}
	if ev := present(v.Get("error")); ev != nil {
		return resp, false, serverError(v)
	}
	if tok := present(v.Get("token")); tok != nil {
		if tok.Type() != fastjson.TypeObject {
			return resp, false, fmt.Errorf("endpoint: parse response: field \"token\" is %s, not an object", tok.Type())
		}
		if resp.Text, err = str(tok, "text"); err != nil {
			return record.Response{}, false, err
		}
	} else if resp.Text, err = str(v, "generated_text"); err != nil {
		return record.Response{}, false, err
	}
	if d := present(v.Get("details")); d != nil && d.Type() == fastjson.TypeObject {
		n, err := count(d, "generated_tokens")
		if err != nil {
			return record.Response{}, false, err
		}
		if n != nil {
			resp.Usage = &record.Usage{CompletionTokens: n}
		}
	}
	return resp, resp.Text != "" || resp.Usage != nil, nil
}
