package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
	"github.com/aiperf-go/aiperf/record"
)

// manifestStatus returns the status and reason of the run's manifest.
func manifestStatus(t *testing.T, dir, runID string) (status, reason string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "runs", runID, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ Status, Reason string }
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m.Status, m.Reason
}

// killAfter is the run's own transport, closing the server (in the
// background, as a crash would) once it has answered n benchmark requests,
// so that the run is in full flight however slowly it started.
type killAfter struct {
	next     http.RoundTripper
	n        int64
	srv      *mockserver.Server
	answered atomic.Int64
	closedAt atomic.Int64 // unix ns when closing began; 0 until then
}

func (k *killAfter) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := k.next.RoundTrip(req)
	if err == nil && req.Method == http.MethodPost && resp.StatusCode == http.StatusOK && k.answered.Add(1) == k.n {
		k.closedAt.Store(time.Now().UnixNano()) // before any refusal
		go k.srv.Close()
	}
	return resp, err
}

// TestFailureWindowTrips: the window trips at the first failure a whole
// window after a failure with no success in between, and a success starts
// it over; requests cancelled by policy count as neither.
func TestFailureWindowTrips(t *testing.T) {
	const window = 30 * time.Millisecond
	clock := record.NewClock()
	var stops atomic.Int32
	w := newFailureWindow(window, clock, func() { stops.Add(1) })
	fail := &record.Record{Error: &record.Error{Type: refusedType}}
	ok := &record.Record{}
	cancelled := &record.Record{Error: &record.Error{Code: 499, Type: "RequestCancellationError"}, Cancelled: true}

	w.observe(fail)
	time.Sleep(window + window/2)
	w.observe(ok) // the target answered: start over
	w.observe(fail)
	w.observe(cancelled)
	if w.tripped() != "" || stops.Load() != 0 {
		t.Fatalf("tripped after a success: %q", w.tripped())
	}
	time.Sleep(window + window/2)
	w.observe(cancelled) // says nothing about the target
	if w.tripped() != "" {
		t.Fatalf("tripped on a cancelled request: %q", w.tripped())
	}
	w.observe(&record.Record{Error: &record.Error{Code: 503, Type: "Service Unavailable"}})
	v := w.tripped()
	w.observe(fail) // after the verdict: neither a second stop nor a new verdict
	if v == "" || stops.Load() != 1 || w.tripped() != v {
		t.Fatalf("not tripped once (%d) after failing for a window: %q then %q", stops.Load(), v, w.tripped())
	}
	for _, want := range []string{"--failure-window 0.03", "2 failures in a row", "1 × 503 Service Unavailable, 1 × ConnectionRefusedError"} {
		if !strings.Contains(v, want) {
			t.Errorf("verdict %q lacks %q", v, want)
		}
	}
	if newFailureWindow(0, clock, nil) != nil {
		t.Error("a zero window is not off")
	}
	var off *failureWindow
	off.observe(fail) // a nil window watches nothing
	if off.tripped() != "" {
		t.Error("a nil window tripped")
	}
}

// TestDeadTargetEndsTheRun: a server that dies in the middle of a long
// closed-loop run ends it about one window later, not at its duration:
// the run stores what it had, its manifest says failed with the reason,
// the console names the flag, and Run returns ErrTargetDown. The workers
// back off after refused connections, so the dead target costs a bounded
// number of error records per worker, not thousands.
func TestDeadTargetEndsTheRun(t *testing.T) {
	const (
		window  = time.Second
		workers = 4
	)
	srv := mocktest.Start(t, mockserver.Config{OutputTokens: 2})
	cfg := testConfig(t, srv.URL())
	cfg.Concurrency = workers
	cfg.BenchmarkDuration = 30 * window // the run would go on this long
	cfg.FailureWindow = window
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	kill := &killAfter{next: newTransport(workers), n: 50, srv: srv}
	var out bytes.Buffer
	res, err := Run(context.Background(), cfg, Options{Version: "test", Stdout: &out, Transport: kill})
	ended := time.Now()
	if !errors.Is(err, ErrTargetDown) || !strings.Contains(err.Error(), "--failure-window") {
		t.Fatalf("run error %v, want ErrTargetDown naming the flag", err)
	}
	closedAt := &kill.closedAt
	if closedAt.Load() == 0 {
		t.Fatal("the run ended before the server was closed")
	}
	// It cannot trip before a window of failures, and should trip about
	// one window (plus the last back-off) later: well before the duration.
	afterClose := ended.Sub(time.Unix(0, closedAt.Load()))
	if afterClose < window || afterClose > cfg.BenchmarkDuration/3 {
		t.Errorf("ended %v after the server died: want between the window %v and a third of the duration %v", afterClose, window, cfg.BenchmarkDuration)
	}
	s := res.Summary
	t.Logf("ended %v after the server died; %d valid, %d failed, %d dropped", afterClose, s.Valid, s.Failed, res.Dropped)
	if s.Valid == 0 || s.Failed == 0 {
		t.Fatalf("%d valid, %d failed: want both before and after the server died", s.Valid, s.Failed)
	}
	// Back-off from 5 ms doubling to 1 s (each wait at least half of that)
	// allows about a dozen requests per worker in a 1 s window; a tight loop
	// makes thousands.
	if s.Failed > 30*workers {
		t.Errorf("%d error records from %d workers in a %v window: want a bounded few per worker", s.Failed, workers, window)
	}
	if recs := readRecords(t, cfg.ArtifactDir); len(recs) != s.Valid+s.Failed {
		t.Errorf("%d records stored, want %d valid + %d failed", len(recs), s.Valid, s.Failed)
	}
	status, reason := manifestStatus(t, cfg.ArtifactDir, res.Files.RunID)
	if status != "failed" || !strings.Contains(reason, "target down") || !strings.Contains(reason, "--failure-window") {
		t.Errorf("manifest status %q reason %q: want failed, target down, naming the flag", status, reason)
	}
	if !strings.Contains(out.String(), "Run STOPPED, target down") || !strings.Contains(out.String(), "--failure-window 0") {
		t.Errorf("console lacks the verdict:\n%s", out.String())
	}
}

