package runner

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

// TestOnceHandler: an ERROR record the run's error already says is not
// printed on the console; one it does not say is, after the run; records
// below ERROR pass at once; the log file (a second handler) gets them all.
func TestOnceHandler(t *testing.T) {
	var console, file bytes.Buffer
	once := newOnceHandler(slog.NewTextHandler(&console, nil))
	log := slog.New(slog.NewMultiHandler(once, slog.NewTextHandler(&file, nil)))
	log.Warn("a warning")
	if !strings.Contains(console.String(), "a warning") {
		t.Errorf("a warning was held: %q", console.String())
	}
	log.Error("target down: sending stopped", "reason", "no request succeeded for 1s")
	log.With("kind", "gpu").Error("telemetry samples could not be written", "error", errors.New("disk full"))
	if strings.Contains(console.String(), "level=ERROR") {
		t.Errorf("an ERROR was printed before the run ended: %q", console.String())
	}
	once.release(errors.New("target down: no request succeeded for 1s; the results so far were written"))
	out := console.String()
	if strings.Contains(out, "sending stopped") {
		t.Errorf("the error the run returns was also logged:\n%s", out)
	}
	if !strings.Contains(out, "telemetry samples could not be written") || !strings.Contains(out, "kind=gpu") {
		t.Errorf("an error the run does not return was not printed:\n%s", out)
	}
	log.Error("after the run")
	if !strings.Contains(console.String(), "after the run") {
		t.Errorf("a record after release was held:\n%s", console.String())
	}
	for _, msg := range []string{"a warning", "sending stopped", "telemetry samples", "after the run"} {
		if !strings.Contains(file.String(), msg) {
			t.Errorf("the log file lacks %q:\n%s", msg, file.String())
		}
	}
}
