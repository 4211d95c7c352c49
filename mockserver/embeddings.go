package mockserver

import (
	"hash/fnv"
	"math"
	"net/http"
	"strconv"

	"github.com/aiperf-go/aiperf/internal/pyjson"
)

// serveEmbeddings answers POST /v1/embeddings after TTFT (plus any stall):
// one deterministic unit vector per input, derived from the input's bytes
// (or token ids), so equal inputs get equal embeddings.
func (s *Server) serveEmbeddings(w http.ResponseWriter, r *http.Request) {
	a, ok := s.admit(w, r, epEmbeddings)
	if !ok {
		return
	}
	defer a.done()
	rec, req := a.rec, a.req
	in, err := parseInputs(req.Input)
	if err == nil && in.count() == 0 {
		err = errNoInput
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", err.Error())
		return
	}
	prompt := s.countPrompt(in.texts) + in.tokens
	s.m.promptTokens.Add(uint64(prompt))

	if !s.awaitOnce(w, r, a) {
		return
	}

	dims := s.cfg.EmbeddingDims
	if req.Dimensions > 0 {
		dims = req.Dimensions
	}
	bp := eventPool.Get().(*[]byte)
	b := append((*bp)[:0], `{"object":"list","data":[`...)
	vec := make([]float64, dims)
	for i := range in.count() {
		h := fnv.New64a()
		if i < len(in.texts) {
			_, _ = h.Write([]byte(in.texts[i]))
		} else {
			for _, id := range in.items[i-len(in.texts)] {
				_, _ = h.Write(strconv.AppendInt(nil, int64(id), 10))
				_, _ = h.Write([]byte{','})
			}
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"object":"embedding","index":`...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, `,"embedding":[`...)
		for j, v := range embedding(vec, h.Sum64()) {
			if j > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendFloat(b, v, 'g', -1, 32)
		}
		b = append(b, "]}"...)
	}
	b = append(b, `],"model":`...)
	b = pyjson.AppendString(b, req.Model)
	b = append(b, `,"usage":{"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(prompt), 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(prompt), 10)
	b = append(b, "}}"...)
	rec.add(EventBody, 0)
	writeJSON(w, http.StatusOK, b)
	*bp = b
	eventPool.Put(bp)
}

// embedding fills vec with a unit vector drawn from seed (splitmix64) and
// returns it.
func embedding(vec []float64, seed uint64) []float64 {
	var norm float64
	for j := range vec {
		seed += 0x9e3779b97f4a7c15
		z := seed
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		z ^= z >> 31
		v := float64(z>>11)/(1<<53)*2 - 1
		vec[j] = v
		norm += v * v
	}
	norm = math.Sqrt(norm)
	for j := range vec {
		if norm > 0 {
			vec[j] = float64(float32(vec[j] / norm))
		}
	}
	return vec
}
