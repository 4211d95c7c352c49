package telemetry

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/aiperf-go/aiperf/internal/secret"
)

// Server is what a run measured, as far as the server tells: stored in the
// manifest and the report's runs table, so that a number can be traced to
// the software that produced it.
type Server struct {
	// URL is the server's base URL, credentials redacted.
	URL string `json:"url"`
	// Header is the Server response header of its answers.
	Header string `json:"header,omitempty"`
	// Software is vllm, sglang, tgi, llama.cpp, trtllm, aiperf-mock or ""
	// when it cannot be told.
	Software string `json:"software,omitempty"`
	// Version is the software's version (or llama.cpp's build), "" if not
	// told.
	Version string `json:"version,omitempty"`
	// Models are the ids /v1/models lists.
	Models []string `json:"models,omitempty"`
	// Info holds the labels of the server's info metrics (gauges named
	// *_info, such as vllm:cache_config_info), by metric name.
	Info map[string]map[string]string `json:"info,omitempty"`
	// Answers are the JSON bodies of the identity endpoints that answered
	// (/version, /v1/models, /info, /props, /get_server_info), by path.
	Answers map[string]json.RawMessage `json:"answers,omitempty"`
}

// identityPaths are the endpoints servers describe themselves on: vLLM and
// SGLang /version, TGI /info, llama.cpp /props, SGLang /get_server_info,
// and the OpenAI model list every one of them serves.
var identityPaths = []string{"/version", "/v1/models", "/info", "/props", "/get_server_info"}

// maxIdentityBody bounds one identity answer that is kept.
const maxIdentityBody = 64 << 10

// Identify asks the server at base who it is: it GETs the identity paths at
// once (each within timeout, with header, which carries the run's
// credentials and is never stored) and reads the info metrics of metrics,
// the server's first scrape (nil when none). Endpoints that fail or answer
// something other than a JSON object are left out; Identify never fails.
func Identify(ctx context.Context, client *http.Client, base string, header http.Header, metrics map[string]*dto.MetricFamily, timeout time.Duration) *Server {
	s := &Server{URL: secret.URL(base), Answers: map[string]json.RawMessage{}}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, p := range identityPaths {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body, server, ok := getJSON(ctx, client, base, p, header, timeout)
			mu.Lock()
			defer mu.Unlock()
			if server != "" && (s.Header == "" || p == "/v1/models") {
				s.Header = server
			}
			if ok {
				s.Answers[p] = body
			}
		}()
	}
	wg.Wait()
	s.Info = infoMetrics(metrics)
	s.identify(metrics)
	if len(s.Answers) == 0 {
		s.Answers = nil
	}
	return s
}

// getJSON fetches base+path and returns its body when it is a JSON object,
// and the Server header in any case.
func getJSON(ctx context.Context, client *http.Client, base, path string, header http.Header, timeout time.Duration) (json.RawMessage, string, bool) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	u, err := url.JoinPath(base, path)
	if err != nil {
		return nil, "", false
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, "", false
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, "", false
	}
	defer resp.Body.Close()
	server := resp.Header.Get("Server")
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxIdentityBody+1))
	if err != nil || resp.StatusCode != http.StatusOK || len(body) > maxIdentityBody {
		return nil, server, false
	}
	body = bytes.TrimSpace(body)
	if !json.Valid(body) || len(body) == 0 || body[0] != '{' {
		return nil, server, false
	}
	return json.RawMessage(body), server, true
}

// infoMetrics returns the labels of every gauge named *_info, copied: a
// scrape's strings share one buffer, which the Server would keep alive.
func infoMetrics(fams map[string]*dto.MetricFamily) map[string]map[string]string {
	out := map[string]map[string]string{}
	for name, f := range fams {
		if !strings.HasSuffix(name, "_info") || len(f.GetMetric()) == 0 {
			continue
		}
		labels := map[string]string{}
		for _, lp := range f.GetMetric()[0].GetLabel() {
			labels[strings.Clone(lp.GetName())] = strings.Clone(lp.GetValue())
		}
		out[strings.Clone(name)] = labels
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// identify derives Software, Version and Models from the answers, the
// Server header and the metric name prefixes.
func (s *Server) identify(fams map[string]*dto.MetricFamily) {
	var models struct {
		Data []struct {
			ID      string `json:"id"`
			OwnedBy string `json:"owned_by"`
		} `json:"data"`
	}
	owner := ""
	if b, ok := s.Answers["/v1/models"]; ok && json.Unmarshal(b, &models) == nil {
		for _, m := range models.Data {
			s.Models = append(s.Models, m.ID)
			if owner == "" {
				owner = m.OwnedBy
			}
		}
	}
	prefix := metricPrefix(fams)
	header := strings.ToLower(s.Header)
	switch {
	case strings.HasPrefix(header, "aiperf-mock"):
		s.Software = "aiperf-mock" // it speaks vLLM's metrics too
	case prefix == "vllm" || owner == "vllm":
		s.Software = "vllm"
	case prefix == "sglang" || owner == "sglang":
		s.Software = "sglang"
	case prefix == "llamacpp" || owner == "llamacpp" || strings.HasPrefix(header, "llama.cpp"):
		s.Software = "llama.cpp"
	case prefix == "tgi" || strings.Contains(header, "text-generation-inference"):
		s.Software = "tgi"
	case prefix == "trtllm" || strings.Contains(header, "trt"):
		s.Software = "trtllm"
	case s.Answers["/props"] != nil:
		s.Software = "llama.cpp"
	case s.Answers["/info"] != nil:
		s.Software = "tgi"
	}
	s.Version = answerVersion(s.Answers)
	if s.Version == "" {
		if _, v, ok := strings.Cut(s.Header, "/"); ok {
			s.Version = v
		}
	}
}

// answerVersion is the version an identity answer states: "version" of
// /version, /info or /get_server_info, else llama.cpp's build_info.
func answerVersion(answers map[string]json.RawMessage) string {
	var v struct {
		Version   string `json:"version"`
		BuildInfo string `json:"build_info"`
	}
	for _, p := range []string{"/version", "/info", "/get_server_info", "/props"} {
		v.Version, v.BuildInfo = "", ""
		if b, ok := answers[p]; ok && json.Unmarshal(b, &v) == nil {
			if v.Version != "" {
				return v.Version
			}
			if v.BuildInfo != "" {
				return v.BuildInfo
			}
		}
	}
	return ""
}

// metricPrefix is the namespace most of the families share before their
// first ':' or '_' (vllm, sglang, llamacpp, tgi, trtllm), or "".
func metricPrefix(fams map[string]*dto.MetricFamily) string {
	counts := map[string]int{}
	for name := range fams {
		if i := strings.IndexAny(name, ":_"); i > 0 {
			counts[name[:i]]++
		}
	}
	known := []string{"vllm", "sglang", "llamacpp", "tgi", "trtllm"}
	sort.Slice(known, func(i, j int) bool { return counts[known[i]] > counts[known[j]] })
	if counts[known[0]] == 0 {
		return ""
	}
	return known[0]
}
