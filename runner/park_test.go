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
// poller in h1's wait, not deeper in a read.
func parkedGoroutines(buf []byte) int {
	n := runtime.Stack(buf, true)
	count := 0
	for _, g := range bytes.Split(buf[:n], []byte("\n\n")) {
		if bytes.Contains(g, []byte("[IO wait")) && bytes.Contains(g, []byte("/internal/h1.(*conn).wait(")) &&
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
	firstToken := mockserver.Config{TTFT: 2 * time.Second, ITL: 5 * time.Millisecond, OutputTokens: 3}
	// Events of ~600 bytes, one a second: from the second on, the SSE
	// reader (grown to 1 KiB) takes a whole chunk past the connection's
	// line buffer, and the chunked reader leaves the chunk's CRLF unread
	// (h1's conn.drained). The streams are watched while they wait after
	// the second event.
	bigEvents := mockserver.Config{ITL: time.Second, OutputTokens: 400, TokensPerChunk: 100, NoRoleChunk: true}
	for _, tc := range []struct {
		name        string
		mock        mockserver.Config
		osl         int
		streaming   bool
		open        bool
		from, until time.Duration // when to look for parked streams
	}{
		{"closed loop, stream waits for its first token", firstToken, 3, true, false, 0, 1800 * time.Millisecond},
		{"open loop, stream waits for its first token", firstToken, 3, true, true, 0, 1800 * time.Millisecond},
		{"closed loop, whole response: the head is awaited", firstToken, 3, false, false, 0, 1800 * time.Millisecond},
		{"closed loop, stream waits between events of 600 bytes", bigEvents, 400, true, false, 1300 * time.Millisecond, 1900 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := startMockProcessTB(t, tc.mock)
			cfg := testConfig(t, url)
			cfg.Streaming = tc.streaming
			cfg.RequestCount = n
			cfg.OSLMean = float64(tc.osl)
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
			start := time.Now()
			time.Sleep(tc.from)
			// Until shortly before the next tokens come: the streams
			// unpark then.
			deadline := start.Add(tc.until)
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
				if want := float64(tc.osl); osl.Min != want || osl.Max != want {
					t.Errorf("output lengths %v..%v, want %d", osl.Min, osl.Max, tc.osl)
				}
				// The first token comes 2 s after the request (the second
				// event 2 s after the first), read by the goroutine that
				// waited parked.
				if ttft := s.Get("time_to_first_token"); tc.mock.TTFT > 0 && ttft.Min < 2000 {
					t.Errorf("TTFT from %v ms, want from 2,000 ms", ttft.Min)
				}
				if lat := s.Get("request_latency"); lat.Min < 2000 {
					t.Errorf("latency from %v ms, want from 2,000 ms", lat.Min)
				}
			}
		})
	}
}
