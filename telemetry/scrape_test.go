package telemetry

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// familySummary lists families as "name:TYPE:value,value…" (a histogram's
// values are its count and sum), sorted, for comparing parse results.
func familySummary(fams map[string]*dto.MetricFamily) []string {
	var out []string
	for name, f := range fams {
		var vals []string
		for _, m := range f.Metric {
			var v string
			switch {
			case m.Counter != nil:
				v = fmt.Sprint(m.Counter.GetValue())
			case m.Gauge != nil:
				v = fmt.Sprint(m.Gauge.GetValue())
			case m.Untyped != nil:
				v = fmt.Sprint(m.Untyped.GetValue())
			case m.Histogram != nil:
				v = fmt.Sprintf("n=%v,s=%v,b=%d", histogramCount(m.Histogram), m.Histogram.GetSampleSum(), len(m.Histogram.Bucket))
			case m.Summary != nil:
				v = fmt.Sprintf("n=%d", m.Summary.GetSampleCount())
			}
			for _, l := range m.Label {
				v = l.GetName() + "=" + l.GetValue() + " " + v
			}
			vals = append(vals, v)
		}
		out = append(out, name+":"+f.GetType().String()+":"+strings.Join(vals, ","))
	}
	slices.Sort(out)
	return out
}

func TestParseExposition(t *testing.T) {
	cases := []struct {
		name, body string
		want       []string
	}{
		{"classic text", "# HELP a_total A.\n# TYPE a_total counter\na_total{x=\"1\"} 3\n# TYPE g gauge\ng 2.5\nu 7\n",
			[]string{"a_total:COUNTER:x=1 3", "g:GAUGE:2.5", "u:UNTYPED:7"}},
		{"OpenMetrics counter named without _total, _created dropped, exemplar cut",
			"# TYPE foo counter\n# HELP foo Foo.\nfoo_total 5 # {trace_id=\"abc\"} 1.0 1.7e9\nfoo_created 1.7e9\n# EOF\n",
			[]string{"foo_total:COUNTER:5"}},
		{"OpenMetrics histogram with UNIT, exemplars and _created",
			"# TYPE h histogram\n# UNIT h seconds\nh_bucket{le=\"0.1\"} 1 # {id=\"x\"} 0.05\nh_bucket{le=\"+Inf\"} 2\nh_sum 0.3\nh_count 2\nh_created 1.7e9\n# EOF\n",
			[]string{"h:HISTOGRAM:n=2,s=0.3,b=2"}},
		{"OpenMetrics info and stateset read as untyped",
			"# TYPE build info\nbuild_info{version=\"1\"} 1\n# TYPE s stateset\ns{s=\"a\"} 1\n# EOF\n",
			[]string{"build_info:UNTYPED:version=1 1", "s:UNTYPED:s=a 1"}},
		{"a # inside a quoted label value is not an exemplar",
			"foo{path=\"a # b\"} 1 # {id=\"q\"} 2\n# EOF\n",
			[]string{"foo:UNTYPED:path=a # b 1"}},
		{"UTF-8 quoted names", "# TYPE \"my.metric\" gauge\n{\"my.metric\", \"lab.el\"=\"x\"} 1\n",
			[]string{"my.metric:GAUGE:lab.el=x 1"}},
		{"_created families dropped in classic text too", "# TYPE x_created gauge\nx_created 1\ny 2\n",
			[]string{"y:UNTYPED:2"}},
		{"empty body", "", nil},
		{"summary kept by the parser", "# TYPE s summary\ns{quantile=\"0.5\"} 1\ns_sum 2\ns_count 3\n",
			[]string{"s:SUMMARY:n=3"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fams, err := ParseExposition([]byte(c.body))
			if err != nil {
				t.Fatal(err)
			}
			if got := familySummary(fams); !slices.Equal(got, c.want) {
				t.Errorf("got %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestParseExpositionGarbage(t *testing.T) {
	for _, body := range []string{
		"<html><body>Not Found</body></html>",
		`[{"iter": 1, "gpuMemUsage": 123}]`, // TRT-LLM's JSON at /metrics
		"metric{label=\"unterminated} 1\n",
		"a 1 2 3 4\n",
		"# TYPE a counter\na notanumber\n",
	} {
		if fams, err := ParseExposition([]byte(body)); err == nil {
			t.Errorf("%q parsed without error: %v", body, familySummary(fams))
		}
	}
}

func TestScraper(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Accept"), "text/plain") {
			t.Errorf("Accept %q", r.Header.Get("Accept"))
		}
		fmt.Fprint(w, "# TYPE g gauge\ng 1\n")
	})
	mux.HandleFunc("/down/metrics", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "no", http.StatusServiceUnavailable) })
	mux.HandleFunc("/junk/metrics", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "<html>") })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	ctx := context.Background()
	fams, err := (&Scraper{URL: srv.URL + "/metrics"}).Scrape(ctx)
	if err != nil || len(fams) != 1 {
		t.Fatalf("scrape: %v %v", familySummary(fams), err)
	}
	for _, path := range []string{"/down/metrics", "/junk/metrics"} {
		if _, err := (&Scraper{URL: srv.URL + path}).Scrape(ctx); err == nil || !strings.Contains(err.Error(), srv.URL) {
			t.Errorf("%s: error %v, want one naming the URL", path, err)
		}
	}
}

