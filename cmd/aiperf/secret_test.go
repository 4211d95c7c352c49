package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/peterbourgon/ff/v4"

	"github.com/aiperf-go/aiperf/internal/secret"
	"github.com/aiperf-go/aiperf/runner"
)

// TestCLICommandHidesSecrets parses real command lines, in every form the
// flag parser accepts, and checks that the recorded command line keeps none
// of the secrets the parser took in.
func TestCLICommandHidesSecrets(t *testing.T) {
	const leak = "sk-LEAK-42"
	for _, args := range [][]string{
		{"-HAuthorization: Bearer " + leak},
		{"-H", "Authorization: Bearer " + leak},
		{"-vHX-Api-Key:" + leak},
		{"-vvH", "Cookie:" + leak},
		{"--header=Authorization:" + leak},
		{"--header", "Proxy-Authorization:" + leak},
		{"--header=", "Authorization:" + leak},
		{"--api-key", leak},
		{"--api-key=" + leak},
		{"--url=http://u:" + leak + "@localhost:8000"},
		{"-uhttp://localhost:8000/?api_key=" + leak},
		{"-u", "u:" + leak + "@localhost:8000"},
		{"--extra-inputs", `{"auth":{"api_key":"` + leak + `"}}`},
		{"--extra-inputs", `{"tools":[{"client_secret":"` + leak + `"}]}`},
		{"--extra-inputs=meta:{\"password\":\"" + leak + "\"}"},
	} {
		cfg, err := parseProfile(append([]string{"-m", "m"}, args...))
		if err != nil {
			t.Errorf("%q: %v", args, err)
			continue
		}
		if strings.Contains(cfg.CLICommand, leak) || !strings.Contains(cfg.CLICommand, secret.Redacted) {
			t.Errorf("%q: cli command %s", args, cfg.CLICommand)
		}
	}
}

// TestShortFlagBundlesRedacted tries each short flag bundled before -H: when
// the parser reads the bundle as a value-less flag then a header, the
// command line must hide the header's secret (internal/secret's list of value-less
// short flags must match this flag set).
func TestShortFlagBundlesRedacted(t *testing.T) {
	const leak = "sk-BUNDLE-7"
	var shorts []rune
	defaults := runner.Defaults()
	var verbose int
	var file string
	_ = profileFlags(&defaults, &verbose, &file).WalkFlags(func(f ff.Flag) error {
		if r, ok := f.GetShortName(); ok && r != 'H' {
			shorts = append(shorts, r)
		}
		return nil
	})
	if len(shorts) == 0 {
		t.Fatal("no short flags")
	}
	bundles := 0
	for _, r := range shorts {
		arg := "-" + string(r) + "HAuthorization:" + leak
		cfg, err := parseProfile([]string{"-m", "m", arg})
		if err != nil || !slices.Contains(cfg.Headers, "Authorization:"+leak) {
			continue // -r takes a value: the bundle is no header
		}
		bundles++
		if strings.Contains(cfg.CLICommand, leak) {
			t.Errorf("%s: cli command %s", arg, cfg.CLICommand)
		}
	}
	if bundles == 0 {
		t.Fatal("no short flag bundles with -H: -v should be one")
	}
}
