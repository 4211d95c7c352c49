package mockserver

import (
	"fmt"
	"math"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestStreamTiming scripts TTFT 20 ms and ITL 5 ms and checks the server's
// timeline against that schedule: each event is sent no earlier than due
// and, at the median, within a millisecond after. Timing on a shared
// machine is noisy, so the bound gets three attempts.
func TestStreamTiming(t *testing.T) {
	const ttft, itl = 20 * time.Millisecond, 5 * time.Millisecond
	s := startServer(t, Config{TTFT: ttft, ITL: itl, RecordTimelines: true})
	for attempt := range 3 {
		var lateness []time.Duration
		for i := range 3 {
			lateness = append(lateness, streamLateness(t, s, fmt.Sprint(attempt, "-", i), ttft, itl)...)
		}
		slices.Sort(lateness)
		median, worst := lateness[len(lateness)/2], lateness[len(lateness)-1]
		t.Logf("attempt %d: lateness median %v, worst %v", attempt, median, worst)
		// Go timers wake up to ~1 ms late when the process is idle (the
		// netpoller sleeps in whole milliseconds); the worst case only
		// guards against gross errors on a busy machine.
		if median <= time.Millisecond && worst <= 10*time.Millisecond {
			return
		}
	}
	t.Error("lateness median > 1 ms or worst > 10 ms in every attempt")
}

// streamLateness streams 8 tokens as request id, checks the timeline's
// shape, and returns how late each token event was sent.
func streamLateness(t *testing.T, s *Server, id string, ttft, itl time.Duration) []time.Duration {
	t.Helper()
	const n = 8
	resp := post(t, s, "/v1/chat/completions", id,
		`{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":8,"stream":true}`)
	if _, err := readSSE(resp); err != nil {
		t.Fatal(err)
	}
	tl, ok := s.Timeline(id)
	if !ok {
		t.Fatalf("no timeline for %q", id)
	}
	if tl.Path != "/v1/chat/completions" || tl.RequestID != id {
		t.Errorf("timeline %q %q", tl.RequestID, tl.Path)
	}
	var kinds []string
	for _, e := range tl.Events {
		kinds = append(kinds, e.Kind.String())
	}
	if got := strings.Join(kinds, " "); got != "role content content content content content content content content done" {
		t.Fatalf("events %s", got)
	}
	if d := tl.Events[0].At.Sub(tl.Arrival); d > 2*time.Millisecond {
		t.Errorf("role chunk sent %v after arrival, want at once", d)
	}
	var lateness []time.Duration
	for k, e := range tl.TokenEvents() {
		late := e.At.Sub(tl.Arrival) - (ttft + time.Duration(k)*itl)
		if late < 0 {
			t.Errorf("request %s event %d sent %v early", id, k, -late)
		}
		lateness = append(lateness, late)
	}
	if got, _ := tl.TTFT(); got < ttft {
		t.Errorf("TTFT %v < %v", got, ttft)
	}
	if itls := tl.ITLs(); len(itls) != n-1 {
		t.Errorf("%d ITLs, want %d", len(itls), n-1)
	}
	return lateness
}

// TestScheduleIsAbsolute: without jitter, token event k is due exactly at
// TTFT + k·ITL (+ the stall from its slot on), whatever happened before,
// so lateness never accumulates.
func TestScheduleIsAbsolute(t *testing.T) {
	cfg, _ := Config{TTFT: 20 * time.Millisecond, ITL: 5 * time.Millisecond,
		StallRate: 1, StallDuration: time.Second}.withDefaults()
	sched := newSchedule(&cfg, 1, time.Time{}, 10)
	for k := range 10 {
		want := 20*time.Millisecond + time.Duration(k)*5*time.Millisecond
		if k >= sched.stallAt {
			want += time.Second
		}
		if got := sched.nextDeadline(); got != want {
			t.Errorf("event %d due at %v, want %v", k, got, want)
		}
	}
	if got, want := newSchedule(&cfg, 1, time.Time{}, 10).lastDeadline(10), 65*time.Millisecond+time.Second; got != want {
		t.Errorf("lastDeadline = %v, want %v", got, want)
	}
}

// TestNonStreamingTiming: the body is sent when the last token is due.
func TestNonStreamingTiming(t *testing.T) {
	s := startServer(t, Config{TTFT: 20 * time.Millisecond, ITL: 5 * time.Millisecond, RecordTimelines: true})
	resp := post(t, s, "/v1/completions", "x", `{"prompt":"hi","max_tokens":8}`)
	readAll(t, resp.Body)
	tl, _ := s.Timeline("x")
	if len(tl.Events) != 1 || tl.Events[0].Kind != EventBody || tl.Events[0].Tokens != 8 {
		t.Fatalf("events %+v", tl.Events)
	}
	want := 55 * time.Millisecond
	if got, _ := tl.TTFT(); got < want || got > want+4*time.Millisecond {
		t.Errorf("body sent after %v, want %v", got, want)
	}
}

func TestTimelineLookup(t *testing.T) {
	s := startServer(t, Config{})
	resp := post(t, s, "/v1/completions", "off", `{"prompt":"hi"}`)
	readAll(t, resp.Body)
	if _, ok := s.Timeline("off"); ok {
		t.Error("timeline recorded with RecordTimelines off")
	}
	s = startServer(t, Config{RecordTimelines: true})
	if _, ok := s.Timeline("missing"); ok {
		t.Error("timeline for an unknown ID")
	}
	resp = post(t, s, "/v1/completions", "", `{"prompt":"hi"}`)
	readAll(t, resp.Body)
	if len(s.tl.byID) != 0 {
		t.Error("request without X-Request-ID was recorded")
	}
}

// TestScheduleDistribution checks the sampled delays' mean and standard
// deviation, and the clamp at zero.
func TestScheduleDistribution(t *testing.T) {
	cfg, _ := Config{TTFT: 10 * time.Millisecond, TTFTStddev: 2 * time.Millisecond,
		ITL: time.Millisecond, ITLStddev: 5 * time.Millisecond, Seed: 3}.withDefaults()
	const n = 20000
	var sum, sumSq float64
	for i := range uint64(n) {
		d := float64(newSchedule(&cfg, i, time.Time{}, 2).nextDeadline()) / 1e6 // ms
		sum += d
		sumSq += d * d
	}
	mean := sum / n
	std := math.Sqrt(sumSq/n - mean*mean)
	if math.Abs(mean-10) > 0.1 || math.Abs(std-2) > 0.1 {
		t.Errorf("TTFT mean %.3f ms std %.3f ms, want 10 and 2", mean, std)
	}
	sched := newSchedule(&cfg, 1, time.Time{}, n)
	prev := sched.nextDeadline()
	for range n - 1 {
		next := sched.nextDeadline()
		if next < prev {
			t.Fatalf("ITL %v < 0", next-prev)
		}
		prev = next
	}
}

func TestMaxInFlight(t *testing.T) {
	s := startServer(t, Config{TTFT: 100 * time.Millisecond})
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() {
			resp, err := http.Post(s.URL()+"/v1/completions", "application/json", strings.NewReader(`{"prompt":"x","max_tokens":1}`))
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
		})
	}
	wg.Wait()
	if got := s.MaxInFlight(); got != 5 {
		t.Errorf("MaxInFlight = %d, want 5", got)
	}
}
