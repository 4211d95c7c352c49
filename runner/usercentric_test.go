package runner

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// TestUserCentricGaps: with 4 users at 40 req/s (gap 100 ms) on 3-turn
// conversations, a request is due every 25 ms from the start, however long
// the sessions; each session's turns are 100 ms apart; and the sessions
// follow AIPerf's virtual history: the lines of users firing at 0, 25, 50
// and 75 ms start with 3, 1, 1 and 2 turns left, and every user after them
// sends all 3. Users are numbered as AIPerf numbers them.
func TestUserCentricGaps(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{OutputTokens: 2, TTFT: time.Millisecond})
	cfg := testConfig(t, srv.URL())
	cfg.UserCentricRate, cfg.NumUsers = 40, 4
	cfg.SessionTurnsMean = 3
	cfg.RequestCount = 24
	runOK(t, cfg)

	recs := readRecords(t, cfg.ArtifactDir)
	if len(recs) != 24 {
		t.Fatalf("%d records, want 24", len(recs))
	}
	slices.SortFunc(recs, func(a, b jsonRecord) int { return int(a.Metadata.CreditIssuedNS - b.Metadata.CreditIssuedNS) })
	firstTurns := []int{3, 1, 1, 2} // by line: the line firing at k·25 ms
	firstUsers := []int{5, 2, 3, 4} // AIPerf's numbers: the new user 5 first, then users 2-4
	// Replacements are numbered 6, 7, ... in the order they start: line k
	// starts its m-th at 25k + 100·(firstTurns[k] + 3m) ms.
	type spawn struct{ at, line, m int }
	var spawns []spawn
	for k := range 4 {
		for m := range 8 {
			spawns = append(spawns, spawn{25*k + 100*(firstTurns[k]+3*m), k, m})
		}
	}
	slices.SortFunc(spawns, func(a, b spawn) int { return a.at - b.at })
	replacement := map[[2]int]int{} // (line, m) → user number
	for n, sp := range spawns {
		replacement[[2]int{sp.line, sp.m}] = 6 + n
	}
	lastOfSession := map[string]int64{}
	for i, r := range recs {
		m := r.Metadata
		at := time.Duration(m.CreditIssuedNS - recs[0].Metadata.CreditIssuedNS)
		if d := at - time.Duration(i)*25*time.Millisecond; d.Abs() > time.Microsecond {
			t.Errorf("request %d intended at %v, want %v", i, at, time.Duration(i)*25*time.Millisecond)
		}
		line, round := i%4, i/4
		want := round // turn index within the line's first session
		if round >= firstTurns[line] {
			want = (round - firstTurns[line]) % 3
		}
		if m.TurnIndex != want {
			t.Errorf("request %d (line %d, round %d): turn %d, want %d", i, line, round, m.TurnIndex, want)
		}
		user := firstUsers[line]
		if round >= firstTurns[line] {
			user = replacement[[2]int{line, (round - firstTurns[line]) / 3}]
		}
		if m.XCorrelationID != strconv.Itoa(user) {
			t.Errorf("request %d (line %d, round %d): X-Correlation-ID %q, want user %d", i, line, round, m.XCorrelationID, user)
		}
		if prev, ok := lastOfSession[m.XCorrelationID]; ok {
			if gap := time.Duration(m.CreditIssuedNS - prev); gap != 100*time.Millisecond {
				t.Errorf("request %d: %v after its session's previous turn, want 100ms", i, gap)
			}
		} else if m.TurnIndex != 0 {
			t.Errorf("request %d: a session starting at turn %d", i, m.TurnIndex)
		}
		lastOfSession[m.XCorrelationID] = m.CreditIssuedNS
		// Never early; how soon after is the timing tests' subject
		// (TestTimingUserCentricSends), not an absolute bound here.
		if late := time.Duration(m.RequestStartNS - m.CreditIssuedNS); late < 0 {
			t.Errorf("request %d sent %v before its intended time", i, -late)
		}
	}
}

