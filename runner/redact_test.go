package runner

import (
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/secret"
	"github.com/aiperf-go/aiperf/record"
)

func TestConfigRedact(t *testing.T) {
	c := Config{APIKey: "sk", URL: "http://u:p@h:1/?api_key=k", Headers: []string{"X-API-KEY:v", "Accept:a"},
		ExtraInputs: []string{"secret:s", "n:1", `{"o":{"access_token":"t"}}`}}
	r := c.Redact()
	if r.APIKey != secret.Redacted || r.Headers[0] != "X-API-KEY:"+secret.Redacted || r.Headers[1] != "Accept:a" ||
		r.ExtraInputs[0] != "secret:"+secret.Redacted || r.ExtraInputs[1] != "n:1" ||
		r.ExtraInputs[2] != `{"o":{"access_token":"`+secret.Redacted+`"}}` || r.URL != "http://"+secret.Redacted+"@h:1/?api_key="+secret.Redacted {
		t.Fatalf("%+v", r)
	}
	if c.APIKey != "sk" || c.Headers[0] != "X-API-KEY:v" {
		t.Fatal("Redact modified the original")
	}
}

func TestShellQuote(t *testing.T) {
	got := ShellQuote([]string{"aiperf", "profile", "--model", "it's", "--concurrency", "4", "--rate", "2.5", "--grace", "inf"})
	want := `aiperf profile --model 'it'\''s' --concurrency 4 --rate 2.5 --grace 'inf'`
	if got != want {
		t.Fatalf("got %s want %s", got, want)
	}
}

func TestProgressLine(t *testing.T) {
	var c counters
	c.phase.Store(record.PhaseProfiling)
	c.total.Store(100)
	c.completed.Store(25)
	c.failed.Store(2)
	c.started.Store(int64(time.Second))
	line := progressLine(&c, int64(6*time.Second)) // 25 done in 5 s: 5 req/s, 15 s left
	for _, want := range []string{"Profiling: 25/100", "25%", "[00:05<00:15, 5.0 req/s, 2 errors]"} {
		if !strings.Contains(line, want) {
			t.Errorf("%q lacks %q", line, want)
		}
	}
	var d counters
	d.phase.Store(record.PhaseWarmup)
	d.deadline.Store(int64(10 * time.Second))
	d.completed.Store(7)
	if line := progressLine(&d, int64(4*time.Second)); !strings.Contains(line, "Warming Up: 7 |") || !strings.Contains(line, "40%") {
		t.Errorf("duration progress %q", line)
	}
}
