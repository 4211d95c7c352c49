package export

import (
	"fmt"
	"io"

	"github.com/aiperf-go/aiperf/internal/pyjson"
	"github.com/aiperf-go/aiperf/telemetry"
)

// WriteServerMetricsMetadata writes server_metrics_metadata.json: per
// endpoint URL, the schema of every family it exposed, as AIPerf's
// server-metrics exporter wrote it before 0.13 (0.13 writes no such file):
//
//	{"endpoints": {url: {"endpoint_url", "endpoint_display",
//	  "metric_schemas": {name: {"type", "help", "bucket_labels",
//	  "quantile_labels", "unique_label_values": {label: [values]}}}}}}
//
// indented by two spaces (orjson), absent fields left out. Families are
// named as AIPerf names them (a counter without _total) and include
// summaries; label values are capped per label (see
// telemetry.ServerMetricsOptions.MaxLabelValues).
func WriteServerMetricsMetadata(w io.Writer, s *telemetry.ServerMetricsSummary) error {
	iw := &indentWriter{b: make([]byte, 0, 16<<10)}
	iw.b = append(iw.b, '{')
	iw.key(true, 1, "endpoints")
	if len(s.Endpoints) == 0 {
		iw.b = append(iw.b, '{', '}')
	} else {
		iw.b = append(iw.b, '{')
		for i := range s.Endpoints {
			ep := &s.Endpoints[i]
			iw.key(i == 0, 2, ep.URL)
			iw.b = append(iw.b, '{')
			iw.key(true, 3, "endpoint_url")
			iw.b = pyjson.AppendString(iw.b, ep.URL)
			iw.key(false, 3, "endpoint_display")
			iw.b = pyjson.AppendString(iw.b, ep.URL)
			iw.key(false, 3, "metric_schemas")
			appendMetricSchemas(iw, ep.Schemas)
			iw.newline(2)
			iw.b = append(iw.b, '}')
		}
		iw.newline(1)
		iw.b = append(iw.b, '}')
	}
	iw.newline(0)
	iw.b = append(iw.b, '}')
	if _, err := w.Write(iw.b); err != nil {
		return fmt.Errorf("write server metrics metadata: %w", err)
	}
	return nil
}

// appendMetricSchemas writes {name: schema, …} at depth 3.
func appendMetricSchemas(iw *indentWriter, schemas []telemetry.MetricSchema) {
	if len(schemas) == 0 {
		iw.b = append(iw.b, '{', '}')
		return
	}
	iw.b = append(iw.b, '{')
	for i := range schemas {
		sc := &schemas[i]
		iw.key(i == 0, 4, sc.Name)
		iw.b = append(iw.b, '{')
		iw.key(true, 5, "type")
		iw.b = pyjson.AppendString(iw.b, sc.Type)
		iw.key(false, 5, "help")
		iw.b = pyjson.AppendString(iw.b, sc.Help)
		if len(sc.BucketLabels) > 0 {
			iw.key(false, 5, "bucket_labels")
			appendStrings(iw, sc.BucketLabels, 5)
		}
		if len(sc.QuantileLabels) > 0 {
			iw.key(false, 5, "quantile_labels")
			appendStrings(iw, sc.QuantileLabels, 5)
		}
		if len(sc.LabelValues) > 0 {
			iw.key(false, 5, "unique_label_values")
			iw.b = append(iw.b, '{')
			for j, lv := range sc.LabelValues {
				iw.key(j == 0, 6, lv.Name)
				appendStrings(iw, lv.Values, 6)
			}
			iw.newline(5)
			iw.b = append(iw.b, '}')
		}
		iw.newline(4)
		iw.b = append(iw.b, '}')
	}
	iw.newline(3)
	iw.b = append(iw.b, '}')
}
