package telemetry

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/record"
)

// funcCollector is a fault-injecting collector: its collect function
// decides what each call returns.
type funcCollector struct {
	source  string
	collect func(ctx context.Context, n int) (Sample, error)
	calls   atomic.Int64
	active  atomic.Int64 // collections running now
	overlap atomic.Bool  // set when two ran at once
}

func (f *funcCollector) Source() string { return f.source }
func (f *funcCollector) Kind() Kind     { return KindGPU }
func (f *funcCollector) Collect(ctx context.Context) (Sample, error) {
	if f.active.Add(1) > 1 {
		f.overlap.Store(true)
	}
	defer f.active.Add(-1)
	n := int(f.calls.Add(1))
	return f.collect(ctx, n)
}

func TestMonitorHealthAndOrder(t *testing.T) {
	good := &funcCollector{source: "good", collect: func(_ context.Context, n int) (Sample, error) {
		return Sample{GPUs: []GPUReading{{GPUIndex: n}}}, nil
	}}
	flaky := &funcCollector{source: "flaky", collect: func(_ context.Context, n int) (Sample, error) {
		if n%2 == 0 {
			return Sample{}, fmt.Errorf("garbage %d", n)
		}
		return Sample{GPUs: []GPUReading{{GPUIndex: n}}}, nil
	}}
	none := &funcCollector{source: "none", collect: func(context.Context, int) (Sample, error) {
		return Sample{}, fmt.Errorf("nvml: %w", ErrNoData)
	}}
	var mu sync.Mutex
	got := map[string][]int{}
	m := Start(context.Background(), []Source{{good, 5 * time.Millisecond}, {flaky, 5 * time.Millisecond}, {none, 5 * time.Millisecond}},
		func(s Sample) {
			mu.Lock()
			got[s.Source] = append(got[s.Source], s.GPUs[0].GPUIndex)
			mu.Unlock()
		}, Options{Clock: record.NewClock()})
	time.Sleep(60 * time.Millisecond)
	m.CollectNow(context.Background())
	h := m.Close()
	if len(h) != 3 || h[0].Source != "good" || h[1].Source != "flaky" || h[2].Source != "none" {
		t.Fatalf("health order: %+v", h)
	}
	// Every successful collection reached the consumer, in order.
	for _, src := range []*funcCollector{good, flaky} {
		vals := got[src.source]
		for i := 1; i < len(vals); i++ {
			if vals[i] <= vals[i-1] {
				t.Errorf("%s: samples out of order: %v", src.source, vals)
			}
		}
	}
	if int64(len(got["good"])) != good.calls.Load() || h[0].Scrapes != good.calls.Load() || h[0].Failures != 0 || !h[0].Reachable {
		t.Errorf("good: %d samples, %d calls, health %+v", len(got["good"]), good.calls.Load(), h[0])
	}
	calls := flaky.calls.Load()
	if h[1].Scrapes != calls || h[1].Failures != calls/2 || int64(len(got["flaky"])) != calls-calls/2 || !strings.HasPrefix(h[1].LastError, "garbage") {
		t.Errorf("flaky: %d calls, %d samples, health %+v", calls, len(got["flaky"]), h[1])
	}
	if h[2].Reachable || h[2].Failures != 0 || !h[2].NoData || len(got["none"]) != 0 {
		t.Errorf("no-data source: %+v", h[2])
	}
	if good.overlap.Load() || flaky.overlap.Load() {
		t.Error("a collector ran twice at once (CollectNow beside the loop)")
	}
	if m.Close() != nil {
		t.Error("second Close returned health")
	}
}

func TestMonitorSlowSourceSkipsTicksAndDelaysNoOther(t *testing.T) {
	release := make(chan struct{})
	slow := &funcCollector{source: "slow", collect: func(ctx context.Context, n int) (Sample, error) {
		select {
		case <-release:
		case <-ctx.Done():
			return Sample{}, ctx.Err()
		}
		return Sample{GPUs: []GPUReading{{}}}, nil
	}}
	fast := &funcCollector{source: "fast", collect: func(context.Context, int) (Sample, error) {
		return Sample{GPUs: []GPUReading{{}}}, nil
	}}
	m := Start(context.Background(), []Source{{slow, 2 * time.Millisecond}, {fast, 2 * time.Millisecond}}, func(Sample) {}, Options{Clock: record.NewClock(), Timeout: 20 * time.Millisecond})
	// The slow source times out every 20 ms; meanwhile the fast one keeps
	// its own pace.
	deadline := time.Now().Add(5 * time.Second)
	for fast.calls.Load() < 3*slow.calls.Load()+10 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	close(release)
	h := m.Close()
	if fast.calls.Load() < 3*slow.calls.Load() {
		t.Errorf("the slow source held the fast one back: %d fast, %d slow", fast.calls.Load(), slow.calls.Load())
	}
	if h[0].Failures == 0 || !strings.Contains(h[0].LastError, "timed out") {
		t.Errorf("slow source's health does not say it timed out: %+v", h[0])
	}
	if h[0].Skipped == 0 {
		t.Errorf("slow source skipped no ticks: %+v", h[0])
	}
}

