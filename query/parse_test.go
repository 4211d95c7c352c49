package query

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func TestParseConfig(t *testing.T) {
	fixture, err := os.ReadFile("testdata/baseline-chat/profile_export_aiperf.json")
	if err != nil {
		t.Fatal(err)
	}
	var top struct {
		InputConfig json.RawMessage `json:"input_config"`
	}
	if err := json.Unmarshal(fixture, &top); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, in string
		want     string // fmtFacts of the result
	}{
		{"empty", ``, "|||na|na|na|na|na|na|na|"},
		{"aiperf fixture", string(top.InputConfig), "mock-model|chat||na|concurrency|4|na|64|550|na|"},
		{"aiperf-go rate", `{"models":{"items":[{"name":"a"},{"name":"b"}]},"endpoint":{"type":"completions","streaming":true},
			"datasets":[{"prompts":{"isl":{"mean":100,"stddev":5},"osl":{"mean":20,"stddev":0}}}],
			"phases":[{"name":"warmup","type":"request_rate","requests":5,"rate":1},{"name":"profiling","type":"request_rate","requests":50,"rate":12.5,"arrival_pattern":"poisson"}],
			"artifacts":{"prefix":"foo"}}`, "a,b|completions|poisson|true|request_rate|na|12.5|50|100|20|foo"},
		{"model list, rate without type", `{"models":["x"],"phases":[{"request_rate":3}]}`, "x|||na|request_rate|na|3|na|na|na|"},
		{"model_names", `{"models":{"model_names":["y"]},"phases":[{"concurrency":8}]}`, "y|||na|concurrency|8|na|na|na|na|"},
	}
	for _, tc := range tests {
		f, err := parseConfig([]byte(tc.in))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := fmtFacts(&f); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
	if _, err := parseConfig([]byte(`{"phases":"nope"}`)); err == nil {
		t.Error("a malformed config parsed")
	}
}

