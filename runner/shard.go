package runner

import (
	"fmt"
	"hash/fnv"
	"time"

	"github.com/aiperf-go/aiperf/record"
	"github.com/aiperf-go/aiperf/sink"
)

// Sharding: N processes (shards) run one benchmark. Every shard builds the
// same global plan from the same seed (dataset, sampling order, arrival
// intervals, fixed schedule) and runs its deterministic part of it:
//
//   - sessions: global session g belongs to shard g mod N, and is the g-th
//     conversation the sampler draws (each shard draws every conversation
//     and keeps its own), so a session is never split and its number and
//     conversation are the single-machine ones;
//   - request-rate: tick k of the global arrival schedule (start + the sum
//     of the first k intervals) belongs to shard k mod N, at its global
//     intended time: the shards' ticks together are the single-machine
//     schedule, not N schedules re-spaced at rate/N;
//   - fixed schedule: the conversation at position p of the timestamp
//     order belongs to shard p mod N, replayed at its own timestamp;
//   - counts (--request-count, --num-sessions, warmup's), --concurrency and
//     --prefill-concurrency are split exactly, the remainder to the low
//     indices (share), which matches "g mod N" for sessions and credits;
//   - warmup: each shard runs its share of the warmup the same way.
//
// See docs/fleet.md.

// DefaultShardBarrierTimeout is how long --shard-barrier waits for every
// shard's ready object.
const DefaultShardBarrierTimeout = 5 * time.Minute

// Sharded reports whether the run is a shard of a run group: it writes
// runs/<RunGroup>/shards/<ShardIndex>/ instead of runs/<run_id>/. A
// --shard-count of 1 without a group is an ordinary run.
func (c *Config) Sharded() bool {
	return c.ShardCount > 1 || (c.ShardCount == 1 && c.RunGroup != "")
}

// share returns shard index's part of total split over count shards: the
// quotient, plus one for the first total mod count shards.
func share(total, index, count int) int {
	if count <= 1 {
		return total
	}
	n := total / count
	if index < total%count {
		n++
	}
	return n
}

// shardProblems checks the sharding flags.
func (c *Config) shardProblems() []string {
	var p []string
	add := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	switch {
	case c.ShardCount < 0:
		add("--shard-count %d is not valid: give the number of shards (1 or more)", c.ShardCount)
	case c.ShardCount == 0 && c.ShardIndex != 0:
		add("--shard-index %d needs --shard-count: set it (or AIPERF_SHARD_COUNT) to the number of shards", c.ShardIndex)
	case c.ShardCount > 0 && (c.ShardIndex < 0 || c.ShardIndex >= c.ShardCount):
		add("--shard-index %d is out of range: it must be in [0, %d) for --shard-count %d", c.ShardIndex, c.ShardCount, c.ShardCount)
	}
	if c.ShardCount > 1 && c.RunGroup == "" {
		add("--run-group is required with --shard-count %d: give every shard the same group id (AIPERF_RUN_GROUP), or run under a scheduler that exposes a job id", c.ShardCount)
	}
	if c.RunGroup != "" {
		if err := sink.CheckGroup(c.RunGroup); err != nil {
			add("--run-group: %v", err)
		}
	}
	if !c.Sharded() {
		if c.ShardBarrier {
			add("--shard-barrier needs --shard-count and --run-group: the barrier waits for the group's shards")
		}
		if !c.StartAt.IsZero() && c.RunGroup == "" && c.ShardCount == 0 {
			add("--start-at needs --shard-count and --run-group: it lines up the shards of a group")
		}
		return p
	}
	if c.ShardBarrier && !c.StartAt.IsZero() {
		add("--shard-barrier and --start-at both set a common start: use one")
	}
	if c.ShardBarrier && c.ShardBarrierTimeout <= 0 {
		add("--shard-barrier-timeout must be positive")
	}
	n := c.ShardCount
	if n > 1 {
		if c.Mode() == ModeUserCentric {
			add("--user-centric-rate cannot be sharded yet: run it on one machine, or use --request-rate")
		}
		if c.NumProfileRuns > 1 || len(c.ConcurrencyList) > 1 || len(c.RequestRateList) > 1 {
			add("--num-profile-runs and --concurrency/--request-rate lists cannot be sharded: run one benchmark per group")
		}
		if conc := c.EffectiveConcurrency(); conc > 0 && conc < n {
			add("--concurrency %d is below --shard-count %d: every shard needs at least one session slot; raise --concurrency or use fewer shards", conc, n)
		}
	}
	return p
}

// groupSeed is the seed of a sharded run without --random-seed: every
// shard of the group derives the same one from the group id, so that they
// build the same plan.
func groupSeed(group string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(group))
	return h.Sum64()
}

// shardState is a shard's place in its group and the state of its part of
// the global plan.
type shardState struct {
	index, count int
	group        string
	// store holds the group's ready objects; set once the run's artifacts
	// are open.
	store *sink.Store
	// info is what the manifest records (see awaitStart).
	info sink.ShardInfo

	// Session sampling, under run.sampleMu: the sampler has given drawn
	// conversations; the current phase's sessions are base + j*count +
	// index for j = 0, 1, ...
	phase      record.Phase
	drawn      int
	base, next int
}

