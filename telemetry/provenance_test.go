package telemetry

import (
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"
)

// identityServer answers the given paths with recorded bodies, with the
// given Server header on every answer, and 404 elsewhere. It checks that
// the run's credentials arrive.
func identityServer(t *testing.T, header string, answers map[string]string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer k" {
			t.Errorf("%s: no credentials", r.URL.Path)
		}
		if header != "" {
			w.Header().Set("Server", header)
		}
		body, ok := answers[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestIdentify(t *testing.T) {
	vllmMetrics, err := ParseExposition([]byte(`# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="m"} 0
# TYPE vllm:cache_config_info gauge
vllm:cache_config_info{block_size="16",cache_dtype="auto",num_gpu_blocks="2048"} 1
`))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		header  string
		answers map[string]string
		metrics string
		want    Server
	}{
		{
			name:    "vllm",
			header:  "uvicorn",
			answers: map[string]string{"/version": `{"version":"0.11.0"}`, "/v1/models": `{"object":"list","data":[{"id":"Qwen/Qwen3-0.6B","owned_by":"vllm"}]}`},
			want: Server{Header: "uvicorn", Software: "vllm", Version: "0.11.0", Models: []string{"Qwen/Qwen3-0.6B"},
				Info: map[string]map[string]string{"vllm:cache_config_info": {"block_size": "16", "cache_dtype": "auto", "num_gpu_blocks": "2048"}}},
		},
		{
			name:    "llama.cpp",
			header:  "llama.cpp",
			answers: map[string]string{"/props": `{"build_info":"b6000-de3ff81","total_slots":4}`, "/v1/models": `{"data":[{"id":"tiny-llama3"}]}`},
			want:    Server{Header: "llama.cpp", Software: "llama.cpp", Version: "b6000-de3ff81", Models: []string{"tiny-llama3"}},
		},
		{
			name:    "tgi",
			answers: map[string]string{"/info": `{"model_id":"bigscience/bloom","version":"2.4.1"}`},
			want:    Server{Software: "tgi", Version: "2.4.1"},
		},
		{
			name:    "unknown, garbage answers left out",
			header:  "nginx",
			answers: map[string]string{"/version": `not json`, "/v1/models": `[1,2]`},
			want:    Server{Header: "nginx"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := identityServer(t, tc.header, tc.answers)
			fams := vllmMetrics
			if tc.name != "vllm" {
				fams = nil
			}
			got := Identify(context.Background(), srv.Client(), srv.URL, http.Header{"Authorization": {"Bearer k"}}, fams, time.Second)
			tc.want.URL = srv.URL
			answers := got.Answers
			got.Answers = nil
			if !reflect.DeepEqual(*got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", *got, tc.want)
			}
			for p, body := range tc.answers {
				if _, kept := answers[p]; kept != (body[0] == '{') {
					t.Errorf("answer %s kept=%v", p, kept)
				}
			}
		})
	}
}

func TestMetricsURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"node1:8081", "http://node1:8081/metrics"},
		{"node2:9090/metrics", "http://node2:9090/metrics"},
		{"https://h/prefix/", "https://h/prefix/metrics"},
		{"http://localhost:8000", "http://localhost:8000/metrics"},
	}
	for _, tc := range tests {
		got, err := MetricsURL(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("MetricsURL(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "ftp://h/x", "http://"} {
		if _, err := MetricsURL(bad); err == nil {
			t.Errorf("MetricsURL(%q) gave no error", bad)
		}
	}
}
