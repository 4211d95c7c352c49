package telemetry

import (
	"context"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/record"
)

// serverKind is a funcCollector that says it reads a server's metrics.
type serverKind struct{ *funcCollector }

func (serverKind) Kind() Kind { return KindServer }

// TestMonitorRestart: Restart has the sources of its kind collect at once,
// long before their interval is up, and leaves the others alone; after
// Close it does nothing.
func TestMonitorRestart(t *testing.T) {
	ok := func(context.Context, int) (Sample, error) { return Sample{GPUs: []GPUReading{{}}}, nil }
	gpu := &funcCollector{source: "gpu", collect: ok}
	srv := serverKind{&funcCollector{source: "srv", collect: ok}}
	got := make(chan string, 8)
	m := Start(context.Background(), []Source{{gpu, time.Hour}, {srv, time.Hour}},
		func(s Sample) { got <- s.Source }, Options{Clock: record.NewClock()})
	m.Restart(KindGPU)
	select {
	case src := <-got:
		if src != "gpu" {
			t.Errorf("first sample from %q, want gpu", src)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no collection after Restart")
	}
	m.Close()
	if n := srv.calls.Load(); n != 0 {
		t.Errorf("the server source collected %d times", n)
	}
	if n := gpu.calls.Load(); n != 1 {
		t.Errorf("the GPU source collected %d times, want 1", n)
	}
	m.Restart(KindGPU) // after Close: nothing, and no block
}
