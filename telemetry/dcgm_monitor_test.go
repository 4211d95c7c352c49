package telemetry

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/record"
)

// TestDCGMThroughMonitor runs the run's lifecycle against a live
// DCGM-like endpoint whose energy counter and power move with every
// scrape: samples before Start, a window, End, the final CollectNow,
// Close. The summary must agree with a direct computation over the raw
// samples the consumer saw.
func TestDCGMThroughMonitor(t *testing.T) {
	var scrapes atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		k := scrapes.Add(1)
		fmt.Fprintf(w, "# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n"+
			"DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",UUID=\"GPU-z\",modelName=\"M\"} %d\n"+
			"# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n"+
			"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu=\"0\",UUID=\"GPU-z\",modelName=\"M\"} %d\n",
			100+k%7, (1000+3*k)*1_000_000_000)
	}))
	defer srv.Close()

	clock := record.NewClock()
	acc := NewGPUStats()
	var mu sync.Mutex
	var raw []Sample
	m := Start(context.Background(), []Source{{Collector: NewDCGM(srv.URL+"/metrics", srv.Client()), Interval: 5 * time.Millisecond}},
		func(s Sample) {
			mu.Lock()
			raw = append(raw, s)
			mu.Unlock()
			acc.Add(s)
		}, Options{Clock: clock})
	time.Sleep(30 * time.Millisecond)
	start := clock.Wall(clock.Now())
	acc.Start(start)
	time.Sleep(60 * time.Millisecond)
	end := clock.Wall(clock.Now())
	acc.End(end)
	m.CollectNow(context.Background())
	health := m.Close()
	if len(health) != 1 || !health[0].Reachable || health[0].Failures != 0 {
		t.Fatalf("health %+v", health)
	}

	// The direct computation.
	var base, last float64
	hasBase := false
	var power []float64
	for _, s := range raw {
		if len(s.GPUs) != 1 || s.GPUs[0].TimestampNS == 0 {
			t.Fatalf("sample %+v", s)
		}
		p, _ := s.GPUs[0].Data.Get("gpu_power_usage")
		e, _ := s.GPUs[0].Data.Get("energy_consumption")
		switch {
		case s.TimeNS < start:
			base, hasBase = e, true
		case s.TimeNS <= end+int64(GPUFinalScrapeGrace):
			power = append(power, p)
			last = e
		}
	}
	if !hasBase || len(power) < 3 {
		t.Fatalf("baseline %v, %d samples in the window", hasBase, len(power))
	}
	sum := 0.0
	for _, p := range power {
		sum += p
	}
	g := acc.Summary().Endpoints[0].GPUs[0]
	pm, em := g.Metric("gpu_power_usage"), g.Metric("energy_consumption")
	if pm.Count != len(power) || math.Abs(pm.Avg-sum/float64(len(power))) > 1e-9 {
		t.Errorf("power %+v, want %d values averaging %v", *pm, len(power), sum/float64(len(power)))
	}
	if math.Abs(em.Avg-(last-base)) > 1e-9 || em.Avg <= 0 {
		t.Errorf("energy %v MJ, want %v", em.Avg, last-base)
	}
}
