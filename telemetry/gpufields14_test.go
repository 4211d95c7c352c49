package telemetry

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"
)

// TestAppendJSON14MatchesAIPerf: every line of the gpu_telemetry_export.jsonl
// AIPerf 0.13 wrote against our mock's fake GPUs is, byte for byte, what
// AppendJSON14 writes for the same reading as our collectors make it
// (0.8's field names, in 0.8's order).
func TestAppendJSON14MatchesAIPerf(t *testing.T) {
	f, err := os.Open("testdata/aiperf013_gpu_telemetry_export.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	old := map[string]string{}
	for _, g := range gpuFields14 {
		old[g.name] = g.old
	}
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		var r GPUReading
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		var v gpuValues
		for _, d := range r.Data {
			if old[d.Name] == "" {
				t.Fatalf("line %d: unknown field %s", n, d.Name)
			}
			v.set(old[d.Name], d.Value)
		}
		r.Data = v.fields(nil)
		if got := string(r.AppendJSON14(nil)); got != sc.Text() {
			t.Errorf("line %d:\n got %s\nwant %s", n, got, sc.Text())
		}
	}
	if err := sc.Err(); err != nil || n != 12 {
		t.Fatalf("%d lines, %v", n, err)
	}
}
