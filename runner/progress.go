package runner

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/term"

	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/record"
)

// The UI modes of --ui-type.
const (
	uiNone      = "none"
	uiSimple    = "simple"
	uiDashboard = "dashboard"
)

// Refresh periods: a terminal is redrawn 4 times a second; a log (simple UI
// asked for on a non-terminal) gets one line every 5 seconds.
const (
	terminalRefresh = 250 * time.Millisecond
	logRefresh      = 5 * time.Second
)

// progress is the live display: the simple UI (one line) or the dashboard
// (a full-screen view on the alternate screen). Senders, pacers and the
// record consumer feed it through observe, lateness and sendBegin/sendEnd,
// each O(1) and allocation-free; one drawing goroutine, owned by
// start/stop, reads the counters and the recent window and writes frames.
// With --ui-type none every method does nothing. Its methods accept a nil
// *progress.
type progress struct {
	w        io.Writer
	mode     string // uiNone, uiSimple or uiDashboard
	live     *counters
	clock    *record.Clock
	terminal bool
	every    time.Duration
	size     func() (width, height int)

	recent   *window     // nil with --ui-type none
	late     *lateWindow // dashboard only
	inflight atomic.Int64

	stopCh   chan struct{}
	stopOnce sync.Once
	wg       sync.WaitGroup

	// Owned by the drawing goroutine.
	sc    scratch
	frame bytes.Buffer
}

// uiType resolves the UI this run shows (recorded in the run's inputs).
func (r *run) uiType() string {
	return uiFor(r.cfg, r.opts.Terminal)
}

// resolveUI resolves --ui-type: the configured mode, else the dashboard on a
// terminal and none otherwise. The dashboard needs a terminal: without one
// it becomes simple, which then prints a line every few seconds.
func resolveUI(ui string, terminal bool) string {
	switch ui = strings.ToLower(ui); ui {
	case uiNone, uiSimple:
		return ui
	case uiDashboard:
		if !terminal {
			return uiSimple
		}
		return uiDashboard
	}
	if terminal {
		return uiDashboard
	}
	return uiNone
}

// uiFor is resolveUI with AIPerf's other fallbacks: the dashboard becomes
// simple with -v/-vv (or a console log level below INFO, whose lines would
// tear the screen) and for several runs (--num-profile-runs > 1, sweeps).
func uiFor(cfg *Config, terminal bool) string {
	ui := resolveUI(cfg.UIType, terminal)
	if ui != uiDashboard {
		return ui
	}
	verbose := cfg.Verbose || (cfg.LogLevelSet && LogLevel(cfg.LogLevel) < slog.LevelInfo)
	if verbose || cfg.NumProfileRuns > 1 || len(cfg.ConcurrencyList) > 1 || len(cfg.RequestRateList) > 1 {
		return uiSimple
	}
	return ui
}

// newProgress returns the live display for the configured UI, drawing on
// opts.Stderr. With --ui-type none (or no Stderr) it is inert.
func newProgress(cfg *Config, opts Options, live *counters, clock *record.Clock) *progress {
	p := &progress{live: live, clock: clock, terminal: opts.Terminal, stopCh: make(chan struct{}),
		mode: uiFor(cfg, opts.Terminal), size: terminalSize(opts.Stderr)}
	if p.mode == uiNone || opts.Stderr == nil {
		p.mode = uiNone
		return p
	}
	p.w = opts.Stderr
	p.recent = new(window)
	p.every = logRefresh
	if opts.Terminal {
		p.every = terminalRefresh
	}
	if p.mode == uiDashboard {
		p.late = new(lateWindow)
	}
	return p
}

// terminalSize reports the size of w when it is a terminal, else 80×24.
func terminalSize(w io.Writer) func() (int, int) {
	return func() (int, int) {
		if f, ok := w.(*os.File); ok {
			if wd, ht, err := term.GetSize(int(f.Fd())); err == nil && wd > 0 && ht > 0 {
				return wd, ht
			}
		}
		return 80, 24
	}
}

