package runner

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/record"
)

// progress draws the simple UI: phase, completed/total, a bar, request rate,
// errors and ETA. It reads atomic counters only, so it never slows senders.
type progress struct {
	w        io.Writer
	live     *counters
	clock    *record.Clock
	terminal bool
	every    time.Duration
	stopCh   chan struct{}
	wg       sync.WaitGroup
}

// uiType resolves the UI: the configured one, else simple on a terminal and
// none otherwise. The dashboard is not built yet and falls back to simple.
func (r *run) uiType() string {
	return resolveUI(r.cfg.UIType, r.opts.Terminal)
}

func resolveUI(ui string, terminal bool) string {
	switch strings.ToLower(ui) {
	case "none", "simple":
		return strings.ToLower(ui)
	case "dashboard":
		return "simple"
	}
	if terminal {
		return "simple"
	}
	return "none"
}

// newProgress returns the progress display for the configured UI, or a
// display that does nothing for --ui-type none.
func newProgress(cfg *Config, opts Options, live *counters, clock *record.Clock) *progress {
	p := &progress{live: live, clock: clock, terminal: opts.Terminal, stopCh: make(chan struct{})}
	if resolveUI(cfg.UIType, opts.Terminal) != "simple" || opts.Stderr == nil {
		return p
	}
	p.w = opts.Stderr
	p.every = 5 * time.Second
	if opts.Terminal {
		p.every = 250 * time.Millisecond
	}
	return p
}

// start begins drawing until stop.
func (p *progress) start() {
	if p.w == nil {
		return
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(p.every)
		defer t.Stop()
		for {
			select {
			case <-p.stopCh:
				p.draw(true)
				return
			case <-t.C:
				p.draw(false)
			}
		}
	}()
}

// stop draws the final state and waits for the drawing goroutine.
func (p *progress) stop() {
	close(p.stopCh)
	p.wg.Wait()
}

func (p *progress) draw(final bool) {
	line := progressLine(p.live, p.clock.Now())
	end := "\n"
	if p.terminal {
		line = "\r\x1b[2K" + line
		if !final {
			end = ""
		}
	}
	fmt.Fprint(p.w, line+end)
}

// progressLine renders one progress line from the counters at time now.
func progressLine(c *counters, now int64) string {
	phase, _ := c.phase.Load().(record.Phase)
	label := "Profiling"
	if phase == record.PhaseWarmup {
		label = "Warming Up"
	}
	done, total, failed := c.completed.Load(), c.total.Load(), c.failed.Load()
	elapsed := time.Duration(now - c.started.Load())
	rate := 0.0
	if elapsed > 0 {
		rate = float64(done) / elapsed.Seconds()
	}
	frac, eta := 0.0, time.Duration(0)
	head := fmt.Sprintf("%d", done)
	if total > 0 {
		frac = float64(done) / float64(total)
		head = fmt.Sprintf("%d/%d", done, total)
		if rate > 0 {
			eta = time.Duration(float64(total-done) / rate * float64(time.Second))
		}
	} else if d := time.Duration(c.deadline.Load()); d > 0 {
		frac = min(1, elapsed.Seconds()/d.Seconds())
		eta = max(0, d-elapsed)
	}
	const width = 30
	n := int(frac * width)
	bar := strings.Repeat("█", n) + strings.Repeat(" ", width-n)
	return fmt.Sprintf("%s: %s |%s| %3.0f%% [%s<%s, %.1f req/s, %d errors]",
		label, head, bar, frac*100, clockString(elapsed), clockString(eta), rate, failed)
}

// clockString renders d as mm:ss (or h:mm:ss).
func clockString(d time.Duration) string {
	s := int(d.Round(time.Second).Seconds())
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%02d:%02d", s/60, s%60)
}

// observe notes a finished record (any phase) for the live display. It is
// called from the record pipeline's one consumer goroutine and must not
// block.
func (p *progress) observe(rec *record.Record, vals []metrics.RecordValue) {}
