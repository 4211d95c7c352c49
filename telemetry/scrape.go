package telemetry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/aiperf-go/aiperf/internal/secret"
)

// maxExposition bounds one scrape's body; a larger answer is an error, not
// a memory blow-up.
const maxExposition = 64 << 20

// acceptHeader asks for the classic text format, which every exporter
// serves; OpenMetrics answers are read too.
const acceptHeader = "text/plain;version=0.0.4;q=0.9,application/openmetrics-text;version=1.0.0;q=0.5,*/*;q=0.1"

// Scraper fetches one Prometheus endpoint and parses its exposition.
type Scraper struct {
	// URL is the endpoint, e.g. http://localhost:8000/metrics.
	URL string
	// Client sends the request; nil means http.DefaultClient.
	Client *http.Client
}

// Scrape fetches and parses the endpoint once. A non-200 answer, a body
// that is not an exposition, or one over 64 MiB is an error; its text
// names the URL with any credentials redacted.
func (s *Scraper) Scrape(ctx context.Context) (map[string]*dto.MetricFamily, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL, nil)
	if err != nil {
		return nil, urlError(s.URL, err)
	}
	req.Header.Set("Accept", acceptHeader)
	client := s.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, urlError(s.URL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		return nil, fmt.Errorf("%s: HTTP %s", secret.URL(s.URL), resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxExposition+1))
	if err != nil {
		return nil, urlError(s.URL, fmt.Errorf("reading: %w", err))
	}
	if len(body) > maxExposition {
		return nil, fmt.Errorf("%s: exposition larger than %d bytes", secret.URL(s.URL), maxExposition)
	}
	fams, err := ParseExposition(body)
	if err != nil {
		return nil, urlError(s.URL, err)
	}
	return fams, nil
}

// ParseExposition parses Prometheus text or OpenMetrics text (UTF-8 metric
// names allowed). OpenMetrics-only syntax (# EOF, # UNIT, exemplars,
// created timestamps) is removed first, and counters declared without
// their _total suffix are renamed to it, which is how the samples are
// named. Metric families ending in _created are dropped, as AIPerf does.
// What client libraries write takes a fast path (see fastParse) that builds
// the same families as expfmt's parser; the families' strings then share
// one buffer, so keep copies, not the strings, of anything held long.
func ParseExposition(body []byte) (map[string]*dto.MetricFamily, error) {
	if isOpenMetrics(body) {
		body = openMetricsToText(body)
	}
	fams, ok := fastParse(body)
	if !ok {
		p := expfmt.NewTextParser(model.UTF8Validation)
		var err error
		if fams, err = p.TextToMetricFamilies(bytes.NewReader(body)); err != nil {
			return nil, fmt.Errorf("parse exposition: %w", err)
		}
	}
	for name := range fams {
		if strings.HasSuffix(name, "_created") {
			delete(fams, name)
		}
	}
	return fams, nil
}

// isOpenMetrics reports whether body looks like OpenMetrics (it ends with
// the mandatory "# EOF" line).
func isOpenMetrics(body []byte) bool {
	t := bytes.TrimRight(body, " \t\r\n")
	return bytes.HasSuffix(t, []byte("# EOF"))
}

// openMetricsToText rewrites the OpenMetrics lines the text parser does
// not take: it drops # EOF, # UNIT and _created samples, strips exemplars
// (" # {…} v"), reads unknown, info, stateset and gaugehistogram families
// as untyped, and renames a counter family to its samples' _total name.
func openMetricsToText(body []byte) []byte {
	lines := strings.Split(string(body), "\n")
	counters := map[string]bool{}
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) == 4 && f[0] == "#" && f[1] == "TYPE" && f[3] == "counter" && !strings.HasSuffix(f[2], "_total") {
			counters[f[2]] = true
		}
	}
	var out bytes.Buffer
	out.Grow(len(body))
	for _, line := range lines {
		f := strings.Fields(line)
		switch {
		case line == "# EOF" || strings.HasPrefix(line, "# UNIT "):
			continue
		case len(f) >= 3 && f[0] == "#" && (f[1] == "TYPE" || f[1] == "HELP"):
			if strings.HasSuffix(f[2], "_created") {
				continue
			}
			if f[1] == "TYPE" && len(f) == 4 && (f[3] == "unknown" || f[3] == "info" || f[3] == "stateset" || f[3] == "gaugehistogram") {
				line = "# TYPE " + f[2] + " untyped"
			}
			if counters[f[2]] {
				line = "# " + f[1] + " " + f[2] + "_total" + strings.TrimPrefix(line, "# "+f[1]+" "+f[2])
			}
		case strings.HasPrefix(line, "#"):
		default:
			line = cutExemplar(line)
			if name, _, _ := strings.Cut(line, "{"); len(f) > 0 && strings.HasSuffix(strings.Fields(name + " x")[0], "_created") {
				continue
			}
		}
		out.WriteString(line)
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// cutExemplar returns a sample line without its OpenMetrics exemplar
// (" # {labels} value [timestamp]"). A "#" inside a quoted label value or
// name is not one.
func cutExemplar(line string) string {
	quoted, escaped := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case escaped:
			escaped = false
		case quoted && c == '\\':
			escaped = true
		case c == '"':
			quoted = !quoted
		case !quoted && c == '#' && i > 0 && line[i-1] == ' ':
			return strings.TrimRight(line[:i], " ")
		}
	}
	return line
}

// MetricsURL normalises a server metrics address as AIPerf does: a scheme
// (http://) and the /metrics path are added when missing. The URL keeps
// its credentials (the scrape needs them); an error's text has them
// redacted.
func MetricsURL(raw string) (string, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return "", errors.New("empty metrics URL")
	}
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("metrics URL %w", urlError(raw, err))
	}
	if u.Host == "" {
		return "", fmt.Errorf("metrics URL %s has no host", secret.URL(raw))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("metrics URL %s: scheme must be http or https", secret.URL(raw))
	}
	if !strings.HasSuffix(u.Path, "/metrics") {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/metrics"
	}
	return u.String(), nil
}

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
	return &Prometheus{scraper: Scraper{URL: url, Client: client}, source: secret.URL(url)}
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
