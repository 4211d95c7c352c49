package runner

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/endpoint"
	"github.com/aiperf-go/aiperf/record"
)

// DefaultVideoPollInterval is AIPerf's AIPERF_HTTP_VIDEO_POLL_INTERVAL
// default.
const DefaultVideoPollInterval = 100 * time.Millisecond

// poller is how a sender follows an asynchronous job (Endpoint.Polls)
// after its submission.
type poller struct {
	// interval is the wait between a status that is not final and the
	// next poll (--http.video-poll-interval).
	interval time.Duration
	// download fetches the job's content once it completes
	// (--download-video-content).
	download bool
}

// wait follows the job whose submission answer is rec's last response,
// the submission having gone to url, as AIPerf's polling transport does:
// GET <url>/{id} at once, then every
// p.interval until the status is completed or failed; the completed job
// object becomes a response stamped when it was read (request_latency ends
// there), and with p.download its content is then read to the end
// (the url the job names, else <url>/{id}/content) and discarded, ending
// the record later (EndNS) but not its latency. A failed job, an answer
// without a job id, or a download that fails is an error record
// (VideoGenerationError or VideoDownloadError, code 500 or the download's
// status); a poll answered with an error status fails the record with
// that status. The request timeout covers the whole job, from the
// submission's start. rec.Polls counts the GETs of the status.
func (s *sender) wait(ctx context.Context, p *poller, rec *record.Record, url string) {
	if rec.Error != nil {
		return
	}
	var job *record.Video
	if n := len(rec.Responses); n > 0 {
		job = rec.Responses[n-1].Video()
	}
	if job == nil || job.ID == "" {
		s.fail(rec, http.StatusInternalServerError, "VideoGenerationError", "No job ID returned")
		return
	}
	if s.timeout > 0 {
		deadline := s.clock.Origin().Add(time.Duration(rec.StartNS) + s.timeout)
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	pollURL := strings.TrimRight(url, "/") + "/" + job.ID
	var timer *time.Timer
	for {
		rec.Polls++
		r, ok := s.get(ctx, rec, pollURL, true)
		if !ok {
			return
		}
		if v := r.Video(); v != nil && v.Status == endpoint.JobCompleted {
			rec.Responses = append(rec.Responses, r)
			rec.EndNS = r.PerfNS
			break
		}
		if v := r.Video(); v != nil && v.Status == endpoint.JobFailed {
			msg := v.Error
			if msg == "" {
				msg = "Unknown error"
			}
			s.fail(rec, http.StatusInternalServerError, "VideoGenerationError", "Video generation failed: "+msg)
			return
		}
		if timer == nil {
			timer = time.NewTimer(p.interval)
			defer timer.Stop()
		} else {
			timer.Reset(p.interval)
		}
		select {
		case <-timer.C:
		case <-ctx.Done():
			s.failErr(ctx, rec, ctx.Err())
			return
		}
	}
	if p.download {
		s.downloadContent(ctx, rec, pollURL+"/content")
	}
}

// get sends one GET of the job and returns its parsed answer, stamped when
// its body was read. On failure it fills rec.Error and returns ok=false.
// When parse is false the body is read and discarded (the download).
func (s *sender) get(ctx context.Context, rec *record.Record, url string, parse bool) (r record.Response, ok bool) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		s.fail(rec, 0, "RequestError", s.errorText(err))
		return r, false
	}
	req.Header = s.header.Clone()
	req.Header.Del("Content-Type")
	req.Header.Set("X-Request-ID", rec.XRequestID)
	req.Header.Set("X-Correlation-ID", rec.XCorrelationID)
	resp, err := s.client.Do(req)
	if err != nil {
		s.failErr(ctx, rec, err)
		return r, false
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		s.fail(rec, resp.StatusCode, http.StatusText(resp.StatusCode), strings.TrimSpace(string(msg)))
		return r, false
	}
	if !parse {
		n, err := io.Copy(io.Discard, resp.Body)
		r.PerfNS = s.clock.Now()
		if err != nil {
			s.failErr(ctx, rec, err)
			return r, false
		}
		if n == 0 {
			s.fail(rec, http.StatusInternalServerError, "VideoDownloadError", "No content returned")
			return r, false
		}
		return r, true
	}
	data, err := io.ReadAll(resp.Body)
	end := s.clock.Now()
	if err != nil {
		s.failErr(ctx, rec, err)
		return r, false
	}
	r, ok, err = s.ep.Parse(data)
	if err != nil {
		s.failParse(rec, data, err)
		return r, false
	}
	if !ok {
		s.fail(rec, http.StatusInternalServerError, "VideoGenerationError", fmt.Sprintf("invalid job status %q", truncate(data, 200)))
		return r, false
	}
	r.PerfNS = end
	return r, true
}

// downloadContent reads the completed job's video from url to the end.
func (s *sender) downloadContent(ctx context.Context, rec *record.Record, url string) {
	r, ok := s.get(ctx, rec, url, false)
	if !ok {
		if rec.Error != nil && rec.Error.Type != "VideoDownloadError" {
			rec.Error.Message = fmt.Sprintf("Failed to download video: %s: %s", rec.Error.Type, rec.Error.Message)
			rec.Error.Type = "VideoDownloadError"
		}
		return
	}
	rec.EndNS = r.PerfNS
}

// newPoller returns the poller of a run of cfg on ep, or nil when ep does
// not poll.
func newPoller(cfg *Config, ep *endpoint.Endpoint) *poller {
	if !ep.Polls {
		return nil
	}
	return &poller{interval: cmp.Or(cfg.VideoPollInterval, DefaultVideoPollInterval), download: cfg.DownloadVideoContent}
}

// pollProblems reports a --http.video-poll-interval outside AIPerf's
// bounds, 0.001 to 10 seconds (0 is the default).
func (c *Config) pollProblems() []string {
	if d := c.VideoPollInterval; d != 0 && (d < time.Millisecond || d > 10*time.Second) {
		return []string{fmt.Sprintf("--http.video-poll-interval %v must be between 0.001 and 10 seconds", d.Seconds())}
	}
	return nil
}
