package runner

import (
	"context"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/record"
)

// runUserCentric runs the user-centric rate mode (§5.5): NumUsers users
// share UserCentricRate requests/s, so each user sends a turn every
// gap = users/rate seconds after its previous turn started, or at once when
// that reply came back later, resetting its baseline to then (no catch-up
// burst). Dataset turn delays are replaced by the gap.
//
// The run starts in steady state, as AIPerf's does: the users have
// staggered virtual ages (virtualHistory), so most start with only the
// first few turns of their conversation left to send and end at staggered
// times, and they fire 1/rate apart so that the aggregate rate holds from
// the first second. Each user is replaced on a fixed schedule, whatever the
// replies' timing: the next user of its line starts turns×gap after it
// started. Each user's X-Correlation-ID is its number, as in AIPerf. A
// concurrency limit, when set, counts users (sessions), as AIPerf's does.
// It returns when every user has stopped.
func (r *run) runUserCentric(ph *phaseRun, late *lateness) {
	cfg, clock := r.cfg, r.clock
	gap := time.Duration(float64(cfg.NumUsers) / cfg.UserCentricRate * float64(time.Second))
	stagger := time.Duration(float64(time.Second) / cfg.UserCentricRate)
	sessions := newLimiter(cfg.Concurrency, 0)
	// spawning ends when no session may start any more; users already
	// started go on until their last turn or the end of the credits.
	spawning, noMore := context.WithCancel(ph.ctx)
	defer noMore()
	var (
		wg  sync.WaitGroup
		ids slots
	)
	u := &userLoop{ph: ph, clock: clock, gap: gap, sessions: sessions, late: late, noMore: noMore}
	var nextUser atomic.Int64 // the last number given to a user
	nextUser.Store(int64(cfg.NumUsers) + 1)
	start := clock.Now()
	for _, line := range virtualHistory(cfg.NumUsers, averageTurns(r.convs)) {
		wg.Go(func() {
			at := start + int64(line.order)*int64(stagger)
			turns, user := line.turns, line.user
			for {
				sleepUntil(spawning, clock, at)
				if spawning.Err() != nil {
					return
				}
				s := ph.newSession()
				if s == nil {
					noMore()
					return
				}
				if turns > 0 {
					s.turns = min(s.turns, turns)
				}
				if user == 0 { // a replacement: numbered as it starts
					user = int(nextUser.Add(1))
				}
				s.corrID = strconv.Itoa(user)
				turns, user = 0, 0
				s.slot = ids.get()
				first := at
				wg.Go(func() {
					defer ids.put(s.slot)
					u.run(s, first)
				})
				if !ph.is.mayStart() {
					noMore()
					return
				}
				at += int64(s.turns) * int64(gap)
			}
		})
	}
	wg.Wait()
}

// userLoop sends the turns of user-centric sessions.
type userLoop struct {
	ph       *phaseRun
	clock    *record.Clock
	gap      time.Duration
	sessions *limiter // users holding a concurrency slot, when limited
	late     *lateness
	noMore   func() // no session may start any more
}

// run sends s's turns as one user: the first at first (monotonic ns), each
// later one gap after the previous one's intended time, or at once when the
// reply came back later. With a concurrency limit the user holds a slot
// from its first turn to its last, as sessions do in every mode; waiting
// for one shows as lateness.
func (u *userLoop) run(s *session, first int64) {
	ph := u.ph
	if !u.sessions.acquire(ph.ctx) {
		return
	}
	defer u.sessions.release()
	next := first
	for !s.done() && ph.ctx.Err() == nil {
		sleepUntil(ph.ctx, u.clock, next)
		c, ok := ph.is.take(next)
		if !ok || !ph.is.mayStart() {
			u.noMore()
		}
		if !ok {
			return
		}
		now := u.clock.Now()
		u.late.add(now, now-c.intended)
		ph.dispatch(ph.ctx, c, s)
		next = max(c.intended+int64(u.gap), u.clock.Now())
	}
}

// userLine is where one line of users starts: its first user, number
// user, fires order/rate after the run's start and sends the first turns
// of its conversation (0: all of them); each later user sends a whole one.
type userLine struct {
	order, turns, user int
}

// virtualHistory places users at staggered points of a session of
// sessionTurns turns, as AIPerf's user-centric mode does, so that the run
// starts in steady state. A session lasts lifetime = sessionTurns-1 gaps
// (at least 1); user i (0-based) has a virtual age of (users-i)·lifetime
// stagger slots, so it has lifetime - age/users turns left. User 0 has none
// left: a new user replaces it and fires first, with a whole session. The
// others fire in the order their age gives (age mod users); when users and
// lifetime share a factor that order would repeat, so the i-th user takes
// slot i·step mod users, with step the smallest number above 1 prime to
// users. The result has one line per user, each order in [0, users) once.
// Users are numbered from 1 as AIPerf numbers them (its X-Correlation-ID):
// user i is number i+1, the new one users+1.
func virtualHistory(users, sessionTurns int) []userLine {
	lifetime := max(1, sessionTurns-1)
	step := 0 // 0: order by age
	if gcd(users, lifetime) > 1 {
		step = 1
		for s := 2; s < users; s++ {
			if gcd(users, s) == 1 {
				step = s
				break
			}
		}
	}
	lines := make([]userLine, 0, users)
	for i := range users {
		age := (users - i) * lifetime
		left := lifetime - age/users
		if left <= 0 {
			continue
		}
		slot := age % users
		if step > 0 {
			slot = i * step % users
		}
		lines = append(lines, userLine{order: users - slot, turns: left, user: i + 1})
	}
	return append(lines, userLine{order: 0, user: users + 1})
}

// averageTurns is the dataset's mean turns per conversation, rounded half
// to even as Python's round() (AIPerf's session length for virtual
// history).
func averageTurns(convs []dataset.Conversation) int {
	if len(convs) == 0 {
		return 1
	}
	n := 0
	for i := range convs {
		n += len(convs[i].Turns)
	}
	return int(math.RoundToEven(float64(n) / float64(len(convs))))
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// sleepUntil waits for deadline like preciseSleepUntil, for goroutines that
// do not hold a thread: a Go timer until 2 ms before, then the precise
// kernel sleep, so that thousands of waiting users do not hold thousands
// of threads.
func sleepUntil(ctx context.Context, clock *record.Clock, deadline int64) {
	const precise = 2 * time.Millisecond
	if wait := time.Duration(deadline - clock.Now()); wait > precise {
		coarseSleep(ctx, wait-precise)
	}
	preciseSleepUntil(ctx, clock, deadline)
}
