package endpoint

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/aiperf-go/aiperf/dataset"
)

// TestMediaGolden compares image_generation and video_generation bodies
// with testdata/media (-update rewrites): AIPerf's key order, the fixed
// response_format and n, stream only when streaming, --extra-inputs
// replacing a member in place or appended, the turn's extra last.
func TestMediaGolden(t *testing.T) {
	tests := []struct {
		golden, endpoint string
		turn             dataset.Turn
		opts             *Options
	}{
		{"image", "image_generation", dataset.Turn{Texts: []string{"a red fox", "ignored"}, Model: "flux"}, nil},
		{"image_stream", "image_generation", dataset.Turn{Texts: []string{escText}, Model: "flux", MaxTokens: 9}, &Options{Streaming: true}},
		{"image_extra", "image_generation", dataset.Turn{Texts: []string{"x"}, Model: "m", Extra: raw(`{"n":2}`)},
			&Options{Streaming: true, Extra: []Field{field("size", `"1024x1024"`), field("response_format", `"url"`), field("partial_images", "2")}}},
		{"video", "video_generation", dataset.Turn{Texts: []string{"a cat surfing"}, Model: "wan"}, &Options{Streaming: true}},
		{"video_extra", "video_generation", dataset.Turn{Texts: []string{"x"}, Model: "m", Extra: raw(`{"seed":7}`)},
			&Options{Extra: []Field{field("size", `"1280x720"`), field("seconds", "4"), field("model", `"other"`)}}},
	}
	for _, tc := range tests {
		t.Run(tc.golden, func(t *testing.T) {
			got, err := mustLookup(t, tc.endpoint).Payload(&tc.turn, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, filepath.Join("testdata", "media", tc.golden+".json"), got)
		})
	}
	for _, name := range []string{"image_generation", "video_generation"} {
		if _, err := mustLookup(t, name).Payload(&dataset.Turn{Model: "m"}, nil); !errors.Is(err, errNoPrompt) {
			t.Errorf("%s without text: %v", name, err)
		}
	}
}

// TestMediaMetadata: the endpoint table rows of AIPerf's plugins.yaml.
func TestMediaMetadata(t *testing.T) {
	img, vid := mustLookup(t, "image_generation"), mustLookup(t, "video_generation")
	if img.Path != "/v1/images/generations" || img.Title != "Image Generation Metrics" || !img.SupportsStreaming ||
		img.ProducesTokens || !img.TokenizesInput || !img.ProducesImages || img.Polls {
		t.Errorf("image_generation: %+v", img)
	}
	if vid.Path != "/v1/videos" || vid.Title != "Video Generation Metrics" || vid.SupportsStreaming ||
		vid.ProducesTokens || !vid.TokenizesInput || !vid.ProducesVideo || !vid.Polls {
		t.Errorf("video_generation: %+v", vid)
	}
}

// imageParseCases are image generation bodies and stream events.
var imageParseCases = []struct {
	name, data string
	images     int
	ok         bool
	prompt     int64 // usage prompt tokens, -1 for no usage
	err        string
}{
	{"partial", `{"type":"image_generation.partial_image","b64_json":"iVBO","partial_image_index":0,"size":"1024x1024"}`, 1, true, -1, ""},
	{"completed", `{"type":"image_generation.completed","b64_json":"iVBO","usage":{"total_tokens":100,"input_tokens":50,"output_tokens":50}}`, 1, true, 50, ""},
	{"null b64 counts", `{"b64_json":null}`, 1, true, -1, ""},
	{"body two", `{"created":1,"data":[{"b64_json":"a","revised_prompt":"p"},{"url":"https://x/y.png"}],"size":"1024x1024","quality":"low"}`, 2, true, -1, ""},
	{"body non-object items", `{"data":[1,{"url":"u"},null]}`, 1, true, -1, ""},
	{"empty data still content", `{"created":1,"data":[]}`, 0, true, -1, ""},
	{"other object still content", `{"type":"keepalive"}`, 0, true, -1, ""},
	{"empty object", `{}`, 0, false, -1, ""},
	{"done", `[DONE]`, 0, false, -1, ""},
	{"error object", `{"error":{"message":"safety","type":"invalid_request_error"}}`, 0, false, -1, "server"},
	{"data not list", `{"data":{"a":1}}`, 0, false, -1, "parse"},
	{"array", `[1]`, 0, false, -1, "parse"},
	{"bad usage", `{"b64_json":"a","usage":{"input_tokens":"x"}}`, 0, false, -1, "parse"},
}