// TestUserCentricSessionLimit: --num-sessions 6 with the lines of
// TestUserCentricGaps starts the four first users (3+1+1+2 turns) and two
// whole 3-turn sessions (at 125 and 150 ms), sends all 13 turns and ends
// with the last one (350 ms), not at the next spawn time.
func TestUserCentricSessionLimit(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{OutputTokens: 2, TTFT: time.Millisecond})
	cfg := testConfig(t, srv.URL())
	cfg.UserCentricRate, cfg.NumUsers = 40, 4
	cfg.SessionTurnsMean = 3
	cfg.RequestCount, cfg.NumSessions = 0, 6
	began := time.Now()
	runOK(t, cfg)
	took := time.Since(began)
	recs := readRecords(t, cfg.ArtifactDir)
	sessions := map[string]int{}
	for _, r := range recs {
		sessions[r.Metadata.XCorrelationID]++
	}
	if len(recs) != 13 || len(sessions) != 6 {
		t.Errorf("%d requests in %d sessions, want 13 in 6", len(recs), len(sessions))
	}
	if took > 2*time.Second {
		t.Errorf("the run took %v; its last turn was due at 350 ms", took)
	}
}

// TestUserCentricConcurrencyCountsUsers: --concurrency 2 with 4 users
// keeps at most 2 users between their first turn's start and their last
// turn's end, as AIPerf's session slots do (capping requests in flight
// instead would let all 4 users' sessions overlap).
func TestUserCentricConcurrencyCountsUsers(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{OutputTokens: 2, TTFT: time.Millisecond})
	cfg := testConfig(t, srv.URL())
	cfg.UserCentricRate, cfg.NumUsers, cfg.Concurrency = 40, 4, 2
	cfg.SessionTurnsMean = 3
	cfg.RequestCount = 16
	runOK(t, cfg)
	type span struct{ start, end int64 }
	users := map[string]span{}
	for _, r := range readRecords(t, cfg.ArtifactDir) {
		m := r.Metadata
		sp, ok := users[m.XCorrelationID]
		if !ok || m.RequestStartNS < sp.start {
			sp.start = m.RequestStartNS
		}
		sp.end = max(sp.end, m.RequestEndNS)
		users[m.XCorrelationID] = sp
	}
	type edge struct {
		at    int64
		delta int
	}
	var edges []edge
	for _, sp := range users {
		edges = append(edges, edge{sp.start, 1}, edge{sp.end, -1})
	}
	slices.SortFunc(edges, func(a, b edge) int {
		if a.at != b.at {
			return int(a.at - b.at)
		}
		return a.delta - b.delta // an end before a start at the same instant
	})
	active, most := 0, 0
	for _, e := range edges {
		active += e.delta
		most = max(most, active)
	}
	if most > 2 || len(users) < 4 {
		t.Errorf("%d users, at most %d at once; want no more than 2 at once", len(users), most)
	}
}

// TestVirtualHistory: the users' starting points and numbers equal
// AIPerf's own worked example (15 users, 20-turn sessions) and, where users
// and the session lifetime share a factor, its alternate spacing (4 users,
// 3 turns: step 3).
func TestVirtualHistory(t *testing.T) {
	for _, tc := range []struct {
		users, turns int
		want         []userLine // by order
	}{
		// AIPerf's table: user 16 (new) fires first with all 20 turns,
		// user 5 second with 6, user 9 third with 11, ...
		{15, 20, []userLine{{0, 0, 16}, {1, 6, 5}, {2, 11, 9}, {3, 16, 13}, {4, 2, 2}, {5, 7, 6}, {6, 12, 10},
			{7, 17, 14}, {8, 3, 3}, {9, 8, 7}, {10, 13, 11}, {11, 18, 15}, {12, 4, 4}, {13, 9, 8}, {14, 14, 12}}},
		{4, 3, []userLine{{0, 0, 5}, {1, 1, 2}, {2, 1, 3}, {3, 2, 4}}},
		{2, 3, []userLine{{0, 0, 3}, {1, 1, 2}}},
		{1, 5, []userLine{{0, 0, 2}}},
		{3, 1, []userLine{{0, 0, 4}, {1, 1, 2}, {2, 1, 3}}}, // lifetime floored at 1
	} {
		got := virtualHistory(tc.users, tc.turns)
		slices.SortFunc(got, func(a, b userLine) int { return a.order - b.order })
		if !slices.Equal(got, tc.want) {
			t.Errorf("%d users, %d turns: %v, want %v", tc.users, tc.turns, got, tc.want)
		}
	}
}
