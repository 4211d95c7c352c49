package validate

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzCheckRecord: any line gives problems or none, never a panic; a line
// that has none is a JSON object with metadata and metrics.
func FuzzCheckRecord(f *testing.F) {
	f.Add([]byte(`{"metadata":{"request_start_ns":1,"benchmark_phase":"profiling"},"metrics":{"a":{"value":[1],"unit":"ms"}},"error":null}`))
	f.Add([]byte(`{"metadata":{"request_start_ns":1e30,"request_end_ns":-1},"metrics":[],"error":{"code":1.5}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if ps := checkRecord(b); len(ps) == 0 {
			if kind(b) != "an object" {
				t.Fatalf("%q: no problem, but not an object", b)
			}
		}
	})
}

// FuzzCheckJSONDocs: the summary and inputs checkers never panic, and
// every problem's line lies within the document.
func FuzzCheckJSONDocs(f *testing.F) {
	f.Add([]byte(`{"data":[{"session_id":"s","payloads":[{"a":1}]}]}`))
	f.Add([]byte("{\n\"m\": {\"unit\": \"ms\", \"avg\": 1, \"min\": 2},\n\"records\": {\"x\": {\"p50\": null}}}"))
	f.Add([]byte(`{"error_summary": [1, {"count": 2}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), "doc.json")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		last := len(newLines(b)) + 1
		for _, check := range []func(string) (Result, error){checkSummary, checkInputs} {
			r, err := check(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, pr := range r.Problems {
				if pr.Line < 0 || pr.Line > last {
					t.Fatalf("%q: problem %v on line %d of %d", b, pr, pr.Line, last)
				}
			}
		}
	})
}
