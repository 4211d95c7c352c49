package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
)

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"URL", "", 3}, {"CONCURENCY", "CONCURRENCY", 1}, {"REQEUST_COUNT", "REQUEST_COUNT", 2},
		{"kitten", "sitting", 3}, {"STREAMING", "STREAMING", 0},
	} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestCheckEnvWarnsOncePerMisspelling(t *testing.T) {
	settings := envSettings(newRoot(nil, io.Discard, io.Discard))
	environ := []string{
		"PATH=/bin", "AIPERF_CONCURENCY=3", "AIPERF_CONCURENCY=4", "AIPERF_REQEUST_COUNT=5",
		"AIPERF_MODEL=m", "AIPERF_M=m", "AIPERF_STREAMING=1", "AIPERF_TEST_LLAMA_URL=x", "AIPERF_REPORT_DB=x",
		"AIPERF_LLAMA_PORT=18080", "AIPERF_ARTIFACT_DRI=/tmp/x",
	}
	var stderr bytes.Buffer
	if err := checkEnv(environ, settings, &stderr); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"aiperf: warning: AIPERF_ARTIFACT_DRI is not an aiperf setting and is ignored; did you mean AIPERF_ARTIFACT_DIR (--artifact-dir)?",
		"aiperf: warning: AIPERF_CONCURENCY is not an aiperf setting and is ignored; did you mean AIPERF_CONCURRENCY (--concurrency)?",
		"aiperf: warning: AIPERF_REQEUST_COUNT is not an aiperf setting and is ignored; did you mean AIPERF_REQUEST_COUNT (--request-count)?",
	}
	if got := strings.Split(strings.TrimSpace(stderr.String()), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("warnings\n%s\nwant\n%s", stderr.String(), strings.Join(want, "\n"))
	}
}

func TestCheckEnvBooleans(t *testing.T) {
	settings := envSettings(newRoot(nil, io.Discard, io.Discard))
	for _, ok := range []string{"true", "0", "F", "TRUE", ""} {
		if err := checkEnv([]string{"AIPERF_STREAMING=" + ok}, settings, io.Discard); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	if err := checkEnv([]string{"AIPERF_CONCURRENCY=abc"}, settings, io.Discard); err != nil {
		t.Errorf("a number setting is no boolean: %v", err)
	}
	err := checkEnv([]string{"AIPERF_STREAMING=yes"}, settings, io.Discard)
	for _, want := range []string{`AIPERF_STREAMING="yes" is not a boolean (--streaming)`, "use true or false", "1/0"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
}

func TestBadBooleanEnvExitsTwo(t *testing.T) {
	srv, hits := countingServer(t)
	var out, errb bytes.Buffer
	err := runWithEnv(context.Background(), []string{"profile", "-m", "x", "--tokenizer", "builtin", "--url", srv.URL, "--ui-type", "none", "--artifact-dir", t.TempDir()},
		[]string{"AIPERF_STREAMING=on"}, &out, &errb)
	if code := exitCode(err, &errb); code != exitUsage || !strings.Contains(errb.String(), "AIPERF_STREAMING") || hits.Load() != 0 {
		t.Fatalf("exit %d, %d requests, stderr:\n%s", code, hits.Load(), errb.String())
	}
}
