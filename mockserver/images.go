package mockserver

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/aiperf-go/aiperf/internal/pyjson"
)

// OpenAI's image generation API (aiperf's image_generation endpoint type).
func init() {
	routes = append(routes, route{"POST /v1/images/generations", func(s *Server) http.HandlerFunc { return s.serveImages }})
}

// PNG is the image every answer carries, base64: a valid 1x1 PNG.
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

// DefaultPartialImages is the number of partial images a stream sends
// before the final one when the request does not set partial_images.
const DefaultPartialImages = 2

// imageRequest is the part of an image generation request the server reads.
type imageRequest struct {
	Prompt        *string `json:"prompt"`
	N             *int    `json:"n"`
	Stream        bool    `json:"stream"`
	PartialImages *int    `json:"partial_images"`
}

// imageMeta are the image fields every answer repeats.
const imageMeta = `"size":"1024x1024","quality":"low","output_format":"png","background":"opaque"`

// serveImages answers POST /v1/images/generations. A streamed request
// ("stream":true) gets partial_images (default DefaultPartialImages)
// image_generation.partial_image events and then one
// image_generation.completed event carrying usage, the first at TTFT and
// the others ITL apart, each recorded as a content event; otherwise n
// images (default 1) come in one body when the last event would have, as
// for chat. Every image is PNG. Faults follow the configuration as for
// chat (the error fault at once, resets and malformed events before a
// random event); requests count as chat requests in the mock's metrics. A
// body without a string prompt, or with n < 1 or partial_images < 0, is
// a 400.
func (s *Server) serveImages(w http.ResponseWriter, r *http.Request) {
	a, body, ok := s.admitRaw(w, r, epChat)
	if !ok {
		return
	}
	defer a.done()
	var req imageRequest
	if err := json.Unmarshal(body, &req); err != nil || req.Prompt == nil ||
		(req.N != nil && *req.N < 1) || (req.PartialImages != nil && *req.PartialImages < 0) {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "prompt must be a string, n >= 1 and partial_images >= 0")
		return
	}
	prompt := s.countPrompt([]string{*req.Prompt})
	s.m.promptTokens.Add(uint64(prompt))
	n, partials := 1, DefaultPartialImages
	if req.N != nil {
		n = *req.N
	}
	if req.PartialImages != nil {
		partials = *req.PartialImages
	}
	events := 1
	if req.Stream {
		events += partials
	}
	sched := newSchedule(&s.cfg, a.seq, a.arrival, events)
	if sched.errorFault {
		s.m.faults[faultError].Add(1)
		a.rec.add(EventError, 0)
		writeError(w, s.cfg.ErrorStatus, "server_error", "injected error")
		return
	}
	if sched.stallAt >= 0 {
		s.m.faults[faultStall].Add(1)
	}
	usage := `"usage":{"total_tokens":` + strconv.Itoa(prompt+4160) + `,"input_tokens":` + strconv.Itoa(prompt) +
		`,"output_tokens":4160,"input_tokens_details":{"text_tokens":` + strconv.Itoa(prompt) + `,"image_tokens":0}}`
	created := strconv.FormatInt(time.Now().Unix(), 10)
	var wt waiter
	if !req.Stream {
		if !s.awaitBody(w, r, a, sched, events) {
			return
		}
		b := append(make([]byte, 0, 64+n*(len(PNG)+len(*req.Prompt)+40)), `{"created":`+created+`,"data":[`...)
		for i := range n {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"b64_json":"`+PNG+`","revised_prompt":`...)
			b = append(pyjson.AppendString(b, *req.Prompt), '}')
		}
		b = append(b, `],`+imageMeta+`,`+usage+`}`...)
		a.rec.add(EventBody, n)
		writeJSON(w, http.StatusOK, b)
		return
	}
	out := startSSE(w, a.rec)
	for k := range events {
		if !s.awaitEvent(w, r, a, sched, out, &wt, k) {
			return
		}
		var b []byte
		if k < events-1 {
			b = []byte(`event: image_generation.partial_image` + "\n" + `data: {"type":"image_generation.partial_image","b64_json":"` + PNG +
				`","partial_image_index":` + strconv.Itoa(k) + `,"created_at":` + created + `,` + imageMeta + "}\n\n")
		} else {
			b = []byte(`event: image_generation.completed` + "\n" + `data: {"type":"image_generation.completed","b64_json":"` + PNG +
				`","created_at":` + created + `,` + imageMeta + `,` + usage + "}\n\n")
		}
		if !out.send(EventContent, 1, b) {
			return
		}
		if k == 0 {
			s.m.observeTTFT(time.Since(a.arrival))
		}
	}
}
