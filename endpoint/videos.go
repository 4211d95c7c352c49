package endpoint

import (
	"errors"
	"net/http"

	"github.com/valyala/fastjson"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/internal/pyjson"
	"github.com/aiperf-go/aiperf/record"
)

// video_generation is the OpenAI and SGLang video API (AIPerf's
// VideoGenerationEndpoint): an asynchronous job, submitted with POST
// /v1/videos and polled with GET /v1/videos/{id} (Endpoint.Polls).
func init() {
	Register(Endpoint{Name: "video_generation", Path: "/v1/videos", Title: "Video Generation Metrics",
		TokenizesInput: true, ProducesVideo: true, Polls: true}, videoCodec{})
}

// The statuses of a video job.
const (
	JobQueued     = "queued"
	JobInProgress = "in_progress"
	JobCompleted  = "completed"
	JobFailed     = "failed"
)

// videoCodec builds and parses video_generation requests.
type videoCodec struct{}

var _ Codec = videoCodec{}

// Members appends {"prompt": the turn's first text, "model"}, as AIPerf
// builds it; size, seconds, seed, num_inference_steps, guidance_scale,
// negative_prompt, fps and num_frames come from --extra-inputs. A turn
// without text is an error.
func (videoCodec) Members(members []Member, t *dataset.Turn, _ *Context, _ bool) ([]Member, error) {
	if len(t.Texts) == 0 {
		return nil, errNoPrompt
	}
	return append(members,
		Member{"prompt", pyjson.AppendString(nil, t.Texts[0])},
		Member{"model", pyjson.AppendString(nil, t.Model)}), nil
}

// Parse reads a video job object (the answer to the submission and to
// every poll) into resp.Video: id, status, inference_time_s,
// peak_memory_mb (numbers, or absent or null) and the message of a failed
// job's error (error.message, or the error itself when it is a string).
// Any non-empty object gives a response (Media), as in AIPerf; an empty
// one gives ok=false. An object with an "error" but neither "id" nor
// "status" is not a job: it gives a *ServerError. A body that is not an
// object, or a field of the wrong type, is an error.
func (videoCodec) Parse(v *fastjson.Value) (resp record.Response, ok bool, err error) {
	o, err := v.Object()
	if err != nil {
		return resp, false, errors.New("endpoint: parse response: " + v.Type().String() + " is not an object")
	}
	if o.Len() == 0 {
		return resp, false, nil
	}
	ev := present(v.Get("error"))
	if ev != nil && present(v.Get("id")) == nil && present(v.Get("status")) == nil {
		return resp, false, serverError(v)
	}
	j := &record.Video{}
	if j.ID, err = str(v, "id"); err != nil {
		return resp, false, err
	}
	if j.Status, err = str(v, "status"); err != nil {
		return resp, false, err
	}
	if j.InferenceTimeS, err = number(v, "inference_time_s"); err != nil {
		return resp, false, err
	}
	if j.PeakMemoryMB, err = number(v, "peak_memory_mb"); err != nil {
		return resp, false, err
	}
	if ev != nil {
		j.Error = serverError(v).Message
	}
	if resp.Usage, err = openUsage(present(v.Get("usage"))); err != nil {
		return resp, false, err
	}
	out := resp.Out()
	out.Media, out.Video = true, j
	return resp, true, nil
}

// number returns the numeric field key of v, or nil when absent or null.
func number(v *fastjson.Value, key string) (*float64, error) {
	f := present(v.Get(key))
	if f == nil {
		return nil, nil
	}
	n, err := f.Float64()
	if err != nil {
		return nil, errors.New("endpoint: parse response: field \"" + key + "\": " + err.Error())
	}
	return &n, nil
}

// Authorize sets "Authorization: Bearer <key>" when key is not empty.
func (videoCodec) Authorize(h http.Header, key string) {
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
}
