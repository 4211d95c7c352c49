package export

import (
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/telemetry"
)

// AppendGPUTelemetryCSV14 appends the GPU telemetry section AIPerf 0.13
// writes at the end of profile_export_aiperf.csv when it collected GPU
// telemetry (info.GPUTelemetry; nothing otherwise): two empty lines, the
// header "Endpoint,GPU_Index,GPU_Name,GPU_UUID,Platform,Metric,avg,min,max,
// sum,p1,…,p99,std" and ",Hostname" when a GPU has one, then a row per GPU
// and metric, in 0.13's metric order, named "<0.13 header> (<unit>)",
// statistics as %.2f and a counter's other than avg empty.
func AppendGPUTelemetryCSV14(b []byte, info *RunInfo) []byte {
	g := info.GPUTelemetry
	if g == nil {
		return b
	}
	hostname := false
	for _, e := range g.Endpoints {
		for _, gi := range e.GPUs {
			hostname = hostname || gi.Hostname != ""
		}
	}
	b = append(b, "\r\n\r\nEndpoint,GPU_Index,GPU_Name,GPU_UUID,Platform,Metric,"...)
	b = append(b, strings.Join(csvStatNames14[:], ",")...)
	if hostname {
		b = append(b, ",Hostname"...)
	}
	b = append(b, '\r', '\n')
	for _, e := range gpuEndpoints(g) {
		for _, kg := range e.val {
			gi := &kg.val
			for _, m := range gi.Metrics14() {
				b = appendCSVCell(b, e.key)
				b = append(b, ',')
				b = strconv.AppendInt(b, int64(gi.Index), 10)
				for _, s := range []string{gi.Name, gi.UUID, telemetry.GPUPlatformNVIDIA, m.Header + " (" + m.Unit + ")"} {
					b = append(b, ',')
					b = appendCSVCell(b, s)
				}
				vals := [...]float64{m.Avg, m.Min, m.Max, m.Sum,
					m.P[0], m.P[1], m.P[2], m.P[3], m.P[4], m.P[5], m.P[6], m.P[7], m.P[8], m.Std}
				for i := range vals {
					b = append(b, ',')
					if i == 0 || !m.Counter {
						b = appendCSVNumber(b, vals[i])
					}
				}
				if hostname {
					b = append(b, ',')
					b = appendCSVCell(b, hostnameCell(gi.Hostname))
				}
				b = append(b, '\r', '\n')
			}
		}
	}
	return b
}

// hostnameCell is a GPU's hostname as 0.13's CSV writes it: str() of the
// value, "None" for a GPU without one beside others that have one.
func hostnameCell(h string) string {
	if h == "" {
		return "None"
	}
	return h
}
