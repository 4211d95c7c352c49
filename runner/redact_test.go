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
		"--extra-inputs", `{"api_key":"` + Redacted + `"}`, "--model", "m"}
	if got := RedactArgs(in); !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

// TestRedactArgsForms feeds RedactArgs every form the getopt-style parser
// accepts for a secret-bearing flag.
func TestRedactArgsForms(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"-HAuthorization: Bearer sk"}, []string{"-HAuthorization:" + Redacted}},
		{[]string{"-H", "Authorization: Bearer sk"}, []string{"-H", "Authorization:" + Redacted}},
		{[]string{"-vHX-Api-Key:sk"}, []string{"-vHX-Api-Key:" + Redacted}},
		{[]string{"-vvH", "Cookie:sk"}, []string{"-vvH", "Cookie:" + Redacted}},
		{[]string{"-HX-Tenant:blue"}, []string{"-HX-Tenant:blue"}},
		{[]string{"--header=Proxy-Authorization:Basic sk"}, []string{"--header=Proxy-Authorization:" + Redacted}},
		{[]string{"--header=", "Authorization:sk"}, []string{"--header=", "Authorization:" + Redacted}},
		{[]string{"--api-key=", "sk"}, []string{"--api-key=", Redacted}},
		{[]string{"-uhttp://u:sk@h:1"}, []string{"-uhttp://" + Redacted + "@h:1"}},
		{[]string{"-u", "http://h:1/?token=sk&x=1"}, []string{"-u", "http://h:1/?token=" + Redacted + "&x=1"}},
		{[]string{"--url=https://u:sk@h"}, []string{"--url=https://" + Redacted + "@h"}},
		{[]string{"--url", "u:sk@h:8000"}, []string{"--url", Redacted + "@h:8000"}},
		// -m takes "H" as its value: the next argument is no header.
		{[]string{"-mH", "X:y"}, []string{"-mH", "X:y"}},
		{[]string{"--request-rate", "-1", "--api-key", "sk"}, []string{"--request-rate", "-1", "--api-key", Redacted}},
		{[]string{"--extra-inputs", `{"a":[{"client_secret":"sk"}],"max_tokens":5}`}, []string{"--extra-inputs", `{"a":[{"client_secret":"` + Redacted + `"}],"max_tokens":5}`}},
		{[]string{"--extra-inputs=meta:{\"auth\":{\"k\":1}}"}, []string{"--extra-inputs=meta:{\"auth\":\"" + Redacted + "\"}"}},
		{[]string{"--extra-inputs", `{"password": broken`}, []string{"--extra-inputs", Redacted}},
		{[]string{"--extra-inputs", "max_tokens:100"}, []string{"--extra-inputs", "max_tokens:100"}},
	} {
		if got := RedactArgs(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("RedactArgs(%q)\n got  %q\n want %q", tc.in, got, tc.want)
		}
	}
}

func TestRedactJSON(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"auth":{"api_key":"x"}}`, `{"auth":"<redacted>"}`},
		{`{"z":1,"a":{"b":[{"Token":"x","n":1.50},{"ok":"<tag>"}]}}`, `{"z":1,"a":{"b":[{"Token":"<redacted>","n":1.50},{"ok":"<tag>"}]}}`},
		{`[{"password":null}]`, `[{"password":"<redacted>"}]`},
		{`{"max_tokens": 5, "stop_token_ids": [1]}`, `{"max_tokens": 5, "stop_token_ids": [1]}`}, // unchanged: the same text back
		{`"secret"`, `"secret"`},
	} {
		got, ok := redactJSON([]byte(tc.in))
		if !ok || string(got) != tc.want {
			t.Errorf("redactJSON(%s) = %s, %v; want %s", tc.in, got, ok, tc.want)
		}
	}
	for _, bad := range []string{`{"a":`, `{"a":1} {}`, `}`} {
		if _, ok := redactJSON([]byte(bad)); ok {
			t.Errorf("redactJSON(%s) accepted invalid JSON", bad)
		}
	}
}

func TestConfigRedact(t *testing.T) {
	c := Config{APIKey: "sk", URL: "http://u:p@h:1/?api_key=k", Headers: []string{"X-API-KEY:v", "Accept:a"},
		ExtraInputs: []string{"secret:s", "n:1", `{"o":{"access_token":"t"}}`}}
	r := c.Redact()
	if r.APIKey != Redacted || r.Headers[0] != "X-API-KEY:"+Redacted || r.Headers[1] != "Accept:a" ||
		r.ExtraInputs[0] != "secret:"+Redacted || r.ExtraInputs[1] != "n:1" ||
		r.ExtraInputs[2] != `{"o":{"access_token":"`+Redacted+`"}}` || r.URL != "http://"+Redacted+"@h:1/?api_key="+Redacted {
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