// fmtFacts renders facts as models|endpoint|arrival|streaming|mode|
// concurrency|rate|requests|isl|osl|prefix, "na" for nil pointers.
func fmtFacts(f *configFacts) string {
	p := func(v any) string {
		switch x := v.(type) {
		case *bool:
			if x != nil {
				return strings.ToLower(strings.TrimSpace(jsonText(*x)))
			}
		case *int:
			if x != nil {
				return jsonText(*x)
			}
		case *int64:
			if x != nil {
				return jsonText(*x)
			}
		case *float64:
			if x != nil {
				return jsonText(*x)
			}
		}
		return "na"
	}
	parts := []string{strings.Join(f.Models, ","), f.EndpointType, f.ArrivalPattern, p(f.Streaming), f.LoadMode,
		p(f.Concurrency), p(f.RequestRate), p(f.RequestCount), p(f.ISLMean), p(f.OSLMean), f.ExportPrefix}
	if f.LoadMode == "" {
		parts[4] = "na"
	}
	return strings.Join(parts, "|")
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestSniffPayload(t *testing.T) {
	tests := []struct {
		in     string
		model  string
		stream string
	}{
		{`{"data":[{"session_id":"s","payloads":[{"messages":[{"role":"user","content":"model"}],"model":"m1","stream":true,"max_tokens":5}]}]}`, "m1", "true"},
		{`{"data":[{"session_id":"s","payloads":[{"model":"m2","prompt":"x"}]},{"payloads":[{"model":"other","stream":true}]}]}`, "m2", "true"},
		{`{"data":[{"payloads":[{"input":["a"],"model":"e"}]}]}`, "e", "nil"},
		{`{"data":[{"payloads":[{"model":`, "", "nil"},
		{`not json`, "", "nil"},
		{``, "", "nil"},
	}
	for _, tc := range tests {
		model, stream := sniffPayload(strings.NewReader(tc.in))
		s := "nil"
		if stream != nil {
			s = jsonText(*stream)
		}
		if model != tc.model || s != tc.stream {
			t.Errorf("%q: model %q stream %s, want %q %s", tc.in, model, s, tc.model, tc.stream)
		}
	}
}

func TestParseSummaryFormats(t *testing.T) {
	// Python's json writes NaN and Infinity; the pre-1.0 layout nests
	// metrics under "records" and names TTFT "ttft"; its times have no
	// zone.
	s, err := parseSummary([]byte(`{"records":{"ttft":{"tag":"ttft","unit":"ms","avg":NaN,"p50":1.5,"count":3},
		"rc":{"unit":"requests","avg":4}},"benchmark_id":"NaN-id","start_time":"2026-04-30T09:16:38.957302","was_cancelled":true}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Metrics) != 2 || s.BenchmarkID != "NaN-id" || !s.WasCancelled || s.Start.IsZero() || !s.NaiveTimes {
		t.Fatalf("summary %+v", s)
	}
	rc, ttft := s.Metrics[0], s.Metrics[1]
	if rc.Tag != "rc" || !rc.Scalar || rc.Stats[0] != 4.0 {
		t.Errorf("rc %+v", rc)
	}
	if ttft.Tag != "time_to_first_token" || ttft.Scalar || ttft.Stats[0] != nil || ttft.Stats[2] != int64(3) || ttft.Stats[9] != 1.5 {
		t.Errorf("ttft %+v", ttft)
	}
}

func FuzzParseSummary(f *testing.F) {
	fixture, _ := os.ReadFile("testdata/baseline-chat/profile_export_aiperf.json")
	f.Add(fixture)
	f.Add([]byte(`{"records":{"x":{"unit":"ms","p50":NaN}}}`))
	f.Add([]byte(`{"a":{"unit":1,"avg":"x"},"b":[],"c":{"unit":"u","count":-Infinity}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := parseSummary(data)
		if err != nil {
			return
		}
		for _, m := range s.Metrics {
			if m.Scalar {
				for i, name := range statColumns {
					if name != "avg" && name != "sum" && name != "count" && m.Stats[i] != nil {
						t.Errorf("scalar %s has %s", m.Tag, name)
					}
				}
			}
		}
	})
}

func FuzzSanitizeJSON(f *testing.F) {
	f.Add([]byte(`{"a": NaN, "b": [Infinity, -Infinity], "c": "NaN \" Infinity"}`))
	f.Add([]byte(`{"NaN":"\\"}`))
	f.Add([]byte(`[1e5, -0.5, "Infinity"]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		out := sanitizeJSON(data)
		if json.Valid(data) && !bytes.Equal(out, data) {
			t.Errorf("valid JSON changed: %q -> %q", data, out)
		}
		// Replacing the Python tokens of valid JSON values gives valid JSON.
		py := bytes.ReplaceAll(data, []byte("null"), []byte("NaN"))
		if json.Valid(data) && !bytes.Contains(data, []byte(`"`)) && !json.Valid(sanitizeJSON(py)) {
			t.Errorf("sanitized %q invalid: %q", py, sanitizeJSON(py))
		}
	})
}

func FuzzSniffPayload(f *testing.F) {
	f.Add([]byte(`{"data":[{"session_id":"s","payloads":[{"model":"m","stream":false}]}]}`))
	f.Add([]byte(`[[[{"model":1,"stream":"x"}]]]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sniffPayload(bytes.NewReader(data)) // must not panic or loop
	})
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(`{"models":{"items":[{"name":"a"}]},"phases":[{"name":"profiling","type":"concurrency","concurrency":2}]}`))
	f.Add([]byte(`{"models":["a"],"phases":[{"rate":1.5}],"datasets":[{"prompts":{"isl":{"mean":1}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := parseConfig(data)
		if err != nil {
			return
		}
		if c.LoadMode != "" && c.LoadMode != "concurrency" && c.LoadMode != "request_rate" {
			t.Errorf("load mode %q", c.LoadMode)
		}
	})
}
