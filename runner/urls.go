package runner

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/url"
	"strings"

	"github.com/aiperf-go/aiperf/internal/secret"
	"github.com/aiperf-go/aiperf/record"
)

// URL selection strategies (--url-strategy). AIPerf 0.13 has one.
const urlRoundRobin = "round_robin"

// BaseURLs returns the --url bases of the run in the order given: URLs when
// set, else URL alone. They are not normalized (see NormalizeURL).
func (c *Config) BaseURLs() []string {
	if len(c.URLs) > 0 {
		return c.URLs
	}
	return []string{c.URL}
}

// urlProblems checks every --url base (http or https, with a host; http://
// is added when there is no scheme) and --url-strategy.
func (c *Config) urlProblems() []string {
	var p []string
	for _, raw := range c.BaseURLs() {
		if _, err := NormalizeURL(raw); err != nil {
			p = append(p, fmt.Sprintf("--url %q is not a valid URL (%v): use e.g. --url http://localhost:8000 or --url https://host:8443",
				secret.URL(raw), unwrapURLError(err)))
		}
	}
	if c.URLStrategy != "" && c.URLStrategy != urlRoundRobin {
		p = append(p, fmt.Sprintf("--url-strategy %q is unknown: use round_robin", c.URLStrategy))
	}
	return p
}

// targets returns the normalized bases and the request URL of each (the
// base joined with path), in --url order.
func (c *Config) targets(path string) (bases []*url.URL, targets []string, err error) {
	for _, raw := range c.BaseURLs() {
		base, err := NormalizeURL(raw)
		if err != nil {
			return nil, nil, fmt.Errorf("url %s: %w", secret.URL(raw), unwrapURLError(err))
		}
		bases = append(bases, base)
		targets = append(targets, base.JoinPath(path).String())
	}
	return bases, targets, nil
}

// redactedURLs joins urls with commas, each with its credentials redacted.
func redactedURLs(urls []string) string {
	out := make([]string, len(urls))
	for i, u := range urls {
		out[i] = secret.URL(u)
	}
	return strings.Join(out, ",")
}

// urlIndex is the URL a session numbered num sends every turn to: round
// robin over sessions, which for single-turn runs is round robin over
// requests. It is AIPerf's choice: the URL advances when a session starts,
// and later turns reuse it.
func (r *run) urlIndex(num int) int {
	if r.sender == nil || len(r.sender.urls) < 2 {
		return 0
	}
	return num % len(r.sender.urls)
}

// URLCount is the profiling requests and failed ones sent to one --url,
// written in the summary JSON's "url_summary" of a run with several URLs.
type URLCount struct {
	Index    int    `json:"url_index"`
	URL      string `json:"url"` // the request URL, credentials redacted
	Requests int    `json:"request_count"`
	Errors   int    `json:"error_request_count"`
}

// urlTally counts the profiling records per URL. It has one owner: the
// record consumer.
type urlTally struct {
	counts []URLCount // nil with a single URL: nothing is reported
}

// newURLTally returns a tally for the request URLs targets; it counts
// nothing when there is only one.
func newURLTally(targets []string) *urlTally {
	t := &urlTally{}
	if len(targets) < 2 {
		return t
	}
	t.counts = make([]URLCount, len(targets))
	for i, u := range targets {
		t.counts[i] = URLCount{Index: i, URL: secret.URL(u)}
	}
	return t
}

// add counts rec.
func (t *urlTally) add(rec *record.Record) {
	if rec.URLIndex < 0 || rec.URLIndex >= len(t.counts) {
		return
	}
	c := &t.counts[rec.URLIndex]
	c.Requests++
	if rec.Error != nil {
		c.Errors++
	}
}

// summary returns the counts for the summary JSON, nil (no key) with a
// single URL.
func (t *urlTally) summary() any {
	if t.counts == nil {
		return nil
	}
	return t.counts
}

// consoleLines describe the requests per URL under the console report;
// none with a single URL.
func (t *urlTally) consoleLines() []string {
	if t.counts == nil {
		return nil
	}
	lines := []string{"Requests per URL (--url-strategy round_robin):"}
	for _, c := range t.counts {
		lines = append(lines, fmt.Sprintf("  [%d] %s: %d requests, %d errors", c.Index, c.URL, c.Requests, c.Errors))
	}
	return lines
}

// checkAllReachable runs the readiness check against every base, so that
// any server that cannot be reached, or whose TLS certificate is not
// trusted (https bases, with tc), stops the run before a request is counted.
func checkAllReachable(ctx context.Context, bases []*url.URL, tc *tls.Config) error {
	for _, b := range bases {
		if err := checkReachable(ctx, b.Host, b.Scheme); err != nil {
			return err
		}
		if b.Scheme == "https" {
			if err := checkTLS(ctx, b, tc); err != nil {
				return err
			}
		}
	}
	return nil
}
