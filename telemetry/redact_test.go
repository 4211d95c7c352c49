package telemetry

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unsafe"

	dto "github.com/prometheus/client_model/go"

	"github.com/aiperf-go/aiperf/internal/secret"
)

// TestCredentialsStayOutOfSourcesAndErrors: a metrics URL with a password
// and a token reaches the run's artifacts and logs (Source, Health's last
// error, the readings' telemetry_source_url, the server's identity) only
// redacted, whether the endpoint answers, fails or is down.
func TestCredentialsStayOutOfSourcesAndErrors(t *testing.T) {
	const leak = "hunter2"
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "nope", http.StatusInternalServerError)
	}))
	defer failing.Close()
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("{not an exposition\n"))
	}))
	defer garbage.Close()
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	dcgm := serveBodies(t, readTestdata(t, "two_h100.prom"))
	withCreds := func(base string) string {
		return strings.Replace(base, "://", "://bob:"+leak+"@", 1) + "/metrics?token=" + leak
	}
	var cs []Collector
	for _, base := range []string{failing.URL, garbage.URL, dead.URL} {
		cs = append(cs, NewPrometheus(withCreds(base), nil), NewDCGM(withCreds(base), nil))
	}
	good := NewDCGM(withCreds(dcgm.URL), nil)
	cs = append(cs, good)
	for _, c := range cs {
		_, err := c.Collect(context.Background())
		if strings.Contains(c.Source(), leak) || (err != nil && strings.Contains(err.Error(), leak)) {
			t.Errorf("source %q, error %v: the secret shows", c.Source(), err)
		}
		if err == nil && c != Collector(good) {
			t.Errorf("%s: no error", c.Source())
		}
	}
	s, err := good.Collect(context.Background())
	if err != nil || len(s.GPUs) == 0 {
		t.Fatalf("good DCGM: %v", err)
	}
	if strings.Contains(s.Source, leak) || strings.Contains(s.GPUs[0].SourceURL, leak) {
		t.Errorf("sample source %q, reading source %q", s.Source, s.GPUs[0].SourceURL)
	}
	if _, err := MetricsURL("http://bob:" + leak + "%zz@host"); err == nil || strings.Contains(err.Error(), leak) {
		t.Errorf("MetricsURL error %v", err)
	}
	id := Identify(context.Background(), http.DefaultClient, strings.Replace(dead.URL, "://", "://bob:"+leak+"@", 1), nil, nil, time.Second)
	if strings.Contains(id.URL, leak) || !strings.Contains(id.URL, secret.Redacted) {
		t.Errorf("identity URL %q", id.URL)
	}
}

// sharesData reports whether two strings start at the same byte in memory.
func sharesData(a, b string) bool {
	return len(a) > 0 && len(b) > 0 && unsafe.StringData(a) == unsafe.StringData(b)
}

// TestKeptStringsDoNotShareTheScrape: the fast parser cuts a scrape's
// strings from one buffer, so a string kept past the scrape must be a copy
// or it keeps the whole body alive: the DCGM readings' identity (kept by
// GPUStats) and the server identity's info labels (kept all run).
func TestKeptStringsDoNotShareTheScrape(t *testing.T) {
	fams, err := ParseExposition([]byte(readTestdata(t, "two_h100.prom")))
	if err != nil {
		t.Fatal(err)
	}
	gpus, err := dcgmReadings(fams, "src", 1)
	if err != nil || len(gpus) == 0 {
		t.Fatalf("readings: %v", err)
	}
	info, err := ParseExposition([]byte("# TYPE vllm:cache_config_info gauge\nvllm:cache_config_info{block_size=\"16\"} 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	id := infoMetrics(info)
	var scraped []*dto.Metric
	for _, f := range fams {
		scraped = append(scraped, f.GetMetric()...)
	}
	for _, m := range append(scraped, info["vllm:cache_config_info"].GetMetric()...) {
		for _, l := range m.GetLabel() {
			for _, g := range gpus {
				for _, s := range []string{g.GPUUUID, g.GPUModelName, g.PCIBusID, g.Device, g.Hostname} {
					if sharesData(s, l.GetValue()) {
						t.Errorf("reading string %q shares the scrape's buffer", s)
					}
				}
			}
			for name, labels := range id {
				for k, v := range labels {
					if sharesData(k, l.GetName()) || sharesData(v, l.GetValue()) || sharesData(name, "vllm:cache_config_info") {
						t.Errorf("info label %s=%q shares the scrape's buffer", k, v)
					}
				}
			}
		}
	}
}