// newShardState returns the state of a sharded run, nil when cfg is not
// sharded.
func newShardState(cfg *Config) *shardState {
	if !cfg.Sharded() {
		return nil
	}
	return &shardState{index: cfg.ShardIndex, count: cfg.ShardCount, group: cfg.RunGroup,
		info: sink.ShardInfo{Group: cfg.RunGroup, Index: cfg.ShardIndex, Count: cfg.ShardCount}}
}

// newSession starts a session of phase on the next conversation: the next
// sampled one, or, for a shard, its next global session of the phase.
func (r *run) newSession(phase record.Phase) *session {
	if r.shard == nil {
		return r.sessions.start(r, r.nextConversation())
	}
	conv, num := r.shardConversation(phase)
	return r.sessions.startNum(r, conv, num)
}

// shardConversation returns the conversation and global number of the
// shard's next session of phase. A new phase starts at the global session
// count of the phases before it (phaseSessionBase).
func (r *run) shardConversation(phase record.Phase) (conv, num int) {
	r.sampleMu.Lock()
	defer r.sampleMu.Unlock()
	sh := r.shard
	if phase != sh.phase {
		sh.phase, sh.base, sh.next = phase, r.phaseSessionBase(phase), 0
	}
	num = sh.base + sh.next*sh.count + sh.index
	sh.next++
	for sh.drawn < num {
		r.sampler.Next()
		sh.drawn++
	}
	sh.drawn++
	return r.sampler.Next(), num
}

// phaseSessionBase is the global number of phase's first session: 0 for
// the first phase; for profiling after a warmup, the warmup's global
// session count when it is known in advance (--num-warmup-sessions, or a
// count-bound warmup of single-turn conversations), else the shard's own
// draws rounded up to a whole number of rounds (then the plan differs from
// a single machine's, whose duration-bound warmup has no fixed count).
func (r *run) phaseSessionBase(phase record.Phase) int {
	if phase != record.PhaseProfiling || !r.cfg.WarmupEnabled() {
		return 0
	}
	cfg := r.cfg
	switch {
	case cfg.NumWarmupSessions > 0:
		return cfg.NumWarmupSessions
	case cfg.WarmupRequestCount > 0 && cfg.WarmupDuration == 0 && r.singleTurn():
		return cfg.WarmupRequestCount
	}
	n := r.shard.count
	return (r.shard.drawn + n - 1) / n * n
}

// singleTurn reports whether every conversation has one turn.
func (r *run) singleTurn() bool {
	for i := range r.convs {
		if len(r.convs[i].Turns) > 1 {
			return false
		}
	}
	return true
}

// requestNum numbers the request of credit c: in send order, or, for a
// shard, the credit's global number (credit k of the shard is global
// credit k*N + index; profiling after a count-bound warmup of single-turn
// conversations continues after the warmup's, as on one machine).
func (r *run) requestNum(spec *phaseSpec, c credit) int {
	if r.shard == nil {
		return int(r.requests.Add(1)) - 1
	}
	base := 0
	if spec.phase == record.PhaseProfiling && r.cfg.WarmupEnabled() && r.cfg.WarmupDuration == 0 && r.singleTurn() {
		base = r.cfg.WarmupRequestCount
	}
	return base + c.num*r.shard.count + r.shard.index
}

// shardSpecs gives each phase the shard's share of its counts, sessions
// and concurrency. The rate is the global one: the shard sends every N-th
// tick (see shardPhase). A fixed schedule's count, taken from the shard's
// own conversations, is already its share.
func (r *run) shardSpecs(specs []*phaseSpec) {
	sh := r.shard
	if sh == nil {
		return
	}
	part := func(v int) int {
		if v <= 0 {
			return v
		}
		return max(1, share(v, sh.index, sh.count))
	}
	for _, s := range specs {
		fixedCount := s.phase == record.PhaseProfiling && r.fixed != nil && r.cfg.RequestCount == 0 && r.cfg.NumSessions == 0
		if s.count > 0 && !fixedCount {
			s.count = share(s.count, sh.index, sh.count)
			if s.count == 0 {
				s.count = -1 // nothing to send: see issuer.take
			}
		}
		if s.sessions > 0 {
			s.sessions = share(s.sessions, sh.index, sh.count)
			if s.sessions == 0 {
				s.count = -1
			}
		}
		s.concurrency = part(s.concurrency)
		s.prefill = part(s.prefill)
	}
}

// shardPhase sets an open-loop phase to send only the shard's ticks of
// the global schedule.
func (r *run) shardPhase(ph *phaseRun) {
	if r.shard != nil {
		ph.stride, ph.offset = r.shard.count, r.shard.index
	}
}

// shardFixed keeps the shard's conversations of the fixed schedule: those
// at positions p ≡ index (mod N), each with session number p.
func (r *run) shardFixed(fs *fixedSchedule) {
	sh := r.shard
	if sh == nil {
		return
	}
	var order, nums []int
	for p, conv := range fs.order {
		if p%sh.count == sh.index {
			order = append(order, conv)
			nums = append(nums, p)
		}
	}
	fs.order, fs.nums = order, nums
}

// shardInfo is the manifest's "shard" object; nil when not sharded.
func (r *run) shardInfo() *sink.ShardInfo {
	if r.shard == nil {
		return nil
	}
	info := r.shard.info
	return &info
}
