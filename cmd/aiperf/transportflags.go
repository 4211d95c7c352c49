package main

import (
	"errors"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/runner"
)

// urlList is --url (-u, AIPERF_URL): repeatable and comma-separated, as
// AIPerf's consume-multiple list (`--url a --url b`, `--url a,b`,
// `--url a b`). Its first use replaces the default; cfg.URL is kept equal
// to the first URL and cfg.URLs holds them all.
type urlList struct {
	cfg *runner.Config
	set *bool // the default was replaced
}

func (v urlList) String() string {
	if v.cfg == nil {
		return ""
	}
	return strings.Join(v.cfg.BaseURLs(), ",")
}

func (v urlList) Set(s string) error {
	var items []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			items = append(items, part)
		}
	}
	if len(items) == 0 {
		return errors.New("no URL given: use e.g. --url http://localhost:8000")
	}
	if !*v.set {
		v.cfg.URLs, *v.set = nil, true
	}
	v.cfg.URLs = append(v.cfg.URLs, items...)
	v.cfg.URL = v.cfg.URLs[0]
	return nil
}

// sslVerify is --http-ssl-verify, the flag behind AIPerf's environment
// variable AIPERF_HTTP_SSL_VERIFY: false skips certificate verification,
// as --insecure does. It sets *insecure to the opposite of its value.
type sslVerify struct{ insecure *bool }

func (v sslVerify) String() string   { return strconv.FormatBool(v.insecure == nil || !*v.insecure) }
func (v sslVerify) IsBoolFlag() bool { return true }

func (v sslVerify) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	*v.insecure = !b
	return nil
}
