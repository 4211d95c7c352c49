package query

import (
	"reflect"
	"testing"

	"github.com/aiperf-go/aiperf/telemetry"
)

// TestGPULine14SameColumns: a GPU reading written in the 1.4 layout
// (AIPerf 0.13's line: nvidia_ names, platform, another key order) decodes
// into the same columns as the same reading in the 1.0 layout.
func TestGPULine14SameColumns(t *testing.T) {
	r := telemetry.GPUReading{TimestampNS: 1795675991933668818, GPUIndex: 1, GPUUUID: "GPU-1dd7554d",
		GPUModelName: "NVIDIA H100 80GB HBM3", PCIBusID: "00000000:2A:00.0", Device: "nvidia1", Hostname: "vm",
		SourceURL: "http://u:pw@127.0.0.1:9/dcgm/metrics", Data: telemetry.Fields{
			{Name: "gpu_power_usage", Value: 69.6}, {Name: "energy_consumption", Value: 2.6006674060000003},
			{Name: "gpu_utilization", Value: 64}, {Name: "gpu_memory_used", Value: 76.968624128},
			{Name: "gpu_temperature", Value: 34}, {Name: "mem_utilization", Value: 26},
			{Name: "sm_utilization", Value: 0.169858}, {Name: "xid_errors", Value: 0}, {Name: "power_violation", Value: 4.5e-6},
		}}
	decode := func(line []byte) (gpuRow, []byte) {
		t.Helper()
		var d gpuDecoder
		var b gpuBatch
		if err := d.decodeLine(&b, line); err != nil || len(b.rows) != 1 {
			t.Fatalf("%s: %v, %d rows", line, err, len(b.rows))
		}
		row := b.rows[0]
		var text []byte
		for i := range row.strs {
			text = append(append(text, b.str(&row, i)...), 0)
			row.strs[i] = span{}
		}
		return row, text
	}
	row10, text10 := decode(r.AppendJSON(nil))
	row14, text14 := decode(r.AppendJSON14(nil))
	if !reflect.DeepEqual(row10, row14) || string(text10) != string(text14) {
		t.Errorf("1.0 %+v %q\n1.4 %+v %q", row10, text10, row14, text14)
	}
	for i, f := range GPUFields {
		if want, ok := map[string]float64{"gpu_power_usage": 69.6, "mem_utilization": 26, "gpu_memory_used": 76.968624128}[f.Column]; ok && row14.fields[i] != want {
			t.Errorf("%s = %v, want %v", f.Column, row14.fields[i], want)
		}
	}
}
