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
)

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://localhost:8000/metrics":                      "http://localhost:8000/metrics",
		"https://bob:secret@host:9/metrics":                  "https://<redacted>@host:9/metrics",
		"http://host/metrics?api_key=abc&format=text":        "http://host/metrics?api_key=<redacted>&format=text",
		"http://u@host/metrics?x=1&Session=s&Token=t&plain=": "http://<redacted>@host/metrics?x=1&Session=<redacted>&Token=<redacted>&plain=",
		// Text url.Parse rejects (a bad escape, a space) is redacted too.
		"http://bob:p%zz@host/metrics":    "http://<redacted>@host/metrics",
		"http://bob:pa ss@host/metrics":   "http://<redacted>@host/metrics",
		"http://bob:a@b@host:9/metrics":   "http://<redacted>@host:9/metrics",
		"bob:secret@host:9400/metrics":    "<redacted>@host:9400/metrics",
		"http://host/users@example.com":   "http://host/users@example.com",
		"http://host/m?email=a@b.com#top": "http://host/m?email=a@b.com#top",
		"http://host/m?%61uth=x#frag":     "http://host/m?%61uth=<redacted>#frag",
		"http://host/m?api%5Fkey=x&y=2":   "http://host/m?api%5Fkey=<redacted>&y=2",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%s) = %s, want %s", in, got, want)
		}
	}
	clean := "http://localhost:8000/metrics?format=text"
	if n := testing.AllocsPerRun(100, func() { _ = RedactURL(clean) }); n != 0 {
		t.Errorf("redactURL of a URL without credentials allocates %v times", n)
	}
}

// TestCredentialsStayOutOfSourcesAndErrors: a metrics URL with a password
// and a token reaches the run's artifacts and logs (Source, Health's last
// error, the readings' telemetry_source_url, the server's identity) only
// redacted, whether the endpoint answers, fails or is down.
func TestCredentialsStayOutOfSourcesAndErrors(t *testing.T) {
	const secret = "hunter2"
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
		return strings.Replace(base, "://", "://bob:"+secret+"@", 1) + "/metrics?token=" + secret
	}
	var cs []Collector
	for _, base := range []string{failing.URL, garbage.URL, dead.URL} {
		cs = append(cs, NewPrometheus(withCreds(base), nil), NewDCGM(withCreds(base), nil))
	}
	good := NewDCGM(withCreds(dcgm.URL), nil)
	cs = append(cs, good)
	for _, c := range cs {
		_, err := c.Collect(context.Background())
		if strings.Contains(c.Source(), secret) || (err != nil && strings.Contains(err.Error(), secret)) {
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
	if strings.Contains(s.Source, secret) || strings.Contains(s.GPUs[0].SourceURL, secret) {
		t.Errorf("sample source %q, reading source %q", s.Source, s.GPUs[0].SourceURL)
	}
	if _, err := MetricsURL("http://bob:" + secret + "%zz@host"); err == nil || strings.Contains(err.Error(), secret) {
		t.Errorf("MetricsURL error %v", err)
	}
	id := Identify(context.Background(), http.DefaultClient, strings.Replace(dead.URL, "://", "://bob:"+secret+"@", 1), nil, nil, time.Second)
	if strings.Contains(id.URL, secret) || !strings.Contains(id.URL, redacted) {
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
