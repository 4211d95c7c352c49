package telemetry

import dto "github.com/prometheus/client_model/go"

// MetricTypes returns the type of every family of a scrape as AIPerf's
// raw records name it (a counter without _total; families AIPerf leaves
// out are left out), so that a reader of the raw records alone, such as
// the records of a run that never finished, can tell counters from
// gauges.
func MetricTypes(fams map[string]*dto.MetricFamily) map[string]MetricType {
	out := make(map[string]MetricType, len(fams))
	for name, f := range fams {
		if aname, typ, ok := familyView(name, f); ok {
			out[aname] = typ
		}
	}
	return out
}
