package telemetry

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aiperf-go/aiperf/record"
)

// Defaults of a Monitor.
const (
	// DefaultQueue is how many samples wait for the consumer before new
	// ones are dropped (and counted).
	DefaultQueue = 1024
	// DefaultTimeout bounds one collection, as AIPerf's reachability timeout.
	DefaultTimeout = 5 * time.Second
)

// Source is a collector and how often to poll it.
type Source struct {
	Collector Collector
	// Interval between the starts of two collections. A collection that
	// takes longer delays the next one (the missed ticks are counted as
	// Skipped); it never runs two at once.
	Interval time.Duration
}

// Options configure a Monitor.
type Options struct {
	// Clock stamps the samples; required.
	Clock *record.Clock
	// Queue bounds the samples waiting for the consumer (DefaultQueue).
	Queue int
	// Timeout bounds one collection (DefaultTimeout).
	Timeout time.Duration
}

// Monitor polls its sources and hands every sample to one consumer. Start
// it with Start; Close stops it and returns the sources' health.
type Monitor struct {
	opts Options
	// ctx ends at Close, cancelling the collections in flight.
	ctx    context.Context
	cancel context.CancelFunc
	// polls counts the poll loops and CollectNow's collections: Close
	// waits for them before it closes the queue they send to.
	polls   sync.WaitGroup
	done    chan struct{}
	queue   chan Sample
	pollers []*poller
	mu      sync.Mutex // guards closed and the additions to polls
	closed  bool
}

// poller owns one source's loop and its health counters.
type poller struct {
	src     Source
	health  Health
	mu      sync.Mutex // guards health
	dropped atomic.Int64
	// collecting serialises collections: the loop's and CollectNow's.
	collecting sync.Mutex
	// kick asks the loop for a collection at once (see Monitor.Restart).
	kick chan struct{}
}

// Start polls every source until Close, calling consume with each sample
// on one goroutine, in the order samples were queued. A source's first
// collection happens one interval after Start (call CollectNow for one at
// once, e.g. a baseline). consume must not block for long: the queue
// in front of it is bounded, and samples that do not fit are dropped and
// counted in the source's health.
func Start(ctx context.Context, sources []Source, consume func(Sample), opts Options) *Monitor {
	if opts.Queue <= 0 {
		opts.Queue = DefaultQueue
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	ctx, cancel := context.WithCancel(ctx)
	m := &Monitor{opts: opts, ctx: ctx, cancel: cancel, done: make(chan struct{}), queue: make(chan Sample, opts.Queue)}
	for _, s := range sources {
		p := &poller{src: s, health: Health{Source: s.Collector.Source(), Kind: s.Collector.Kind()},
			kick: make(chan struct{}, 1)}
		m.pollers = append(m.pollers, p)
		m.polls.Add(1)
		go func() {
			defer m.polls.Done()
			p.loop(ctx, m)
		}()
	}
	go func() {
		defer close(m.done)
		for s := range m.queue {
			consume(s)
		}
	}()
	return m
}

// loop collects at the source's interval until ctx ends.
func (p *poller) loop(ctx context.Context, m *Monitor) {
	interval := p.src.Interval
	if interval <= 0 {
		interval = time.Second
	}
	next := time.Now().Add(interval)
	timer := time.NewTimer(interval)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		case <-p.kick:
			// Restart: collect now, and count the interval from now.
			if !timer.Stop() {
				select {
				case <-timer.C:
				default:
				}
			}
			next = time.Now()
		}
		p.collect(ctx, m)
		var missed int64
		if next, missed = nextTick(next, time.Now(), interval); missed > 0 {
			p.mu.Lock()
			p.health.Skipped += missed
			p.mu.Unlock()
		}
		timer.Reset(time.Until(next))
	}
}

// nextTick returns when the collection after the one due at due starts,
// given that that one ended at now, and how many ticks it missed. The next
// collection starts one interval after the last one was due; the ticks a
// slow collection overran (those before now) are skipped, not made up.
func nextTick(due, now time.Time, interval time.Duration) (time.Time, int64) {
	next := due.Add(interval)
	late := now.Sub(next)
	if late <= 0 {
		return next, 0
	}
	missed := int64((late + interval - 1) / interval)
	return next.Add(time.Duration(missed) * interval), missed
}

// collect takes one sample, records how it went, and queues it.
func (p *poller) collect(ctx context.Context, m *Monitor) {
	p.collecting.Lock()
	defer p.collecting.Unlock()
	cctx, cancel := context.WithTimeout(ctx, m.opts.Timeout)
	start := m.opts.Clock.Now()
	s, err := p.src.Collector.Collect(cctx)
	cancel()
	end := m.opts.Clock.Now()
	if ctx.Err() != nil && err != nil {
		return // stopped mid-collection: not the source's failure
	}
	p.mu.Lock()
	p.health.observe(end-start, err)
	p.mu.Unlock()
	if err != nil {
		return
	}
	s.Kind, s.Source = p.src.Collector.Kind(), p.src.Collector.Source()
	s.TimeNS = m.opts.Clock.Wall(start)
	s.LatencyNS = end - start
	select {
	case m.queue <- s:
	default:
		p.dropped.Add(1)
	}
}

// CollectNow takes one more sample from every source at once, waits for
// them, and queues them (used for the baseline before the run and the
// final scrape at the end of the profiling window). It is safe to call
// while polling goes on and concurrently with Close, which cancels its
// collections and waits for them; after Close it does nothing.
func (m *Monitor) CollectNow(ctx context.Context) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return
	}
	m.polls.Add(len(m.pollers))
	m.mu.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(m.ctx, cancel)()
	var wg sync.WaitGroup
	for _, p := range m.pollers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer m.polls.Done()
			p.collect(ctx, m)
		}()
	}
	wg.Wait()
}

// Restart has every source of the kind collect at once, without waiting
// for it, and its following collections come one interval apart from that
// one, as AIPerf 0.13's GPU collectors start polling when profiling starts
// (their first collection immediate). A source in the middle of a
// collection starts the next one when it is done. It does nothing after
// Close.
func (m *Monitor) Restart(kind Kind) {
	for _, p := range m.pollers {
		if p.src.Collector.Kind() != kind {
			continue
		}
		select {
		case p.kick <- struct{}{}:
		default: // one is pending already
		}
	}
}

// Close stops polling, waits for collections in flight, lets the consumer
// finish every queued sample, and returns each source's health in the
// order of the sources. Close is idempotent; later calls return nil.
func (m *Monitor) Close() []Health {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	m.mu.Unlock()
	m.cancel()
	m.polls.Wait()
	close(m.queue)
	<-m.done
	out := make([]Health, len(m.pollers))
	for i, p := range m.pollers {
		p.mu.Lock()
		out[i] = p.health
		p.mu.Unlock()
		out[i].Dropped = p.dropped.Load()
		out[i].finish()
	}
	return out
}

// errorText is err's message, without a wrapping context.DeadlineExceeded's
// noise.
func errorText(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "timed out: " + err.Error()
	}
	return err.Error()
}
