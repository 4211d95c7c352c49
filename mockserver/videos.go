package mockserver

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/internal/pyjson"
)

// The OpenAI and SGLang video API (aiperf's video_generation endpoint
// type): an asynchronous job.
func init() {
	routes = append(routes,
		route{"POST /v1/videos", func(s *Server) http.HandlerFunc { return s.serveVideoSubmit }},
		route{"GET /v1/videos/{id}", func(s *Server) http.HandlerFunc { return s.serveVideoStatus }},
		route{"GET /v1/videos/{id}/content", func(s *Server) http.HandlerFunc { return s.serveVideoContent }})
}

// VideoPeakMemoryMB is the peak_memory_mb of every completed video job.
const VideoPeakMemoryMB = 20480.5

// videoContent is the body of GET /v1/videos/{id}/content: the start of an
// MP4 file, enough for a client to read to the end.
var videoContent = append([]byte("\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom"), make([]byte, 4096)...)

// videoJob is a job's schedule, carried in its id ("video_<seq>_<done
// unix ns>_<0|1 failed>") so the server keeps no state between requests.
type videoJob struct {
	seq     uint64
	created time.Time
	done    time.Time
	failed  bool
}

func (j videoJob) id() string {
	f := 0
	if j.failed {
		f = 1
	}
	return fmt.Sprintf("video_%d_%d_%d_%d", j.seq, j.created.UnixNano(), j.done.UnixNano(), f)
}

// parseVideoJob reverses videoJob.id; ok is false for an id it did not make.
func parseVideoJob(id string) (j videoJob, ok bool) {
	parts := strings.Split(id, "_")
	if len(parts) != 5 || parts[0] != "video" {
		return j, false
	}
	var n [4]int64
	for i, p := range parts[1:] {
		v, err := strconv.ParseInt(p, 10, 64)
		if err != nil || v < 0 {
			return j, false
		}
		n[i] = v
	}
	return videoJob{seq: uint64(n[0]), created: time.Unix(0, n[1]), done: time.Unix(0, n[2]), failed: n[3] == 1}, true
}

// VideoJobDone returns when the job called id completes or fails, as the
// server scheduled it; ok is false for an id the server did not make.
func VideoJobDone(id string) (done time.Time, ok bool) {
	j, ok := parseVideoJob(id)
	return j.done, ok
}

// serveVideoSubmit answers POST /v1/videos with a queued job: {"id",
// "object":"video","status":"queued","progress":0,"model","created_at",
// "size","seconds"}. The job completes (or, with VideoFailRate, fails)
// when a non-streamed chat answer of Config.OutputTokens would be
// complete (TTFT plus the ITLs), counted from the submission's arrival.
// The error fault answers the submission itself with ErrorStatus, and a
// reset fault resets it; a body without a string prompt is a 400.
func (s *Server) serveVideoSubmit(w http.ResponseWriter, r *http.Request) {
	a, body, ok := s.admitRaw(w, r, epChat)
	if !ok {
		return
	}
	defer a.done()
	var req struct {
		Prompt *string `json:"prompt"`
		Model  string  `json:"model"`
	}
	if err := json.Unmarshal(body, &req); err != nil || req.Prompt == nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "prompt must be a string")
		return
	}
	s.m.promptTokens.Add(uint64(s.countPrompt([]string{*req.Prompt})))
	sched := newSchedule(&s.cfg, a.seq, a.arrival, s.cfg.OutputTokens)
	switch {
	case sched.errorFault:
		s.m.faults[faultError].Add(1)
		a.rec.add(EventError, 0)
		writeError(w, s.cfg.ErrorStatus, "server_error", "injected error")
		return
	case sched.resetAt >= 0:
		s.m.faults[faultReset].Add(1)
		a.rec.add(EventReset, 0)
		reset(w)
		return
	}
	j := videoJob{seq: a.seq, created: a.arrival, done: a.arrival.Add(sched.lastDeadline(s.cfg.OutputTokens))}
	if rate := s.cfg.VideoFailRate; rate > 0 {
		j.failed = rate >= 1 || rand.New(rand.NewPCG(s.cfg.Seed, a.seq^0x76696465)).Float64() < rate
	}
	b := append([]byte(`{"id":"`+j.id()+`","object":"video","status":"queued","progress":0,"model":`), pyjson.AppendString(nil, req.Model)...)
	b = append(b, `,"created_at":`+strconv.FormatInt(j.created.Unix(), 10)+`,"size":"1280x720","seconds":"4"}`...)
	a.rec.add(EventBody, 0)
	writeJSON(w, http.StatusOK, b)
}

// serveVideoStatus answers GET /v1/videos/{id}: "in_progress" with a
// progress percentage until the job's time, then "completed" with
// completed_at, inference_time_s (the job's length) and peak_memory_mb,
// or "failed" with an error object. An unknown id is a 404.
func (s *Server) serveVideoStatus(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	j, ok := parseVideoJob(id)
	if !ok {
		writeError(w, http.StatusNotFound, "invalid_request_error", "video "+id+" not found")
		return
	}
	now := time.Now()
	b := []byte(`{"id":"` + id + `","object":"video",`)
	total := j.done.Sub(j.created)
	switch {
	case now.Before(j.done):
		pct := 0
		if total > 0 {
			pct = int(100 * now.Sub(j.created) / total)
		}
		b = append(b, `"status":"in_progress","progress":`+strconv.Itoa(min(max(pct, 0), 99))...)
	case j.failed:
		b = append(b, `"status":"failed","progress":100,"error":{"code":"generation_failed","message":"injected job failure"}`...)
	default:
		b = append(b, `"status":"completed","progress":100,"completed_at":`+strconv.FormatInt(j.done.Unix(), 10)+
			`,"inference_time_s":`+strconv.FormatFloat(total.Seconds(), 'g', -1, 64)+
			`,"peak_memory_mb":`+strconv.FormatFloat(VideoPeakMemoryMB, 'g', -1, 64)...)
	}
	b = append(b, `,"created_at":`+strconv.FormatInt(j.created.Unix(), 10)+`,"size":"1280x720","seconds":"4"}`...)
	writeJSON(w, http.StatusOK, b)
}

// serveVideoContent answers GET /v1/videos/{id}/content with the video
// (video/mp4) once the job has completed; a job not completed, failed or
// unknown is a 404.
func (s *Server) serveVideoContent(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	j, ok := parseVideoJob(id)
	if !ok || j.failed || time.Now().Before(j.done) {
		writeError(w, http.StatusNotFound, "invalid_request_error", "video "+id+" has no content")
		return
	}
	h := w.Header()
	h["Content-Type"] = []string{"video/mp4"}
	h["Content-Length"] = []string{strconv.Itoa(len(videoContent))}
	_, _ = w.Write(videoContent)
}
