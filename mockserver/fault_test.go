package mockserver

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

const streamBody = `{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":10,"stream":true}`
const plainBody = `{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":10}`

func TestErrorFault(t *testing.T) {
	for _, tc := range []struct {
		name       string
		status     int
		wantStatus int
		path, body string
	}{
		{"default status", 0, 500, "/v1/chat/completions", plainBody},
		{"streaming", 0, 500, "/v1/chat/completions", streamBody},
		{"429", 429, 429, "/v1/completions", `{"prompt":"x","stream":true}`},
		{"embeddings", 503, 503, "/v1/embeddings", `{"input":"x"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startServer(t, Config{ErrorRate: 1, ErrorStatus: tc.status, RecordTimelines: true})
			resp := post(t, s, tc.path, "e1", tc.body)
			body := readAll(t, resp.Body)
			if resp.StatusCode != tc.wantStatus || resp.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("status %d %q, want %d JSON", resp.StatusCode, resp.Header.Get("Content-Type"), tc.wantStatus)
			}
			e, _ := decode(t, body)["error"].(map[string]any)
			if e == nil || e["message"] != "injected error" || e["code"] != float64(tc.wantStatus) {
				t.Errorf("body %s", body)
			}
			if tl, ok := s.Timeline("e1"); !ok || len(tl.Events) != 1 || tl.Events[0].Kind != EventError {
				t.Errorf("timeline %+v", tl)
			}
		})
	}
}

// isReset reports whether err is what a client sees of an aborted
// connection.
func isReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}

func TestResetFault(t *testing.T) {
	s := startServer(t, Config{ResetRate: 1, RecordTimelines: true})
	for i := range 5 {
		id := fmt.Sprint("r", i)
		resp := post(t, s, "/v1/chat/completions", id, streamBody)
		events, err := readSSE(resp)
		if !isReset(err) {
			t.Fatalf("stream error %v, want a reset", err)
		}
		if len(events) == 0 || len(events) > 10 || events[len(events)-1] == "[DONE]" {
			t.Errorf("events %q: want the role chunk, fewer than 10 content chunks and no [DONE]", events)
		}
		tl, _ := s.Timeline(id)
		if last := tl.Events[len(tl.Events)-1]; last.Kind != EventReset || len(tl.TokenEvents()) != len(events)-1 {
			t.Errorf("timeline %v does not end in a reset after %d content events", tl.Events, len(events)-1)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, s.URL()+"/v1/chat/completions", strings.NewReader(plainBody))
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if err == nil {
		t.Error("non-streaming request was not reset")
	}
	if got := s.m.faults[faultReset].Load(); got != 6 {
		t.Errorf("reset counter %d, want 6", got)
	}
}

func TestStallFault(t *testing.T) {
	const stall = 150 * time.Millisecond
	s := startServer(t, Config{StallRate: 1, StallDuration: stall, RecordTimelines: true})
	resp := post(t, s, "/v1/chat/completions", "s1", streamBody)
	events, err := readSSE(resp)
	if err != nil || len(events) != 12 || events[11] != "[DONE]" {
		t.Fatalf("events %q, err %v: want role, 10 chunks, [DONE]", events, err)
	}
	tl, _ := s.Timeline("s1")
	ttft, _ := tl.TTFT()
	gaps := append([]time.Duration{ttft}, tl.ITLs()...)
	// Deadlines are absolute: every event after the stall is due at
	// arrival+stall, so the stall gap itself may be a hair shorter.
	long := 0
	for _, g := range gaps {
		switch {
		case g >= stall-5*time.Millisecond:
			long++
		case g > stall/3:
			t.Errorf("gap %v is neither a stall nor immediate", g)
		}
	}
	ev := tl.TokenEvents()
	if last := ev[len(ev)-1].At.Sub(tl.Arrival); long != 1 || last < stall {
		t.Errorf("gaps %v, last token at %v: want exactly one stall, and the end after %v", gaps, last, stall)
	}

	start := time.Now()
	resp = post(t, s, "/v1/chat/completions", "", plainBody)
	if readAll(t, resp.Body); time.Since(start) < stall || resp.StatusCode != 200 {
		t.Errorf("non-streaming: status %d after %v, want 200 after at least %v", resp.StatusCode, time.Since(start), stall)
	}
}

func TestMalformedFault(t *testing.T) {
	s := startServer(t, Config{MalformedRate: 1})
	resp := post(t, s, "/v1/chat/completions", "", streamBody)
	events, err := readSSE(resp)
	if err != nil {
		t.Fatal(err)
	}
	bad, content := 0, 0
	for _, e := range events {
		switch {
		case e == "{not json":
			bad++
		case e == "[DONE]":
		default:
			if c := parseChunk(t, e); c.Choices[0].Delta.Content != nil && *c.Choices[0].Delta.Content != "" {
				content++
			}
		}
	}
	if bad != 1 || content != 10 || events[len(events)-1] != "[DONE]" {
		t.Errorf("events %q: want one malformed event, 10 content chunks, [DONE]", events)
	}
	resp = post(t, s, "/v1/completions", "", `{"prompt":"x"}`)
	if body := readAll(t, resp.Body); string(body) != "{not json" {
		t.Errorf("non-streaming body %q", body)
	}
}

// TestFaultsAreSeeded checks that a seed fixes which requests fail.
func TestFaultsAreSeeded(t *testing.T) {
	statuses := func(seed uint64) string {
		s := startServer(t, Config{ErrorRate: 0.5, Seed: seed})
		var b strings.Builder
		for range 40 {
			resp := post(t, s, "/v1/completions", "", `{"prompt":"x","max_tokens":1}`)
			readAll(t, resp.Body)
			b.WriteString(fmt.Sprint(resp.StatusCode / 100))
		}
		return b.String()
	}
	a, b, c := statuses(7), statuses(7), statuses(8)
	if a != b {
		t.Errorf("same seed, different faults:\n%s\n%s", a, b)
	}
	if a == c {
		t.Errorf("seeds 7 and 8 gave the same faults %s", a)
	}
	if n := strings.Count(a, "5"); n < 8 || n > 32 {
		t.Errorf("%d errors in 40 at rate 0.5: %s", n, a)
	}
}
