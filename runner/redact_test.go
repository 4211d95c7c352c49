package runner

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/record"
)

func TestRedactArgs(t *testing.T) {
	in := []string{"--api-key", "sk-1", "--api-key=sk-2", "-H", "Authorization:Bearer x", "--header=X-Tenant:blue",
		"--header", "Cookie:abc", "--extra-inputs", "temperature:0.2", "--extra-inputs", "user_token:t0k",
		"--extra-inputs", `{"api_key":"k"}`, "--model", "m"}
	want := []string{"--api-key", Redacted, "--api-key=" + Redacted, "-H", "Authorization:" + Redacted, "--header=X-Tenant:blue",
		"--header", "Cookie:" + Redacted, "--extra-inputs", "temperature:0.2", "--extra-inputs", "user_token:" + Redacted,
		"--extra-inputs", Redacted, "--model", "m"}
	if got := RedactArgs(in); !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

func TestConfigRedact(t *testing.T) {
	c := Config{APIKey: "sk", Headers: []string{"X-API-KEY:v", "Accept:a"}, ExtraInputs: []string{"secret:s", "n:1"}}
	r := c.Redact()
	if r.APIKey != Redacted || r.Headers[0] != "X-API-KEY:"+Redacted || r.Headers[1] != "Accept:a" ||
		r.ExtraInputs[0] != "secret:"+Redacted || r.ExtraInputs[1] != "n:1" {
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
