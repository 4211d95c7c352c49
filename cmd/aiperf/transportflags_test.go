package main

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/internal/command"
)

// TestURLFlag: --url is repeatable, comma-separated and multi-valued (as
// AIPerf's), from flags or AIPERF_URL; the first use replaces the default.
func TestURLFlag(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		env  string
		want []string
	}{
		{"default", nil, "", []string{"localhost:8000"}},
		{"one", []string{"--url", "a:1"}, "", []string{"a:1"}},
		{"repeated", []string{"--url", "a:1", "-u", "https://b:2"}, "", []string{"a:1", "https://b:2"}},
		{"comma-separated", []string{"--url", "a:1, b:2"}, "", []string{"a:1", "b:2"}},
		{"several values", []string{"--url", "a:1", "b:2", "--streaming"}, "", []string{"a:1", "b:2"}},
		{"env", nil, "a:1,b:2", []string{"a:1", "b:2"}},
		{"flag beats env", []string{"--url", "c:3"}, "a:1,b:2", []string{"c:3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.env != "" {
				t.Setenv("AIPERF_URL", tc.env)
			}
			cfg, err := parseProfile(expandMultiValue(append([]string{"profile", "-m", "m"}, tc.args...))[1:])
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.BaseURLs(); !slices.Equal(got, tc.want) || cfg.URL != tc.want[0] {
				t.Fatalf("urls %v (url %q), want %v", got, cfg.URL, tc.want)
			}
		})
	}
}

// TestTransportFlagErrors: a bad --url (any of several), an unknown
// --url-strategy or a bad --ca-cert is a usage error (exit 2) naming the
// flag.
func TestTransportFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--url", "localhost:8000,ftp://x"}, `--url "ftp://x" is not a valid URL`},
		{[]string{"--url", "http://"}, `--url "http://" is not a valid URL (no host)`},
		{[]string{"--url", "a:1", "--url-strategy", "random"}, `--url-strategy "random" is unknown`},
		{[]string{"--ca-cert", filepath.Join(t.TempDir(), "none.pem")}, "--ca-cert: open"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			_, err := parseProfile(append([]string{"-m", "m"}, tc.args...))
			var ue *command.UsageError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want a usage error with %q", err, tc.want)
			}
		})
	}
}

// TestSSLVerifyFlags: --insecure and AIPerf's AIPERF_HTTP_SSL_VERIFY=false
// both turn certificate verification off.
func TestSSLVerifyFlags(t *testing.T) {
	cfg, err := parseProfile([]string{"-m", "m", "--insecure"})
	if err != nil || !cfg.Insecure {
		t.Fatalf("--insecure: %v %v", cfg, err)
	}
	t.Setenv("AIPERF_HTTP_SSL_VERIFY", "false")
	cfg, err = parseProfile([]string{"-m", "m"})
	if err != nil || !cfg.Insecure {
		t.Fatalf("AIPERF_HTTP_SSL_VERIFY=false: %v", err)
	}
	cfg, err = parseProfile([]string{"-m", "m", "--http-ssl-verify=true"})
	if err != nil || cfg.Insecure {
		t.Fatalf("--http-ssl-verify=true: %v", err)
	}
}

// TestMockServerTLSProfile runs `aiperf mock-server --tls --tls-cert-out`
// and profiles it over HTTPS with `--ca-cert`, then checks that the
// contradictory TLS flags are usage errors.
func TestMockServerTLSProfile(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	var stdout, stderr lockedBuffer
	cert := filepath.Join(t.TempDir(), "mock.pem")
	errc := make(chan error, 1)
	go func() {
		errc <- run(ctx, []string{"mock-server", "--port", "0", "--ttft", "1", "--itl", "0", "--tls", "--tls-cert-out", cert}, &stdout, &stderr)
	}()
	defer func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("mock-server: %v", err)
		}
	}()
	var url string
	for deadline := time.Now().Add(10 * time.Second); url == "" && time.Now().Before(deadline); {
		if line, ok := strings.CutPrefix(stdout.String(), "mock server listening on "); ok {
			url = strings.TrimSpace(line)
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !strings.HasPrefix(url, "https://127.0.0.1:") {
		t.Fatalf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}
	var out, errb lockedBuffer
	args := []string{"profile", "-m", "mock-model", "--tokenizer", "builtin", "--url", url, "--ca-cert", cert, "--streaming",
		"--request-count", "4", "--ui-type", "none", "--artifact-dir", t.TempDir(), "--no-gpu-telemetry"}
	if err := run(t.Context(), args, &out, &errb); err != nil {
		t.Fatalf("profile over https: %v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), "Request Count") {
		t.Errorf("no report:\n%s", out.String())
	}

	for _, bad := range [][]string{
		{"--tls", "--tls-cert", cert, "--tls-key", cert},
		{"--tls-cert", cert},
		{"--tls-cert-out", cert},
	} {
		err := run(t.Context(), append([]string{"mock-server", "--port", "0"}, bad...), &out, &errb)
		var ue *command.UsageError
		if !errors.As(err, &ue) {
			t.Errorf("mock-server %v: %v, want a usage error", bad, err)
		}
	}
}
