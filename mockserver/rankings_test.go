package mockserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	ep "github.com/aiperf-go/aiperf/endpoint"
)

// TestRankings: each rankings API answers in its own shape, which the
// runner's parser for that type reads as one ranking per passage, sorted
// best first; equal inputs rank alike; the usage counter counts the query
// and passages; a request without passages is a 400.
func TestRankings(t *testing.T) {
	s := startServer(t, Config{TTFT: 5 * time.Millisecond})
	for _, tc := range []struct {
		typ, path, body, list, score string
	}{
		{"nim_rankings", "/v1/ranking", `{"model":"r","query":{"text":"what is a tensor"},"passages":[{"text":"a"},{"text":"b"},{"text":"c"}]}`, "rankings", "logit"},
		{"hf_tei_rankings", "/rerank", `{"query":"what is a tensor","texts":["a","b","c"]}`, "", "score"},
		{"cohere_rankings", "/v2/rerank", `{"model":"r","query":"what is a tensor","documents":["a","b","c"]}`, "results", "relevance_score"},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			start := time.Now()
			resp := post(t, s, tc.path, "", tc.body)
			body := readAll(t, resp.Body)
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
			if took := time.Since(start); took < 5*time.Millisecond {
				t.Errorf("answered after %v, before the 5 ms TTFT", took)
			}
			parser, err := ep.Lookup(tc.typ)
			if err != nil {
				t.Fatal(err)
			}
			r, ok, err := parser.Parse(body)
			if err != nil || !ok || r.Embeddings() != 3 {
				t.Fatalf("parsed %+v ok=%v err=%v from %s", r, ok, err, body)
			}
			var list []map[string]float64
			if tc.list == "" {
				err = json.Unmarshal(body, &list)
			} else {
				var obj map[string]json.RawMessage
				if err = json.Unmarshal(body, &obj); err == nil {
					err = json.Unmarshal(obj[tc.list], &list)
				}
			}
			if err != nil || len(list) != 3 {
				t.Fatalf("list %v (%v) in %s", list, err, body)
			}
			seen := map[float64]bool{}
			for i, item := range list {
				seen[item["index"]] = true
				if sc := item[tc.score]; sc <= 0 || sc >= 1 || (i > 0 && sc > list[i-1][tc.score]) {
					t.Errorf("item %d: %s %v, want in (0, 1) and sorted best first: %s", i, tc.score, sc, body)
				}
			}
			if len(seen) != 3 {
				t.Errorf("indexes %v, want 0, 1, 2", seen)
			}
			if again := readAll(t, post(t, s, tc.path, "", tc.body).Body); tc.typ != "cohere_rankings" && string(again) != string(body) {
				t.Errorf("equal inputs ranked differently:\n%s\n%s", body, again)
			}
		})
	}
	mresp, err := http.Get(s.URL() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics := readAll(t, mresp.Body)
	if !strings.Contains(string(metrics), `mock_requests_total{endpoint="rankings"} 6`) {
		t.Errorf("rankings requests not counted:\n%s", metrics)
	}
	if resp := post(t, s, "/rerank", "", `{"query":"q","texts":[]}`); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("no passages: status %d, want 400", resp.StatusCode)
	}
}
