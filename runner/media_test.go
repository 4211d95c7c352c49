package runner

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// rawLine is the part of a profile_export_raw.jsonl line the media tests
// read.
type rawLine struct {
	XRequestID string `json:"x_request_id"`
	StartNS    int64  `json:"request_start_ns"`
	Responses  []struct {
		PerfNS int64 `json:"perf_ns"`
	} `json:"responses"`
}

func readRaw(t *testing.T, dir string) map[string]rawLine {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "profile_export_raw.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]rawLine{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var r rawLine
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out[r.XRequestID] = r
	}
	return out
}

// pollCounter forwards to the mock and counts each request's GETs of its
// job's status and content, by X-Request-ID.
type pollCounter struct {
	mu              sync.Mutex
	polls, contents map[string]int
}

func startPollCounter(t *testing.T, target string) (*pollCounter, string) {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	pc := &pollCounter{polls: map[string]int{}, contents: map[string]int{}}
	proxy := httputil.NewSingleHostReverseProxy(u)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/videos/") {
			pc.mu.Lock()
			if strings.HasSuffix(r.URL.Path, "/content") {
				pc.contents[r.Header.Get("X-Request-ID")]++
			} else {
				pc.polls[r.Header.Get("X-Request-ID")]++
			}
			pc.mu.Unlock()
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	return pc, front.URL
}

// TestVideoGenerationPolls: a job that takes 40 ms, polled every 10 ms,
// is polled at once and then every 10 ms or more until it completes, its
// latency ends at the poll that saw it completed (40 ms after the start
// at least, ~50 ms on an idle machine), and the server's inference_time_s and peak_memory_mb become
// video_inference_time (ms) and video_peak_memory (MB); with
// --download-video-content the content is read once per job.
func TestVideoGenerationPolls(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{RecordTimelines: true, TTFT: 40 * time.Millisecond, OutputTokens: 1})
	for _, download := range []bool{false, true} {
		t.Run(map[bool]string{false: "status", true: "download"}[download], func(t *testing.T) {
			pc, front := startPollCounter(t, srv.URL())
			cfg := testConfig(t, front)
			cfg.EndpointType, cfg.ExportLevel = "video_generation", "raw"
			cfg.VideoPollInterval, cfg.DownloadVideoContent = 10*time.Millisecond, download
			cfg.Concurrency, cfg.RequestCount = 2, 4
			res := runOK(t, cfg)
			if res.Summary.Valid != 4 {
				t.Fatalf("%d valid, errors %+v", res.Summary.Valid, res.Summary.Errors)
			}
			raw := readRaw(t, cfg.ArtifactDir)
			for _, r := range readRecords(t, cfg.ArtifactDir) {
				id := r.Metadata.XRequestID
				lat, _ := r.num("request_latency")
				// At once, then once per interval until done: on a loaded
				// machine a wait can last longer than 10 ms, never shorter.
				if n := pc.polls[id]; n < 2 || n > int(lat/10)+2 {
					t.Errorf("%d polls of a 40 ms job every 10 ms, done after %.1f ms", n, lat)
				}
				if n, want := pc.contents[id], map[bool]int{false: 0, true: 1}[download]; n != want {
					t.Errorf("%d content downloads, want %d", n, want)
				}
				if rr := raw[id]; len(rr.Responses) != 2 {
					t.Errorf("%d responses, want the submission and the completed job", len(rr.Responses))
				}
				// Never before the job is done; how long after depends on
				// the machine (the poll count above bounds the waits).
				if lat < 40 {
					t.Errorf("request latency %.3f ms for a 40 ms job polled every 10 ms", lat)
				}
				inf, okInf := r.num("video_inference_time")
				mem, okMem := r.num("video_peak_memory")
				if !okInf || inf < 39.999 || inf > 40.001 || !okMem || mem != mockserver.VideoPeakMemoryMB {
					t.Errorf("video metrics %v", r.Metrics)
				}
				if download && r.Metadata.RequestEndNS <= r.Metadata.RequestStartNS+int64(lat*1e6) {
					t.Errorf("request end %d does not include the download", r.Metadata.RequestEndNS)
				}
			}
		})
	}
}

// TestVideoGenerationErrors: a failed job, an HTTP error on submission, and
// a job longer than the request timeout are error records, the timeout
// covering the whole job.
func TestVideoGenerationErrors(t *testing.T) {
	tests := []struct {
		name    string
		mock    mockserver.Config
		timeout time.Duration
		code    int
		typ     string
		msg     string
	}{
		{"failed job", mockserver.Config{VideoFailRate: 1, TTFT: 5 * time.Millisecond}, 0, 500, "VideoGenerationError", "Video generation failed: injected job failure"},
		{"http error", mockserver.Config{ErrorRate: 1, ErrorStatus: 503}, 0, 503, "Service Unavailable", "injected error"},
		{"timeout", mockserver.Config{TTFT: 2 * time.Second}, 150 * time.Millisecond, 0, "TimeoutError", "timed out"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.mock.OutputTokens = 1
			srv := mocktest.Start(t, tc.mock)
			cfg := testConfig(t, srv.URL())
			cfg.EndpointType, cfg.VideoPollInterval = "video_generation", 5*time.Millisecond
			cfg.Concurrency, cfg.RequestCount = 2, 2
			if tc.timeout > 0 {
				cfg.RequestTimeout = tc.timeout
			}
			start := time.Now()
			if _, err := Run(context.Background(), cfg, Options{Version: "test"}); err == nil || !strings.Contains(err.Error(), "every request failed") {
				t.Fatalf("run: %v", err)
			}
			if tc.timeout > 0 && time.Since(start) > time.Second {
				t.Errorf("run took %v with a %v timeout on 2 s jobs", time.Since(start), tc.timeout)
			}
			recs := readRecords(t, cfg.ArtifactDir)
			if len(recs) != 2 {
				t.Fatalf("%d records", len(recs))
			}
			for _, r := range recs {
				e := r.Error
				if e == nil {
					t.Fatalf("no error: %v", r.Metrics)
				}
				code := 0
				if e.Code != nil {
					code = *e.Code
				}
				if code != tc.code || e.Type != tc.typ || !strings.Contains(e.Message, tc.msg) {
					t.Errorf("error %d %q %q, want %d %q %q", code, e.Type, e.Message, tc.code, tc.typ, tc.msg)
				}
			}
		})
	}
}