func TestParseImages(t *testing.T) {
	e := mustLookup(t, "image_generation")
	for _, tc := range imageParseCases {
		t.Run(tc.name, func(t *testing.T) {
			resp, ok, err := e.Parse([]byte(tc.data))
			var se *ServerError
			switch {
			case tc.err == "server" && !errors.As(err, &se), tc.err == "parse" && (err == nil || errors.As(err, &se)), tc.err == "" && err != nil:
				t.Fatalf("err %v, want %s", err, tc.err)
			}
			if ok != tc.ok || resp.Images() != tc.images || (ok && !resp.HasContent()) {
				t.Errorf("ok %v images %d content %v, want %v %d", ok, resp.Images(), resp.HasContent(), tc.ok, tc.images)
			}
			if got := int64(-1); tc.prompt >= 0 {
				if resp.Usage != nil && resp.Usage.PromptTokens != nil {
					got = *resp.Usage.PromptTokens
				}
				if got != tc.prompt {
					t.Errorf("prompt tokens %d, want %d", got, tc.prompt)
				}
			}
		})
	}
}

// videoParseCases are video job objects.
var videoParseCases = []struct {
	name, data, id, status, jobErr string
	inference, memory              float64 // -1: absent
	ok                             bool
	err                            string
}{
	{"queued", `{"id":"video_1","object":"video","status":"queued","progress":0,"model":"wan","created_at":1}`, "video_1", "queued", "", -1, -1, true, ""},
	{"completed", `{"id":"v","status":"completed","inference_time_s":12.5,"peak_memory_mb":20480,"url":null}`, "v", "completed", "", 12.5, 20480, true, ""},
	{"null metrics", `{"id":"v","status":"completed","inference_time_s":null}`, "v", "completed", "", -1, -1, true, ""},
	{"failed", `{"id":"v","status":"failed","error":{"code":"x","message":"out of memory"}}`, "v", "failed", "out of memory", -1, -1, true, ""},
	{"failed string error", `{"id":"v","status":"failed","error":"boom"}`, "v", "failed", "boom", -1, -1, true, ""},
	{"no id", `{"object":"video"}`, "", "", "", -1, -1, true, ""},
	{"empty", `{}`, "", "", "", -1, -1, false, ""},
	{"error object", `{"error":{"message":"bad model"}}`, "", "", "", -1, -1, false, "server"},
	{"bad time", `{"id":"v","inference_time_s":"12"}`, "", "", "", -1, -1, false, "parse"},
	{"bad id", `{"id":3}`, "", "", "", -1, -1, false, "parse"},
	{"list", `[{"id":"v"}]`, "", "", "", -1, -1, false, "parse"},
}

func TestParseVideos(t *testing.T) {
	e := mustLookup(t, "video_generation")
	for _, tc := range videoParseCases {
		t.Run(tc.name, func(t *testing.T) {
			resp, ok, err := e.Parse([]byte(tc.data))
			var se *ServerError
			switch {
			case tc.err == "server" && !errors.As(err, &se), tc.err == "parse" && (err == nil || errors.As(err, &se)), tc.err == "" && err != nil:
				t.Fatalf("err %v, want %s", err, tc.err)
			}
			if ok != tc.ok {
				t.Fatalf("ok %v, want %v", ok, tc.ok)
			}
			if !ok {
				return
			}
			v := resp.Video()
			if v == nil || !resp.HasContent() {
				t.Fatalf("no job: %+v", resp)
			}
			num := func(p *float64) float64 {
				if p == nil {
					return -1
				}
				return *p
			}
			if v.ID != tc.id || v.Status != tc.status || v.Error != tc.jobErr || num(v.InferenceTimeS) != tc.inference || num(v.PeakMemoryMB) != tc.memory {
				t.Errorf("job %+v (%v, %v)", v, num(v.InferenceTimeS), num(v.PeakMemoryMB))
			}
		})
	}
}

// FuzzParseImages checks that the image parser never panics, gives no
// data with an error, and that a response always counts as content.
func FuzzParseImages(f *testing.F) {
	for _, tc := range imageParseCases {
		f.Add([]byte(tc.data))
	}
	e := mustLookup(f, "image_generation")
	f.Fuzz(func(t *testing.T, data []byte) {
		resp, ok, err := e.Parse(data)
		if err != nil && ok {
			t.Fatalf("ok with error %v", err)
		}
		if ok != resp.HasContent() || resp.Images() < 0 || resp.Text != "" || resp.Video() != nil {
			t.Fatalf("ok=%v for %+v", ok, resp)
		}
	})
}

// FuzzParseVideos checks that the video parser never panics, gives no
// data with an error, and gives a job with every response.
func FuzzParseVideos(f *testing.F) {
	for _, tc := range videoParseCases {
		f.Add([]byte(tc.data))
	}
	e := mustLookup(f, "video_generation")
	f.Fuzz(func(t *testing.T, data []byte) {
		resp, ok, err := e.Parse(data)
		if err != nil && ok {
			t.Fatalf("ok with error %v", err)
		}
		if ok != (resp.Video() != nil) || ok != resp.HasContent() || resp.Images() != 0 {
			t.Fatalf("ok=%v for %+v", ok, resp)
		}
	})
}