// TestMetricsURLEdges: queries, IPv6 hosts and user info survive.
func TestMetricsURLEdges(t *testing.T) {
	for in, want := range map[string]string{
		" node2:9090/metrics ":         "http://node2:9090/metrics",
		"http://h:1/prefix?x=1":        "http://h:1/prefix/metrics?x=1",
		"http://[::1]:9100":            "http://[::1]:9100/metrics",
		"http://user:pw@h:1/v1/health": "http://user:pw@h:1/v1/health/metrics",
	} {
		if got, err := MetricsURL(in); err != nil || got != want {
			t.Errorf("MetricsURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// FuzzParseExposition: any body either fails to parse or yields families
// that never panic the accumulator or the JSONL writer; and parsing is
// idempotent: writing the families as text and parsing that gives the same
// text again.
func FuzzParseExposition(f *testing.F) {
	for _, seed := range []string{
		"# HELP a_total A.\n# TYPE a_total counter\na_total{x=\"1\"} 3\n",
		"# TYPE h histogram\nh_bucket{le=\"0.1\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_sum 0.3\nh_count 2\n",
		"# TYPE foo counter\nfoo_total 5 # {trace_id=\"abc\"} 1.0 1.7e9\nfoo_created 1.7e9\n# EOF\n",
		"# TYPE \"my.metric\" gauge\n{\"my.metric\", label=\"x # y\"} NaN\n",
		"# TYPE s summary\ns{quantile=\"0.5\"} 1\ns_sum 2\ns_count 3\n",
		"g{a=\"b\"} +Inf 1700000000000\n# EOF",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		fams, err := ParseExposition(body)
		if err != nil {
			return
		}
		acc := NewServerMetrics(ServerMetricsOptions{SliceDuration: 1})
		acc.Start(0)
		s := Sample{Kind: KindServer, Source: "http://h/metrics", TimeNS: 1, Server: fams}
		acc.Add(s)
		s.TimeNS = 3
		acc.Add(s)
		_ = acc.Summary()
		_ = NewServerDedup().Append(nil, s)

		first, ok := writeText(fams)
		if !ok {
			return
		}
		again, err := ParseExposition(first)
		if err != nil {
			t.Fatalf("re-parsing our own text: %v\n%s", err, first)
		}
		second, _ := writeText(again)
		if !bytes.Equal(first, second) {
			t.Fatalf("not idempotent:\n%s\n---\n%s", first, second)
		}
	})
}

// writeText writes families as classic text, sorted by name; false when
// expfmt cannot (a family without samples, a name it will not write).
func writeText(fams map[string]*dto.MetricFamily) ([]byte, bool) {
	names := make([]string, 0, len(fams))
	for n := range fams {
		names = append(names, n)
	}
	slices.Sort(names)
	var b bytes.Buffer
	for _, n := range names {
		for _, m := range fams[n].Metric {
			for _, q := range m.GetSummary().GetQuantile() {
				if math.IsNaN(q.GetQuantile()) {
					return nil, false
				}
			}
		}
		if _, err := expfmt.MetricFamilyToText(&b, fams[n]); err != nil {
			return nil, false
		}
	}
	return b.Bytes(), true
}
