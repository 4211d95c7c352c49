package telemetry

import (
	"bytes"
	"os"
	"slices"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"google.golang.org/protobuf/proto"
)

// expfmtParse is the reference: expfmt's TextParser.
func expfmtParse(body []byte) (map[string]*dto.MetricFamily, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(bytes.NewReader(body))
}

// sameAsExpfmt checks that when fastParse accepts body, expfmt accepts it
// too and builds equal families; it reports whether fastParse accepted.
func sameAsExpfmt(t *testing.T, body []byte) bool {
	t.Helper()
	fast, ok := fastParse(body)
	if !ok {
		return false
	}
	ref, err := expfmtParse(body)
	if err != nil {
		t.Fatalf("fastParse accepted what expfmt rejects (%v):\n%q", err, body)
	}
	var fn, rn []string
	for n := range fast {
		fn = append(fn, n)
	}
	for n := range ref {
		rn = append(rn, n)
	}
	slices.Sort(fn)
	slices.Sort(rn)
	if !slices.Equal(fn, rn) {
		t.Fatalf("families %v, expfmt %v:\n%q", fn, rn, body)
	}
	for n, f := range ref {
		if !proto.Equal(f, fast[n]) {
			t.Fatalf("family %s differs:\n fast %v\n expfmt %v\nbody %q", n, fast[n], f, body)
		}
	}
	return true
}

// TestFastParseMatchesExpfmt: the real expositions the fast path is for
// (a vLLM-like one, node_exporter's, prometheus_client's) are taken by it
// and give expfmt's families exactly.
func TestFastParseMatchesExpfmt(t *testing.T) {
	bodies := map[string][]byte{"vllm-like": vllmExposition(3)}
	for _, f := range []string{"node_exporter.prom", "python_client.prom"} {
		b, err := os.ReadFile("testdata/server/" + f)
		if err != nil {
			t.Fatal(err)
		}
		bodies[f] = b
	}
	for name, b := range bodies {
		if !sameAsExpfmt(t, b) {
			t.Errorf("%s: the fast path declined it", name)
		}
	}
}

// TestFastParseEdges: inputs at the edge of the subset are either taken
// and equal to expfmt's result, or left to expfmt.
func TestFastParseEdges(t *testing.T) {
	taken := []string{
		"",
		"a 1\n",
		"a{} 1\n",
		"a{b=\"c\",} 1\n",
		"a{b=\"c \\\"q\\\" \\\\ \\n\"} -Inf 1700000000000\n",
		"# HELP a Some \\\\ help \\n here.\n# TYPE a gauge\na 1e-300\n",
		"# a comment\n\n# HELPER not help\na 1\n",
		"# TYPE h histogram\nh_bucket{x=\"1\",le=\"0.5\"} 1\nh_sum{x=\"1\"} 0.25\nh_bucket{le=\"+Inf\",x=\"1\"} 2\nh_count{x=\"1\"} 2\nh_bucket{x=\"2\",le=\"+Inf\"} 0\n",
		"# TYPE s summary\ns{quantile=\"0.5\"} 1\ns{quantile=\"0.9\"} 2\ns_sum 3\ns_count 4\n",
		"# TYPE c counter\nc_total 1\nc 2\n",
		"# HELP h_count x\n# TYPE h histogram\nh_count 1\n",
		"a_count 1\n# TYPE a summary\na{quantile=\"1\"} 1\n",
	}
	for _, b := range taken {
		if !sameAsExpfmt(t, []byte(b)) {
			t.Errorf("declined %q", b)
		}
	}
	declined := []string{
		"a 1",                               // no final newline: expfmt's error
		"a  1\n",                            // extra space
		"a\t1\n",                            // tab
		"{\"a.b\"} 1\n",                     // quoted name
		"a{b=\"c\"d=\"e\"} 1\n",             // no comma
		"a{b=\"\\x\"} 1\n",                  // bad escape
		"# TYPE a gaugehistogram\na 1\n",    // gauge histogram
		"# TYPE a GAUGE\na 1\n",             // upper-case type
		"# TYPE h histogram\nh 1\n",         // bare histogram sample
		"# TYPE h histogram\nh_bucket 1\n",  // bucket without le
		"# TYPE h histogram\nh_count 1.5\n", // fractional count
		"a 1 2 3\n",
		"a 1 \n",
		"a 0x1p3\n",
		"a 1_000\n",
		"a{__name__=\"x\"} 1\n",
		"a{b=\"1\",b=\"2\"} 1\n",
		"a 1\n# TYPE a gauge\n",
		"# HELP a x\n# HELP a y\na 1\n",
		"#\tHELP a x\na 1\n",
	}
	for _, b := range declined {
		if _, ok := fastParse([]byte(b)); ok {
			t.Errorf("took %q", b)
		}
	}
}

// FuzzFastParse: whatever fastParse takes, expfmt takes too and parses to
// the same families.
func FuzzFastParse(f *testing.F) {
	f.Add(vllmExposition(1)[:4000])
	for _, s := range []string{
		"# TYPE h histogram\nh_bucket{x=\"1\",le=\"0.5\"} 1\nh_sum{x=\"1\"} 0.25\nh_count{x=\"1\"} 2\n",
		"# TYPE s summary\ns{quantile=\"0.5\"} 1\ns_sum 3\ns_count 4\n",
		"# HELP a Some \\\\ help.\n# TYPE a gauge\na{b=\"c\\n\"} 1 17\n",
		"a_count 1\n# TYPE a summary\na{quantile=\"1\"} 1\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		sameAsExpfmt(t, body)
	})
}