// start is startContext(context.Background()).
func (p *progress) start() { p.startContext(context.Background()) }

// startContext starts the drawing goroutine; stop ends it. When ctx is
// cancelled (the first Ctrl-C) the dashboard gives the terminal back at once
// and goes on as the simple line, so that a second Ctrl-C, which kills the
// process, leaves a usable terminal.
func (p *progress) startContext(ctx context.Context) {
	if p == nil || p.w == nil {
		return
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		dashboard := p.mode == uiDashboard
		if dashboard {
			p.write(ansiEnter)
		}
		t := time.NewTicker(p.every)
		defer t.Stop()
		interrupted := ctx.Done()
		for {
			select {
			case <-p.stopCh:
				if dashboard {
					p.write(ansiLeave)
				}
				p.drawLine(true)
				return
			case <-interrupted:
				interrupted = nil
				if dashboard {
					dashboard = false
					p.write(ansiLeave)
				}
			case <-t.C:
				if dashboard {
					p.drawDashboard()
				} else {
					p.drawLine(false)
				}
			}
		}
	}()
}

// stop draws the final line (the dashboard first restores the terminal:
// cursor shown, main screen back) and waits for the drawing goroutine. It
// may be called more than once, and without start.
func (p *progress) stop() {
	if p == nil {
		return
	}
	p.stopOnce.Do(func() { close(p.stopCh) })
	p.wg.Wait()
}

// observe notes a finished record (any phase) for the live display. It is
// called from the record pipeline's one consumer goroutine; it takes a
// mutex for O(1) work and does not allocate. Records of a phase other than
// the current one are ignored.
func (p *progress) observe(rec *record.Record, vals []metrics.RecordValue) {
	if p == nil || p.recent == nil {
		return
	}
	if cur, _ := p.live.phase.Load().(record.Phase); rec.Phase != cur {
		return
	}
	p.recent.add(rec.Phase, newSample(rec, vals))
}

// lateness notes that an open-loop send at monotonic time at (ns) left ns
// behind its intended time. It is lock-free and allocation-free; pacers call
// it once per send.
func (p *progress) lateness(at, ns int64) {
	if p == nil || p.late == nil {
		return
	}
	p.late.add(at, ns)
}

// sendBegin and sendEnd bracket one request on the wire, for the in-flight
// count (one atomic add each).
func (p *progress) sendBegin() {
	if p != nil {
		p.inflight.Add(1)
	}
}

// sendEnd ends what sendBegin began.
func (p *progress) sendEnd() {
	if p != nil {
		p.inflight.Add(-1)
	}
}

// snapshot gathers what a frame shows at monotonic time now. Only the
// drawing goroutine calls it (it reuses p.sc).
func (p *progress) snapshot(now int64, recent bool) snapshot {
	s := counterSnapshot(p.live, now)
	s.inflight = p.inflight.Load()
	if recent && p.recent != nil {
		s.recentStats(now, p.recent, p.late, &p.sc)
	}
	return s
}

// drawLine writes the simple line: in place on a terminal, as a new line
// otherwise. The final line ends with a newline and shows the phase's
// average rate instead of the recent one.
func (p *progress) drawLine(final bool) {
	line := simpleLine(p.snapshot(p.clock.Now(), !final))
	end := "\n"
	if p.terminal {
		line = ansiLineStart + line
		if !final {
			end = ""
		}
	}
	p.write(line + end)
}

// drawDashboard redraws the whole dashboard in one write.
func (p *progress) drawDashboard() {
	width, height := p.size()
	p.frame.Reset()
	writeFrame(&p.frame, dashboardLines(p.snapshot(p.clock.Now(), true), width), height)
	_, _ = p.w.Write(p.frame.Bytes())
}

// write sends s to the display; errors (a closed terminal) are ignored, as
// the display is best effort.
func (p *progress) write(s string) { _, _ = io.WriteString(p.w, s) }
