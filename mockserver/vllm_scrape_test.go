package mockserver

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// families is a parsed scrape.
type families map[string]*dto.MetricFamily

// scrape GETs url and parses it as the Prometheus text format, failing
// the test if the exposition is invalid.
func scrape(t testing.TB, url string) families {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("GET %s: Content-Type %q", url, ct)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: invalid exposition: %v", url, err)
	}
	return fams
}

// metric returns the series of family name whose labels include want
// (pairs "k=v"), failing the test unless there is exactly one.
func (f families) metric(t testing.TB, name string, want ...string) *dto.Metric {
	t.Helper()
	fam, ok := f[name]
	if !ok {
		t.Fatalf("no family %s", name)
	}
	var found []*dto.Metric
	for _, m := range fam.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		match := true
		for _, kv := range want {
			k, v, _ := strings.Cut(kv, "=")
			if labels[k] != v {
				match = false
			}
		}
		if match {
			found = append(found, m)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%s%v: %d series, want 1", name, want, len(found))
	}
	return found[0]
}

// value returns the value of a gauge, counter or untyped series.
func (f families) value(t testing.TB, name string, labels ...string) float64 {
	t.Helper()
	m := f.metric(t, name, labels...)
	switch {
	case m.Gauge != nil:
		return m.GetGauge().GetValue()
	case m.Counter != nil:
		return m.GetCounter().GetValue()
	case m.Untyped != nil:
		return m.GetUntyped().GetValue()
	}
	t.Fatalf("%s is not a scalar", name)
	return 0
}

// hist returns a histogram series' count, sum and cumulative bucket
// counts by upper bound.
func (f families) hist(t testing.TB, name string) (count uint64, sum float64, buckets map[float64]uint64) {
	t.Helper()
	h := f.metric(t, name, "engine=0", "model_name=mock-model").GetHistogram()
	if h == nil {
		t.Fatalf("%s is not a histogram", name)
	}
	buckets = map[float64]uint64{}
	for _, b := range h.GetBucket() {
		buckets[b.GetUpperBound()] = b.GetCumulativeCount()
	}
	return h.GetSampleCount(), h.GetSampleSum(), buckets
}

// bounds returns a histogram's finite upper bounds, ascending.
func (f families) bounds(t testing.TB, name string) []float64 {
	t.Helper()
	var out []float64
	for _, b := range f.metric(t, name).GetHistogram().GetBucket() {
		out = append(out, b.GetUpperBound())
	}
	sort.Float64s(out)
	return out
}

// eventually retries check every 5 ms until it returns nil, failing the
// test with its last error after 10 s.
func eventually(t testing.TB, check func() error) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// openStream starts a streaming completion of body and returns once its
// first token event has arrived; cancel ends it from the client side.
func openStream(t testing.TB, s *Server, body string) (cancel func()) {
	t.Helper()
	ctx, stop := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL()+"/v1/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		stop()
		t.Fatal(err)
	}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "data: ") {
			break
		}
	}
	if sc.Err() != nil {
		stop()
		t.Fatal(sc.Err())
	}
	return func() {
		stop()
		resp.Body.Close()
	}
}

// promptIDs returns a completions prompt of n token ids: exactly n prompt
// tokens, whatever the tokenizer.
func promptIDs(n int) string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprint(i + 1)
	}
	return "[" + strings.Join(ids, ",") + "]"
}

func TestPadding(t *testing.T) {
	for _, tc := range []struct {
		n        int
		requests uint64
	}{{1, 0}, {100, 7}, {2000, 12345}} {
		b := appendPadding(nil, tc.n, tc.requests)
		p := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := p.TextToMetricFamilies(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		f := fams["vllm:lora_request_queue_time_seconds"]
		adapters := len(f.GetMetric())
		if series := adapters * paddingSeriesPerAdapter; series < tc.n || series >= tc.n+paddingSeriesPerAdapter {
			t.Errorf("n=%d: %d series", tc.n, series)
		}
		var total uint64
		for _, m := range f.GetMetric() {
			h := m.GetHistogram()
			total += h.GetSampleCount()
			prev := uint64(0)
			for _, bk := range h.GetBucket() {
				if bk.GetCumulativeCount() < prev || bk.GetCumulativeCount() > h.GetSampleCount() {
					t.Fatalf("n=%d: buckets not cumulative: %v", tc.n, h)
				}
				prev = bk.GetCumulativeCount()
			}
		}
		if total != tc.requests {
			t.Errorf("n=%d: adapters saw %d requests, want %d", tc.n, total, tc.requests)
		}
	}
	if b := appendPadding(nil, 0, 5); len(b) != 0 {
		t.Error("padding 0 wrote series")
	}
}
