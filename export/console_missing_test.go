package export

import (
	"bytes"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/metrics"
)

// TestConsoleMissingStats: statistics a result lacks (Result.Missing) print
// N/A, as AIPerf prints its error-adjusted rows; the others print as usual.
func TestConsoleMissingStats(t *testing.T) {
	r := metrics.Result{Tag: "adj_request_latency", Header: "Request Latency (error-adjusted)", Unit: "ms",
		Console: true, Min: 12.79, Missing: []string{"avg", "max", "p90", "p99", "std"}}
	r.P[4] = 16.57
	var b bytes.Buffer
	if err := WriteConsoleExport(&b, &metrics.Summary{Results: []metrics.Result{r}}, nil); err != nil {
		t.Fatal(err)
	}
	want := "│ Request Latency (error-adjusted) │ N/A │ 12.79 │ N/A │ N/A │ N/A │ 16.57 │ N/A │"
	if !strings.Contains(b.String(), want) {
		t.Errorf("got\n%s\nwant a row\n%s", b.String(), want)
	}
}
