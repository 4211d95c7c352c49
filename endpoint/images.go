package endpoint

import (
	"errors"
	"net/http"

	"github.com/valyala/fastjson"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/internal/pyjson"
	"github.com/aiperf-go/aiperf/record"
)

// image_generation is OpenAI's image generation API (AIPerf's
// ImageGenerationEndpoint), also served by SGLang: POST
// /v1/images/generations, streamed as server-sent events when asked to.
func init() {
	Register(Endpoint{Name: "image_generation", Path: "/v1/images/generations", Title: "Image Generation Metrics",
		SupportsStreaming: true, TokenizesInput: true, ProducesImages: true}, imageCodec{})
}

// imageCodec builds and parses image_generation requests.
type imageCodec struct{}

var _ Codec = imageCodec{}

// errNoPrompt is the error of an image or video turn without text.
var errNoPrompt = errors.New("endpoint: the turn has no text prompt")

// Members appends {"prompt": the turn's first text, "model",
// "response_format":"b64_json", "n":1, ["stream":true]} in that order, as
// AIPerf builds it (SGLang answers only b64_json; --extra-inputs
// response_format:url overrides it in place, like size, quality,
// output_format, background or partial_images). A turn without text is an
// error.
func (imageCodec) Members(members []Member, t *dataset.Turn, _ *Context, streaming bool) ([]Member, error) {
	if len(t.Texts) == 0 {
		return nil, errNoPrompt
	}
	members = append(members,
		Member{"prompt", pyjson.AppendString(nil, t.Texts[0])},
		Member{"model", pyjson.AppendString(nil, t.Model)},
		Member{"response_format", []byte(`"b64_json"`)},
		Member{"n", []byte("1")})
	if streaming {
		members = append(members, Member{"stream", []byte("true")})
	}
	return members, nil
}

// Parse reads an image generation body or stream event as AIPerf does. A
// stream event (image_generation.partial_image or
// image_generation.completed) has "b64_json" and gives one image, even
// when it is null; a body gives one per object of its "data" list (url,
// b64_json and revised_prompt are not kept). usage, in any of the shapes
// AIPerf reads (input_tokens, output_tokens, …), is kept. Every other
// non-empty object still gives a response (Media, zero images), since
// AIPerf counts it as content; an empty object gives ok=false. An "error"
// object or non-empty string gives a *ServerError (AIPerf has no such
// check: a 200 carrying an error would count as a success); a body that
// is not an object, or a "data" that is not a list, is an error.
func (imageCodec) Parse(v *fastjson.Value) (resp record.Response, ok bool, err error) {
	o, err := v.Object()
	if err != nil {
		return resp, false, errors.New("endpoint: parse response: " + v.Type().String() + " is not an object")
	}
	if o.Len() == 0 {
		return resp, false, nil
	}
	if ev := present(v.Get("error")); ev != nil && (ev.Type() == fastjson.TypeObject || len(ev.GetStringBytes()) > 0) {
		return resp, false, serverError(v)
	}
	out := resp.Out()
	out.Media = true
	if v.Exists("b64_json") {
		out.Images = 1
	} else {
		data, err := array(v, "data")
		if err != nil {
			return record.Response{}, false, err
		}
		for _, item := range data {
			if item.Type() == fastjson.TypeObject {
				out.Images++
			}
		}
	}
	if resp.Usage, err = openUsage(present(v.Get("usage"))); err != nil {
		return record.Response{}, false, err
	}
	return resp, true, nil
}

// Authorize sets "Authorization: Bearer <key>" when key is not empty.
func (imageCodec) Authorize(h http.Header, key string) {
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
}
