package runner

import (
	"context"
	"log/slog"
	"strings"
	"sync"
)

// onceHandler is the run's console log handler (Options.Logger): it passes
// records below ERROR at once and holds ERROR records until the run ends.
// Then release prints each one unless the error the run returns already
// says it (its message, or any of its string values, is part of the
// error's text): the command prints that error, so a failure that ends the
// run is one line on stderr, not two. The run's log file gets every record
// as it is logged.
type onceHandler struct {
	next slog.Handler
	held *heldRecords
}

// heldRecords are the ERROR records a onceHandler and the handlers derived
// from it (WithAttrs, WithGroup) hold, each with the handler to print it.
type heldRecords struct {
	mu      sync.Mutex
	records []heldRecord
	// released is set once release ran: later records pass at once.
	released bool
}

type heldRecord struct {
	h slog.Handler
	r slog.Record
}

// newOnceHandler wraps next.
func newOnceHandler(next slog.Handler) *onceHandler {
	return &onceHandler{next: next, held: &heldRecords{}}
}

// Enabled reports whether next handles level.
func (h *onceHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

// Handle passes r to next, or holds it when it is an ERROR record.
func (h *onceHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= slog.LevelError {
		h.held.mu.Lock()
		if !h.held.released {
			h.held.records = append(h.held.records, heldRecord{h.next, r.Clone()})
			h.held.mu.Unlock()
			return nil
		}
		h.held.mu.Unlock()
	}
	return h.next.Handle(ctx, r)
}

// WithAttrs returns a handler that holds its records with h's.
func (h *onceHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &onceHandler{next: h.next.WithAttrs(attrs), held: h.held}
}

// WithGroup returns a handler that holds its records with h's.
func (h *onceHandler) WithGroup(name string) slog.Handler {
	return &onceHandler{next: h.next.WithGroup(name), held: h.held}
}

// release prints the held records that runErr, the error the run returns
// (nil when it succeeded), does not already say, in the order they were
// logged; records logged after it pass at once.
func (h *onceHandler) release(runErr error) {
	h.held.mu.Lock()
	records := h.held.records
	h.held.records, h.held.released = nil, true
	h.held.mu.Unlock()
	for _, hr := range records {
		if runErr != nil && saidBy(hr.r, runErr.Error()) {
			continue
		}
		_ = hr.h.Handle(context.Background(), hr.r)
	}
}

// saidBy reports whether text already says what r says: r's message or one
// of its non-empty string values is part of it.
func saidBy(r slog.Record, text string) bool {
	said := r.Message != "" && strings.Contains(text, r.Message)
	r.Attrs(func(a slog.Attr) bool {
		if v := a.Value.Resolve(); v.Kind() == slog.KindString && v.String() != "" && strings.Contains(text, v.String()) {
			said = true
		} else if v.Kind() == slog.KindAny {
			if err, ok := v.Any().(error); ok && strings.Contains(text, err.Error()) {
				said = true
			}
		}
		return !said
	})
	return said
}
