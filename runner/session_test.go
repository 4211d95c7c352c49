package runner

import (
	"bufio"
	"cmp"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// chatBody is the part of a chat request body the session tests read.
type chatBody struct {
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
}

// rawReplies maps x_request_id to the reply text the client received, from
// profile_export_raw.jsonl.
func rawReplies(t *testing.T, dir string) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "profile_export_raw.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var r struct {
			XRequestID string `json:"x_request_id"`
			Responses  []struct {
				Text string `json:"text"`
			} `json:"responses"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, resp := range r.Responses {
			b.WriteString(resp.Text)
		}
		out[r.XRequestID] = b.String()
	}
	return out
}

// sessionTurns groups the records by x_correlation_id, each group ordered by
// turn index, and checks every session is one conversation on one worker.
func sessionTurns(t *testing.T, recs []jsonRecord) map[string][]jsonRecord {
	t.Helper()
	by := map[string][]jsonRecord{}
	for _, r := range recs {
		by[r.Metadata.XCorrelationID] = append(by[r.Metadata.XCorrelationID], r)
	}
	for id, rs := range by {
		slices.SortFunc(rs, func(a, b jsonRecord) int { return a.Metadata.TurnIndex - b.Metadata.TurnIndex })
		for i, r := range rs {
			if r.Metadata.TurnIndex != i || r.Metadata.ConversationID != rs[0].Metadata.ConversationID ||
				r.Metadata.WorkerID != rs[0].Metadata.WorkerID || r.Metadata.SessionNum != rs[0].Metadata.SessionNum {
				t.Fatalf("session %s turn %d: %+v, first turn %+v", id, i, r.Metadata, rs[0].Metadata)
			}
		}
	}
	return by
}

// maxOverlap is the largest number of sessions whose server-side spans
// (first arrival to last write) overlap.
func maxOverlap(srv *mockserver.Server, sessions map[string][]jsonRecord) int {
	type edge struct {
		at    time.Time
		delta int
	}
	var edges []edge
	for _, rs := range sessions {
		first, _ := srv.Timeline(rs[0].Metadata.XRequestID)
		last, _ := srv.Timeline(rs[len(rs)-1].Metadata.XRequestID)
		end := last.Arrival
		if n := len(last.Events); n > 0 {
			end = last.Events[n-1].At
		}
		edges = append(edges, edge{first.Arrival, 1}, edge{end, -1})
	}
	slices.SortFunc(edges, func(a, b edge) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return a.delta - b.delta // ends first at equal times
	})
	cur, peak := 0, 0
	for _, e := range edges {
		cur += e.delta
		peak = max(peak, cur)
	}
	return peak
}

// checkHistory checks, from the server's side, that turn k of every session
// carried the earlier user turns and the replies the client had received,
// in order, and that it arrived at least delay after the previous reply.
func checkHistory(t *testing.T, srv *mockserver.Server, sessions map[string][]jsonRecord, replies map[string]string, delay time.Duration) {
	t.Helper()
	for id, rs := range sessions {
		var prevUser []string
		var prevEnd time.Time
		for k, r := range rs {
			tl, ok := srv.Timeline(r.Metadata.XRequestID)
			if !ok {
				t.Fatalf("session %s turn %d: the server never saw %s", id, k, r.Metadata.XRequestID)
			}
			if tl.CorrelationID != id {
				t.Errorf("session %s turn %d: X-Correlation-ID %q", id, k, tl.CorrelationID)
			}
			var body chatBody
			if err := json.Unmarshal(tl.Body, &body); err != nil {
				t.Fatal(err)
			}
			if len(body.Messages) != 2*k+1 {
				t.Fatalf("session %s turn %d: %d messages, want %d", id, k, len(body.Messages), 2*k+1)
			}
			for j := range k {
				u, a := body.Messages[2*j], body.Messages[2*j+1]
				want := replies[rs[j].Metadata.XRequestID]
				if u.Role != "user" || u.Content != prevUser[j] || a.Role != "assistant" || a.Content != want || want == "" {
					t.Fatalf("session %s turn %d: history message %d = %+v %+v, want user %.20q then assistant %.20q", id, k, j, u, a, prevUser[j], want)
				}
			}
			prevUser = append(prevUser, body.Messages[2*k].Content)
			if k > 0 && tl.Arrival.Sub(prevEnd) < delay-time.Millisecond {
				t.Errorf("session %s turn %d arrived %v after the previous reply, want >= %v", id, k, tl.Arrival.Sub(prevEnd), delay)
			}
			prevEnd = tl.Events[len(tl.Events)-1].At
		}
	}
}

func TestMultiTurnClosedLoop(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{RecordTimelines: true, OutputTokens: 6, TTFT: time.Millisecond, ITL: 200 * time.Microsecond})
	cfg := testConfig(t, srv.URL())
	cfg.Streaming = true
	cfg.Concurrency = 2
	cfg.NumSessions = 5
	cfg.SessionTurnsMean = 3
	cfg.SessionTurnDelayMean = 15
	cfg.ExportLevel = "raw"
	runOK(t, cfg)

	recs := readRecords(t, cfg.ArtifactDir)
	if len(recs) != 15 {
		t.Fatalf("%d records, want 5 sessions x 3 turns", len(recs))
	}
	sessions := sessionTurns(t, recs)
	if len(sessions) != 5 {
		t.Fatalf("%d sessions, want 5", len(sessions))
	}
	checkHistory(t, srv, sessions, rawReplies(t, cfg.ArtifactDir), 15*time.Millisecond)
	if n := maxOverlap(srv, sessions); n > 2 {
		t.Errorf("%d sessions overlapped, concurrency is 2", n)
	}
}

func TestMultiTurnOpenLoop(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{RecordTimelines: true, OutputTokens: 4, TTFT: time.Millisecond})
	cfg := testConfig(t, srv.URL())
	cfg.RequestRate = 200
	cfg.ArrivalPattern = "constant"
	cfg.Concurrency = 3
	cfg.NumSessions = 6
	cfg.SessionTurnsMean = 2
	cfg.SessionTurnDelayMean = 5
	cfg.ExportLevel = "raw"
	runOK(t, cfg)

	recs := readRecords(t, cfg.ArtifactDir)
	if len(recs) != 12 {
		t.Fatalf("%d records, want 6 sessions x 2 turns", len(recs))
	}
	sessions := sessionTurns(t, recs)
	checkHistory(t, srv, sessions, rawReplies(t, cfg.ArtifactDir), 5*time.Millisecond)
	if n := maxOverlap(srv, sessions); n > 3 {
		t.Errorf("%d sessions overlapped, the ceiling is 3", n)
	}
}

// TestRequestCountCutsSessions: a request count ends the run mid-session.
func TestRequestCountCutsSessions(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{OutputTokens: 2})
	cfg := testConfig(t, srv.URL())
	cfg.Concurrency = 1
	cfg.RequestCount = 7
	cfg.SessionTurnsMean = 3
	runOK(t, cfg)
	recs := readRecords(t, cfg.ArtifactDir)
	if len(recs) != 7 {
		t.Fatalf("%d records, want 7", len(recs))
	}
	// Records are written as their metrics are computed, on several
	// goroutines: order them as they were sent (one at a time, so by start).
	slices.SortFunc(recs, func(a, b jsonRecord) int { return cmp.Compare(a.Metadata.RequestStartNS, b.Metadata.RequestStartNS) })
	var turns []int
	for _, r := range recs {
		turns = append(turns, r.Metadata.TurnIndex)
	}
	if want := []int{0, 1, 2, 0, 1, 2, 0}; !slices.Equal(turns, want) {
		t.Errorf("turn indices %v, want %v", turns, want)
	}
}
