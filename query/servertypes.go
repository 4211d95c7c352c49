package query

import "strings"

// ServerMetricTypes are the values of server_metrics.type.
var ServerMetricTypes = []string{"gauge", "counter", "histogram", "summary", "untyped"}

// Indexes of ServerMetricTypes; typeDerive marks a type still to derive.
const (
	typeGauge uint8 = iota
	typeCounter
	typeHistogram
	typeSummary
	typeUntyped
	typeDerive uint8 = 255
)

// parseMetricType maps a type as a record or an export names it to its
// index: Prometheus' and AIPerf's names, "unknown" for untyped; other
// names (OpenMetrics' info, stateset, gaugehistogram) are untyped.
func parseMetricType(t string) uint8 {
	switch strings.ToLower(t) {
	case "gauge":
		return typeGauge
	case "counter":
		return typeCounter
	case "histogram":
		return typeHistogram
	case "summary":
		return typeSummary
	}
	return typeUntyped
}

// deriveType is the type of a sample whose record and run do not say.
func deriveType(name []byte, r *serverRow) uint8 {
	switch {
	case r.null&(1<<srvColBuckets) == 0:
		return typeHistogram
	case r.null&(1<<srvColQuantiles) == 0:
		return typeSummary
	case strings.HasSuffix(string(name), "_total"):
		return typeCounter
	}
	return typeGauge
}

// parseMetricTypes returns the type of every metric that a
// server_metrics_export.json names ({"metrics": {name: {"type": …}}}) or
// a server_metrics_metadata.json ({"endpoints": {url: {"metric_schemas":
// {name: {"type": …}}}}}), or nil when the document cannot be read: types
// are then derived.
func parseMetricTypes(data []byte) map[string]uint8 {
	var s jsonScanner
	s.reset(data)
	s.ws()
	types := map[string]uint8{}
	err := members(&s, func(key []byte) error {
		switch string(key) {
		case "metrics": // the export
			return metricTypes(&s, types)
		case "endpoints": // the metadata
			return members(&s, func([]byte) error {
				return members(&s, func(key []byte) error {
					if string(key) != "metric_schemas" {
						return s.skip(0)
					}
					return metricTypes(&s, types)
				})
			})
		}
		return s.skip(0)
	})
	if err != nil {
		return nil
	}
	return types
}

// metricTypes reads an object of metric descriptions by name into types.
func metricTypes(s *jsonScanner, types map[string]uint8) error {
	return members(s, func(key []byte) error {
		name := string(key)
		return members(s, func(k []byte) error {
			if string(k) != "type" || s.peek() != '"' {
				return s.skip(0)
			}
			t, err := s.str()
			if err == nil {
				types[name] = parseMetricType(string(t))
			}
			return err
		})
	})
}
