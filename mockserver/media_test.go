package mockserver_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

func post(t *testing.T, url, body string) (int, []byte) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func get(t *testing.T, url string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// TestImagesMock: a body carries n valid PNGs and usage; a stream sends
// partial_images partial events, then the completed one; a body without a
// prompt is a 400.
func TestImagesMock(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{})
	u := srv.URL() + "/v1/images/generations"
	code, b := post(t, u, `{"prompt":"a fox","model":"m","response_format":"b64_json","n":2}`)
	var body struct {
		Data []struct {
			B64 string `json:"b64_json"`
		} `json:"data"`
		Usage map[string]any `json:"usage"`
	}
	if err := json.Unmarshal(b, &body); code != 200 || err != nil || len(body.Data) != 2 || body.Usage["input_tokens"] == nil {
		t.Fatalf("%d %v %s", code, err, b)
	}
	raw, err := base64.StdEncoding.DecodeString(body.Data[0].B64)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(raw)); err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	code, b = post(t, u, `{"prompt":"a fox","model":"m","stream":true,"partial_images":1}`)
	s := string(b)
	if code != 200 || strings.Count(s, "event: image_generation.partial_image\n") != 1 || strings.Count(s, "event: image_generation.completed\n") != 1 ||
		!strings.Contains(s, `"partial_image_index":0`) || strings.Index(s, "partial_image\n") > strings.Index(s, "completed\n") {
		t.Fatalf("%d %s", code, s)
	}
	if code, _ := post(t, u, `{"model":"m"}`); code != 400 {
		t.Errorf("no prompt: %d", code)
	}
}

// TestVideosMock walks a job: queued on submission, in_progress until its
// time, then completed with inference_time_s and peak_memory_mb, its
// content downloadable only then; a failing configuration fails the job;
// an unknown id is a 404.
func TestVideosMock(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{TTFT: 60 * time.Millisecond, OutputTokens: 1})
	code, b := post(t, srv.URL()+"/v1/videos", `{"prompt":"a cat","model":"wan"}`)
	var job struct {
		ID, Status     string
		InferenceTimeS *float64 `json:"inference_time_s"`
		PeakMemoryMB   *float64 `json:"peak_memory_mb"`
		Error          *struct{ Message string }
	}
	if err := json.Unmarshal(b, &job); code != 200 || err != nil || job.Status != "queued" {
		t.Fatalf("%d %v %s", code, err, b)
	}
	done, ok := mockserver.VideoJobDone(job.ID)
	if !ok {
		t.Fatalf("id %q", job.ID)
	}
	status := func() {
		t.Helper()
		code, b := get(t, srv.URL()+"/v1/videos/"+job.ID)
		job.InferenceTimeS, job.PeakMemoryMB, job.Error = nil, nil, nil
		if err := json.Unmarshal(b, &job); code != 200 || err != nil {
			t.Fatalf("%d %v %s", code, err, b)
		}
	}
	if status(); time.Now().Before(done) && job.Status != "in_progress" {
		t.Errorf("before its time: %q", job.Status)
	}
	if code, _ := get(t, srv.URL()+"/v1/videos/"+job.ID+"/content"); time.Now().Before(done) && code != 404 {
		t.Errorf("content before completion: %d", code)
	}
	time.Sleep(time.Until(done))
	if status(); job.Status != "completed" || job.InferenceTimeS == nil || *job.InferenceTimeS != 0.06 || job.PeakMemoryMB == nil || *job.PeakMemoryMB != mockserver.VideoPeakMemoryMB {
		t.Errorf("completed job %+v", job)
	}
	if code, b := get(t, srv.URL()+"/v1/videos/"+job.ID+"/content"); code != 200 || len(b) == 0 {
		t.Errorf("content: %d, %d bytes", code, len(b))
	}
	if code, _ := get(t, srv.URL()+"/v1/videos/nope"); code != 404 {
		t.Errorf("unknown id: %d", code)
	}

	failing := mocktest.Start(t, mockserver.Config{VideoFailRate: 1})
	_, b = post(t, failing.URL()+"/v1/videos", `{"prompt":"x","model":"m"}`)
	if err := json.Unmarshal(b, &job); err != nil {
		t.Fatal(err)
	}
	_, b = get(t, failing.URL()+"/v1/videos/"+job.ID)
	if err := json.Unmarshal(b, &job); err != nil || job.Status != "failed" || job.Error == nil || job.Error.Message == "" {
		t.Errorf("failing job %s", b)
	}
}