func TestMonitorDropsWhenConsumerIsBehind(t *testing.T) {
	block := make(chan struct{})
	src := &funcCollector{source: "s", collect: func(context.Context, int) (Sample, error) {
		return Sample{GPUs: []GPUReading{{}}}, nil
	}}
	var consumed atomic.Int64
	m := Start(context.Background(), []Source{{src, time.Millisecond}}, func(Sample) {
		<-block
		consumed.Add(1)
	}, Options{Clock: record.NewClock(), Queue: 2})
	for src.calls.Load() < 20 {
		time.Sleep(time.Millisecond)
	}
	close(block)
	h := m.Close()
	// Every successful collection was either consumed or counted dropped.
	if consumed.Load()+h[0].Dropped != h[0].Scrapes || h[0].Dropped == 0 {
		t.Errorf("consumed %d + dropped %d != scrapes %d", consumed.Load(), h[0].Dropped, h[0].Scrapes)
	}
}

func TestProbeReportsUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "# TYPE up gauge\nup 1")
	}))
	defer srv.Close()
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL + "/metrics"
	dead.Close()
	cs := []Collector{NewPrometheus(srv.URL+"/metrics", nil), NewPrometheus(deadURL, nil)}
	ok, h := Probe(context.Background(), cs, time.Second)
	if len(ok) != 1 || ok[0] != cs[0] {
		t.Fatalf("reachable: %v", ok)
	}
	if !h[0].Reachable || h[1].Reachable || h[1].Failures != 1 || h[1].LastError == "" {
		t.Errorf("health: %+v", h)
	}
}

// TestNextTick: a collection that overran the interval skips every tick
// it overran, and the next one starts on the grid of ticks.
func TestNextTick(t *testing.T) {
	t0 := time.Unix(100, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	for _, c := range []struct {
		name   string
		ended  int // ms after the collection was due at t0
		next   int
		missed int64
	}{
		{"on time", 5, 20, 0},
		{"ends on the next tick", 20, 20, 0},
		{"overran one tick", 25, 40, 1},
		{"ends on the second tick", 40, 40, 1},
		{"overran two ticks", 50, 60, 2},
		{"overran three ticks", 61, 80, 3},
	} {
		next, missed := nextTick(t0, ms(c.ended), 20*time.Millisecond)
		if !next.Equal(ms(c.next)) || missed != c.missed {
			t.Errorf("%s: next %v, missed %d; want %v, %d", c.name, next.Sub(t0), missed, time.Duration(c.next)*time.Millisecond, c.missed)
		}
	}
}

// TestMonitorCollectNowRacingClose: Close cancels a final collection in
// flight and waits for it instead of closing the queue under it, and a
// CollectNow after Close does nothing.
func TestMonitorCollectNowRacingClose(t *testing.T) {
	entered := make(chan struct{})
	release := make(chan struct{})
	src := &funcCollector{source: "s", collect: func(ctx context.Context, n int) (Sample, error) {
		if n == 1 {
			close(entered)
			select {
			case <-release:
			case <-ctx.Done():
				return Sample{}, ctx.Err()
			}
		}
		return Sample{GPUs: []GPUReading{{}}}, nil
	}}
	var consumed atomic.Int64
	m := Start(context.Background(), []Source{{src, time.Hour}}, func(Sample) { consumed.Add(1) }, Options{Clock: record.NewClock()})
	done := make(chan struct{})
	go func() {
		defer close(done)
		m.CollectNow(context.Background())
	}()
	<-entered
	h := m.Close()
	close(release)
	<-done
	m.CollectNow(context.Background())
	if src.calls.Load() != 1 || consumed.Load() != 0 || h[0].Scrapes != 0 {
		t.Errorf("%d collections, %d consumed, health %+v; want the cancelled one only", src.calls.Load(), consumed.Load(), h[0])
	}
}
