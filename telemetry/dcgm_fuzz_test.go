package telemetry

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// FuzzDCGMReadings feeds arbitrary expositions through the parse and the
// DCGM mapping: nothing panics, and every reading is well formed (ordered
// unique indices, a UUID, known fields in AIPerf's order, finite values)
// and survives a JSON round trip.
func FuzzDCGMReadings(f *testing.F) {
	if b, err := os.ReadFile("testdata/dcgm/two_h100.prom"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",UUID=\"GPU-a\"} 5\n"))
	f.Add([]byte("# TYPE DCGM_FI_DEV_XID_ERRORS counter\nDCGM_FI_DEV_XID_ERRORS_total{gpu=\" 3\",UUID=\"u\",modelName=\"\\\"q\\\"\"} 1e300\n# EOF\n"))
	f.Add([]byte("DCGM_FI_PROF_SM_ACTIVE{gpu=\"-1\",UUID=\"\xff\"} -0\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		fams, err := ParseExposition(body)
		if err != nil {
			return
		}
		rs, err := dcgmReadings(fams, "http://x/metrics", 1)
		if err != nil {
			return
		}
		for i, r := range rs {
			if i > 0 && r.GPUIndex <= rs[i-1].GPUIndex {
				t.Fatalf("indices out of order: %d after %d", r.GPUIndex, rs[i-1].GPUIndex)
			}
			if r.GPUUUID == "" || len(r.Data) == 0 {
				t.Fatalf("reading without UUID or data: %+v", r)
			}
			last := -1
			for _, fd := range r.Data {
				k := gpuFieldIndex(fd.Name)
				if k <= last {
					t.Fatalf("field %q unknown or out of order in %v", fd.Name, r.Data)
				}
				last = k
				if math.IsNaN(fd.Value) || math.IsInf(fd.Value, 0) {
					t.Fatalf("non-finite %s=%v", fd.Name, fd.Value)
				}
			}
			var back GPUReading
			if err := json.Unmarshal(r.AppendJSON(nil), &back); err != nil {
				t.Fatalf("round trip: %v", err)
			}
			if string(back.AppendJSON(nil)) != string(r.AppendJSON(nil)) {
				t.Fatalf("round trip changed the line:\n%s\n%s", back.AppendJSON(nil), r.AppendJSON(nil))
			}
		}
	})
}
