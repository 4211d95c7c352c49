package runner

import (
	"bytes"
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
)

// parkedGoroutines counts the goroutines waiting in a parked turn: in
// resume (closed loop) or resumeRelay (open loop), blocked in the network
// poller.
func parkedGoroutines(buf []byte) int {
	n := runtime.Stack(buf, true)
	count := 0
	for _, g := range bytes.Split(buf[:n], []byte("\n\n")) {
		if bytes.Contains(g, []byte("[IO wait")) &&
			(bytes.Contains(g, []byte("(*worker).resume(")) || bytes.Contains(g, []byte("runner.resumeRelay("))) {
			count++
		}
	}
	return count
}

// TestTurnsParkWhileTheyWait: every request of a run waiting for its
// response (its head, or its stream's next event) waits parked, on a fresh
// goroutine of its own, in the closed and the open loop; the records are
// those of an unparked run. The runner's tests park at any number of open
// streams (parkOpen 0, main_test.go).
func TestTurnsParkWhileTheyWait(t *testing.T) {
	const n = 60
	for _, tc := range []struct {
		name      string
		streaming bool
		open      bool
	}{
		{"closed loop, stream waits for its first token", true, false},
		{"open loop, stream waits for its first token", true, true},
		{"closed loop, whole response: the head is awaited", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := startMockProcessTB(t, mockserver.Config{TTFT: 2 * time.Second, ITL: 5 * time.Millisecond, OutputTokens: 3})
			cfg := testConfig(t, url)
			cfg.Streaming = tc.streaming
			cfg.RequestCount = n
			cfg.OSLMean = 3
			if tc.open {
				cfg.RequestRate, cfg.ArrivalPattern = 1000, "constant"
			} else {
				cfg.Concurrency = n
			}
			if err := cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			type result struct {
				res *Result
				err error
			}
			done := make(chan result, 1)
			go func() {
				res, err := Run(context.Background(), cfg, Options{Version: "test"})
				done <- result{res, err}
			}()
			buf := make([]byte, 8<<20)
			most := 0
			// Until shortly before the first tokens come, the streams
			// unpark then.
			deadline := time.Now().Add(1800 * time.Millisecond)
			for most < n && time.Now().Before(deadline) {
				most = max(most, parkedGoroutines(buf))
				time.Sleep(20 * time.Millisecond)
			}
			r := <-done
			if r.err != nil {
				t.Fatal(r.err)
			}
			if most != n {
				t.Errorf("at most %d of %d requests waited parked", most, n)
			}
			s := r.res.Summary
			if s.Valid != n || s.Failed != 0 {
				t.Fatalf("%d valid, %d failed (%+v); want %d, none", s.Valid, s.Failed, s.Errors, n)
			}
			if tc.streaming {
				osl := s.Get("output_sequence_length")
				if osl.Min != 3 || osl.Max != 3 {
					t.Errorf("output lengths %v..%v, want 3", osl.Min, osl.Max)
				}
				// The first token comes 2 s after the request, read by the
				// goroutine that waited parked.
				if ttft := s.Get("time_to_first_token"); ttft.Min < 2000 {
					t.Errorf("TTFT from %v ms, want from 2,000 ms", ttft.Min)
				}
			}
		})
	}
}
