package runner

import (
	"sync"
	"sync/atomic"
	"testing"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/record"
)

// TestStartWithCreditLeavesNoGap: closed-loop workers racing to start
// sessions against a request count get every credit, each with the session
// started with it: the session numbers are exactly 0..count-1, in credit
// order, none started without its first turn.
func TestStartWithCreditLeavesNoGap(t *testing.T) {
	const count, workers = 500, 16
	is := newIssuer(&phaseSpec{count: count}, record.NewClock(), nil)
	conv := &dataset.Conversation{Turns: []dataset.Turn{{}}}
	var numbered atomic.Int64
	open := func() *session {
		return &session{c: conv, num: int(numbered.Add(1)) - 1, turns: 1}
	}
	var mu sync.Mutex
	byCredit := make([]int, count)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				s, c, ok := is.startWithCredit(open)
				if !ok {
					return
				}
				mu.Lock()
				byCredit[c.num] = s.num
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if n := numbered.Load(); n != count {
		t.Fatalf("%d sessions started for %d credits", n, count)
	}
	for i, num := range byCredit {
		if num != i {
			t.Fatalf("credit %d went with session %d, want %d (all: %v)", i, num, i, byCredit)
		}
	}
}
