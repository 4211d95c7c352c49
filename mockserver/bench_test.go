package mockserver

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// benchClient keeps one idle connection per parallel worker.
func benchClient() *http.Client {
	return &http.Client{Transport: &http.Transport{MaxIdleConns: 256, MaxIdleConnsPerHost: 256, DisableCompression: true}}
}

func benchPrompt(words int) string {
	return strings.TrimSpace(strings.Repeat("The quick brown fox jumps over the lazy dog. ", words/10+1))
}

// BenchmarkNonStreaming measures non-streaming chat requests per second over
// real HTTP, client and server in one process (so sharing the CPUs, as in a
// benchmark on one machine).
func BenchmarkNonStreaming(b *testing.B) {
	for _, tc := range []struct {
		name     string
		prompt   int // words
		estimate bool
	}{
		{"prompt=10w", 10, false},
		{"prompt=500w", 500, false},
		{"prompt=500w/estimate", 500, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s := startServer(b, Config{EstimatePromptTokens: tc.estimate})
			body := []byte(fmt.Sprintf(`{"model":"mock-model","messages":[{"role":"user","content":%q}],"max_completion_tokens":16}`, benchPrompt(tc.prompt)))
			client := benchClient()
			url := s.URL() + "/v1/chat/completions"
			b.SetParallelism(4)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					resp, err := client.Post(url, "application/json", bytes.NewReader(body))
					if err != nil {
						b.Error(err)
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
		})
	}
}

// BenchmarkStreaming measures streamed events per second: requests of 256
// tokens, one per chunk, read line by line by the client.
func BenchmarkStreaming(b *testing.B) {
	const tokens = 256
	s := startServer(b, Config{})
	body := []byte(fmt.Sprintf(`{"model":"mock-model","messages":[{"role":"user","content":"hi"}],"max_tokens":%d,"stream":true}`, tokens))
	client := benchClient()
	url := s.URL() + "/v1/chat/completions"
	b.SetParallelism(4)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := client.Post(url, "application/json", bytes.NewReader(body))
			if err != nil {
				b.Error(err)
				return
			}
			sc := bufio.NewScanner(resp.Body)
			n := 0
			for sc.Scan() {
				if len(sc.Bytes()) > 0 {
					n++
				}
			}
			resp.Body.Close()
			if n != tokens+2 {
				b.Errorf("%d events, want %d", n, tokens+2)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)*(tokens+2)/b.Elapsed().Seconds(), "events/s")
}