// TestDeadTargetOpenLoopKeepsItsSchedule: in an open-loop run a refused
// request is just an error record; the schedule goes on until the window
// trips, so the error records number about rate × window.
func TestDeadTargetOpenLoopKeepsItsSchedule(t *testing.T) {
	const (
		window = 500 * time.Millisecond
		rate   = 100.0
	)
	srv := mocktest.Start(t, mockserver.Config{OutputTokens: 2})
	cfg := testConfig(t, srv.URL())
	cfg.RequestRate, cfg.ArrivalPattern = rate, "constant"
	cfg.BenchmarkDuration = 60 * window
	cfg.FailureWindow = window
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	kill := &killAfter{next: newTransport(1), n: 10, srv: srv}
	res, err := Run(context.Background(), cfg, Options{Version: "test", Transport: kill})
	if !errors.Is(err, ErrTargetDown) {
		t.Fatalf("run error %v, want ErrTargetDown", err)
	}
	// The sends are due every 10 ms, refused or not: at least half of
	// the window's worth of them were sent (a busy machine sends late, it
	// does not back off), and far fewer than the duration's.
	perWindow := int(rate * window.Seconds())
	if f := res.Summary.Failed; f < perWindow/2 || f > 10*perWindow {
		t.Errorf("%d error records: want about %d (rate × window)", f, perWindow)
	}
}

// TestPartialFailuresKeepTheRunGoing: a server that fails some requests is
// not down: the window never trips while some requests succeed, in a run
// several windows long.
func TestPartialFailuresKeepTheRunGoing(t *testing.T) {
	const window = 500 * time.Millisecond
	// 300 requests one at a time, 70% of them taking at least 10 ms: the run
	// lasts over four windows, while the longest streak of failures (a
	// handful in a row at 30%, each answered at once) lasts a small part of
	// one window at any machine speed.
	srv := mocktest.Start(t, mockserver.Config{OutputTokens: 2, TTFT: 10 * time.Millisecond, ErrorRate: 0.3, Seed: 7})
	cfg := testConfig(t, srv.URL())
	cfg.Concurrency, cfg.RequestCount = 1, 300
	cfg.FailureWindow = window
	began := time.Now()
	res := runOK(t, cfg)
	if took := time.Since(began); took < 2*window {
		t.Fatalf("the run took %v: shorter than two windows, it tests nothing", took)
	}
	if s := res.Summary; s.Failed == 0 || s.Valid == 0 || s.Failed+s.Valid != 300 {
		t.Errorf("%d valid, %d failed: want all 300 requests, some of each", s.Valid, s.Failed)
	}
	if status, reason := manifestStatus(t, cfg.ArtifactDir, res.Files.RunID); status != "complete" || reason != "" {
		t.Errorf("manifest status %q reason %q: want complete", status, reason)
	}
}

// TestAllFailedHasAReason: a run whose requests all failed (the window
// off, so that it runs to its count) says why in its manifest.
func TestAllFailedHasAReason(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{OutputTokens: 2, ErrorRate: 1})
	cfg := testConfig(t, srv.URL())
	cfg.Concurrency, cfg.RequestCount = 2, 40
	cfg.FailureWindow = 0
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), cfg, Options{Version: "test"})
	if !errors.Is(err, ErrAllFailed) {
		t.Fatalf("run error %v, want ErrAllFailed", err)
	}
	status, reason := manifestStatus(t, cfg.ArtifactDir, res.Files.RunID)
	if want := "all 40 requests failed: 40 × 500 Internal Server Error"; status != "failed" || reason != want {
		t.Errorf("manifest status %q reason %q: want failed, %q", status, reason, want)
	}
}
