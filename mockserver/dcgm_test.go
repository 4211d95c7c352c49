package mockserver

import (
	"fmt"
	"math"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// aiperfDCGMFields are the DCGM fields AIPerf maps (aiperf/gpu_telemetry/
// constants.py) or records in its GPU telemetry export, less the encoder
// and decoder utilisations, which a serving GPU leaves at 0.
var aiperfDCGMFields = []string{
	"DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "DCGM_FI_DEV_GPU_UTIL",
	"DCGM_FI_DEV_MEM_COPY_UTIL", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_FB_TOTAL",
	"DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_MEMORY_TEMP", "DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_MEM_CLOCK",
	"DCGM_FI_PROF_SM_ACTIVE", "DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DEV_POWER_VIOLATION",
	"DCGM_FI_DEV_THERMAL_VIOLATION", "DCGM_FI_DEV_POWER_MGMT_LIMIT",
}

var uuidPattern = regexp.MustCompile(`^GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// gpuLabels returns GPU i's labels from field's series.
func gpuLabels(t testing.TB, f families, field string, i int) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, l := range f.metric(t, field, "gpu="+strconv.Itoa(i)).GetLabel() {
		out[l.GetName()] = l.GetValue()
	}
	return out
}

func TestDCGMExposition(t *testing.T) {
	const n = 3
	s := startServer(t, Config{FakeGPUs: n, Seed: 7, DCGMAddr: "127.0.0.1:0"})
	if s.DCGMAddr() == "127.0.0.1:0" {
		t.Fatalf("DCGMAddr %q: want the actual port", s.DCGMAddr())
	}
	for _, url := range []string{s.URL() + "/dcgm/metrics", "http://" + s.DCGMAddr() + "/metrics"} {
		f := scrape(t, url)
		uuids := map[string]bool{}
		for i := range n {
			for _, field := range aiperfDCGMFields {
				if len(f[field].GetMetric()) != n {
					t.Fatalf("%s: %s has %d series, want %d", url, field, len(f[field].GetMetric()), n)
				}
				l := gpuLabels(t, f, field, i)
				for _, k := range []string{"UUID", "pci_bus_id", "modelName", "Hostname", "DCGM_FI_DRIVER_VERSION"} {
					if l[k] == "" {
						t.Errorf("%s %s gpu %d: no %s label in %v", url, field, i, k, l)
					}
				}
				if l["device"] != fmt.Sprintf("nvidia%d", i) {
					t.Errorf("%s gpu %d: device %q", field, i, l["device"])
				}
			}
			u := gpuLabels(t, f, "DCGM_FI_DEV_GPU_UTIL", i)["UUID"]
			if !uuidPattern.MatchString(u) {
				t.Errorf("gpu %d: UUID %q is not in NVML's form", i, u)
			}
			uuids[u] = true
			used := f.value(t, "DCGM_FI_DEV_FB_USED", "gpu="+strconv.Itoa(i))
			free := f.value(t, "DCGM_FI_DEV_FB_FREE", "gpu="+strconv.Itoa(i))
			total := f.value(t, "DCGM_FI_DEV_FB_TOTAL", "gpu="+strconv.Itoa(i))
			if used <= 0 || free <= 0 || used+free > total {
				t.Errorf("gpu %d: framebuffer used %v free %v total %v", i, used, free, total)
			}
		}
		if len(uuids) != n {
			t.Errorf("%s: UUIDs %v are not distinct", url, uuids)
		}
		if got := f["DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"].GetType().String(); got != "COUNTER" {
			t.Errorf("energy is a %s, want a counter", got)
		}
	}

	// The UUIDs follow the seed.
	uuid0 := func(seed uint64) string {
		s := startServer(t, Config{FakeGPUs: 1, Seed: seed})
		return gpuLabels(t, scrape(t, s.URL()+"/dcgm/metrics"), "DCGM_FI_DEV_GPU_UTIL", 0)["UUID"]
	}
	if a, b, c := uuid0(7), uuid0(7), uuid0(8); a != b || a == c {
		t.Errorf("UUIDs for seeds 7, 7, 8: %s %s %s; want equal, then different", a, b, c)
	}
}

// gpuScrape is one timed scrape of the fake GPUs: the server read its
// clock somewhere between sent and received.
type gpuScrape struct {
	f              families
	sent, received time.Time
}

func scrapeGPUs(t testing.TB, s *Server) gpuScrape {
	t.Helper()
	sent := time.Now()
	f := scrape(t, s.URL()+"/dcgm/metrics")
	return gpuScrape{f: f, sent: sent, received: time.Now()}
}

// checkEnergy checks that each GPU's energy counter grew from a to b by
// the power b reports (the mean over the interval) times the interval,
// which lies between the two scrapes' bounds, within the counter's 1 mJ
// truncation.
func checkEnergy(t *testing.T, n int, a, b gpuScrape) {
	t.Helper()
	shortest, longest := b.sent.Sub(a.received).Seconds(), b.received.Sub(a.sent).Seconds()
	for i := range n {
		gpu := "gpu=" + strconv.Itoa(i)
		e0 := a.f.value(t, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", gpu)
		e1 := b.f.value(t, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", gpu)
		p := b.f.value(t, "DCGM_FI_DEV_POWER_USAGE", gpu)
		if lo, hi := p*shortest*1e3-1, p*longest*1e3+1; e1-e0 < lo || e1-e0 > hi {
			t.Errorf("gpu %d: energy grew %v mJ at %v W, want within [%v, %v]", i, e1-e0, p, lo, hi)
		}
	}
}

// TestDCGMFollowsLoad holds streams open and checks each GPU's
// utilisation, power and energy against the documented load model, with
// the load spread evenly over the GPUs.
func TestDCGMFollowsLoad(t *testing.T) {
	const gpus, streams = 2, 4
	s := startServer(t, Config{FakeGPUs: gpus, ITL: time.Hour})
	gauge := func(sc gpuScrape, field string, i int) float64 {
		return sc.f.value(t, field, "gpu="+strconv.Itoa(i))
	}
	// expect checks the readings of a scrape after an interval of constant
	// load, perGPU requests on each GPU.
	expect := func(sc gpuScrape, perGPU float64) {
		t.Helper()
		for i := range gpus {
			idle := 69 + 0.6*float64(i)
			sat := func(half float64) float64 { return perGPU / (perGPU + half) }
			clock := 345 + (1980-345)*math.Min(perGPU/0.125, 1)
			for _, c := range []struct {
				field string
				want  float64
				tol   float64
			}{
				{"DCGM_FI_DEV_GPU_UTIL", math.Round(100 * sat(0.5)), 0},
				{"DCGM_FI_DEV_MEM_COPY_UTIL", math.Round(85 * sat(2)), 0},
				{"DCGM_FI_PROF_SM_ACTIVE", 0.95 * sat(4), 1e-6},
				{"DCGM_FI_DEV_POWER_USAGE", idle + (640-idle)*sat(8), 1e-6},
				{"DCGM_FI_DEV_SM_CLOCK", math.Round(clock), 0},
			} {
				if got := gauge(sc, c.field, i); math.Abs(got-c.want) > c.tol {
					t.Errorf("gpu %d at %v requests: %s = %v, want %v", i, perGPU, c.field, got, c.want)
				}
			}
		}
	}

	idle0 := scrapeGPUs(t, s)
	time.Sleep(200 * time.Millisecond)
	idle1 := scrapeGPUs(t, s)
	expect(idle1, 0)
	checkEnergy(t, gpus, idle0, idle1)

	body := `{"model":"m","prompt":[1,2,3],"max_tokens":5,"stream":true}`
	var cancels []func()
	for range streams {
		cancels = append(cancels, openStream(t, s, body))
	}
	eventually(t, func() error {
		if r := scrape(t, s.URL()+"/metrics").value(t, "vllm:num_requests_running"); r != streams {
			return fmt.Errorf("running %v, want %d", r, streams)
		}
		return nil
	})
	busy0 := scrapeGPUs(t, s) // ends the interval in which the streams opened
	time.Sleep(200 * time.Millisecond)
	busy1 := scrapeGPUs(t, s)
	expect(busy1, streams/gpus)
	checkEnergy(t, gpus, busy0, busy1)
	for i := range gpus {
		if u, idle := gauge(busy1, "DCGM_FI_DEV_GPU_UTIL", i), gauge(idle1, "DCGM_FI_DEV_GPU_UTIL", i); u <= idle {
			t.Errorf("gpu %d: utilisation %v under load, not above %v idle", i, u, idle)
		}
	}

	for _, c := range cancels {
		c()
	}
	// The load clock lets a request go just before mock_requests_in_flight.
	eventually(t, func() error {
		if r := scrape(t, s.URL()+"/metrics").value(t, "mock_requests_in_flight"); r != 0 {
			return fmt.Errorf("in flight %v, want 0", r)
		}
		return nil
	})
	after0 := scrapeGPUs(t, s)
	time.Sleep(100 * time.Millisecond)
	after1 := scrapeGPUs(t, s)
	expect(after1, 0)
	checkEnergy(t, gpus, after0, after1)

	for i := range gpus {
		prev := 0.0
		for k, sc := range []gpuScrape{idle0, idle1, busy0, busy1, after0, after1} {
			e := gauge(sc, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", i)
			if e < prev {
				t.Errorf("gpu %d: energy fell from %v to %v at scrape %d", i, prev, e, k)
			}
			prev = e
		}
	}
}

// TestDCGMOffByDefault: no fake GPUs, no DCGM route.
func TestDCGMOffByDefault(t *testing.T) {
	s := startServer(t, Config{})
	resp, err := http.Get(s.URL() + "/dcgm/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /dcgm/metrics without fake GPUs: %d, want 404", resp.StatusCode)
	}
	if s.DCGMAddr() != "" {
		t.Errorf("DCGMAddr %q, want empty", s.DCGMAddr())
	}
}

// BenchmarkLoadClock measures a request's enter and leave, from all CPUs.
func BenchmarkLoadClock(b *testing.B) {
	c := newLoadClock()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			at := time.Now()
			c.enter(at)
			c.leave(at)
		}
	})
}

// FuzzEscapeLabel checks that an escaped host name survives the
// exposition parser unchanged.
func FuzzEscapeLabel(f *testing.F) {
	for _, s := range []string{"vm", `a"b`, `back\slash`, "new\nline", "ünï", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		if !utf8.ValidString(host) {
			t.Skip("label values are UTF-8")
		}
		text := `DCGM_FI_DEV_GPU_UTIL{gpu="0",Hostname="` + escapeLabel(host) + "\"} 1\n"
		p := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := p.TextToMetricFamilies(strings.NewReader(text))
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		for _, l := range fams["DCGM_FI_DEV_GPU_UTIL"].GetMetric()[0].GetLabel() {
			if l.GetName() == "Hostname" && l.GetValue() != host {
				t.Errorf("Hostname %q, want %q", l.GetValue(), host)
			}
		}
	})
}
