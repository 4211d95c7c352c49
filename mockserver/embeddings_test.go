package mockserver

import (
	"encoding/json"
	"math"
	"testing"
)

type embeddingResponse struct {
	Object string `json:"object"`
	Model  string `json:"model"`
	Data   []struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float64 `json:"embedding"`
	} `json:"data"`
	Usage struct {
		PromptTokens int `json:"prompt_tokens"`
		TotalTokens  int `json:"total_tokens"`
	} `json:"usage"`
}

func TestEmbeddings(t *testing.T) {
	s := startServer(t, Config{})
	for _, tc := range []struct {
		name, body   string
		n, dims      int
		promptTokens int
	}{
		{"string", `{"model":"emb","input":"hello world"}`, 1, DefaultEmbeddingDims, o200kCount(t, "hello world")},
		{"list", `{"model":"emb","input":["hello world","hello world","other"],"dimensions":16}`, 3, 16, o200kCount(t, "hello world hello world other")},
		{"token ids", `{"model":"emb","input":[[1,2,3],[4]]}`, 2, DefaultEmbeddingDims, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := post(t, s, "/v1/embeddings", "", tc.body)
			body := readAll(t, resp.Body)
			var r embeddingResponse
			if err := json.Unmarshal(body, &r); err != nil || resp.StatusCode != 200 {
				t.Fatalf("status %d, %v: %s", resp.StatusCode, err, body)
			}
			if r.Object != "list" || r.Model != "emb" || len(r.Data) != tc.n {
				t.Fatalf("response %s", body)
			}
			if r.Usage.PromptTokens != tc.promptTokens || r.Usage.TotalTokens != tc.promptTokens {
				t.Errorf("usage %+v, want %d", r.Usage, tc.promptTokens)
			}
			for i, d := range r.Data {
				if d.Object != "embedding" || d.Index != i || len(d.Embedding) != tc.dims {
					t.Errorf("data[%d] = %s %d len %d", i, d.Object, d.Index, len(d.Embedding))
				}
				var norm float64
				for _, v := range d.Embedding {
					norm += v * v
				}
				if math.Abs(norm-1) > 1e-5 {
					t.Errorf("data[%d] norm² %v, want 1", i, norm)
				}
			}
			if tc.n == 3 {
				if !equal(r.Data[0].Embedding, r.Data[1].Embedding) || equal(r.Data[0].Embedding, r.Data[2].Embedding) {
					t.Error("equal inputs must have equal embeddings, different ones different")
				}
			}
		})
	}
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
