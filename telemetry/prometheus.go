package telemetry

import (
	"context"
	"net/http"
)

// Prometheus is the collector of one server metrics endpoint: each
// collection is one scrape of its exposition.
type Prometheus struct {
	scraper Scraper
	source  string // the URL, redacted
}

var _ Collector = (*Prometheus)(nil)

// NewPrometheus returns the collector of the endpoint at url (already
// normalised, see MetricsURL), scraped with client (nil:
// http.DefaultClient).
func NewPrometheus(url string, client *http.Client) *Prometheus {
	return &Prometheus{scraper: Scraper{URL: url, Client: client}, source: redactURL(url)}
}

// Source returns the endpoint's URL, credentials redacted (it reaches the
// run's artifacts and logs).
func (p *Prometheus) Source() string { return p.source }

// Kind returns KindServer.
func (p *Prometheus) Kind() Kind { return KindServer }

// Collect scrapes the endpoint once.
func (p *Prometheus) Collect(ctx context.Context) (Sample, error) {
	fams, err := p.scraper.Scrape(ctx)
	if err != nil {
		return Sample{}, err
	}
	return Sample{Server: fams}, nil
}
