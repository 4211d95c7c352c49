package verdict

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/aiperf-go/aiperf/metrics"
)

// FileName is the name of the verdict's object in a run's store.
const FileName = "verdict.json"

// SchemaVersion is the version of verdict.json's layout.
const SchemaVersion = "1"

// Check is one threshold and what the run gave it.
type Check struct {
	Threshold
	// Actual is the run's value of Metric.Stat in Unit; nil when the run
	// did not produce the metric.
	Actual *float64 `json:"actual"`
	Pass   bool     `json:"pass"`
	// Reason says why a check failed without a value to compare.
	Reason string `json:"reason,omitempty"`
}

// Verdict is the outcome of a run's thresholds: it passes when every check
// does. It is what verdict.json holds.
type Verdict struct {
	SchemaVersion string `json:"schema_version"`
	// RunID and Location identify the run and where its results are.
	RunID    string `json:"run_id,omitempty"`
	Location string `json:"location,omitempty"`
	// RunStatus is the run's manifest status (complete, interrupted,
	// failed): the verdict of an interrupted or failed run is kept, but the
	// run's own exit status wins over it.
	RunStatus string  `json:"run_status,omitempty"`
	Pass      bool    `json:"pass"`
	Passed    int     `json:"passed"`
	Failed    int     `json:"failed"`
	Checks    []Check `json:"checks"`
}

// Evaluate checks every threshold against the run's summary s (nil: the
// run produced none, and every check fails). A metric missing from the
// summary fails with a reason, never passes silently, except the request
// and error counts, which the summary leaves out when they are zero and
// which are taken from its Valid and Failed counts.
func Evaluate(s *metrics.Summary, ts []Threshold) *Verdict {
	v := &Verdict{SchemaVersion: SchemaVersion, Checks: make([]Check, 0, len(ts))}
	for _, t := range ts {
		c := Check{Threshold: t}
		switch val, reason := lookup(s, t); {
		case reason != "":
			c.Reason = reason
		case math.IsNaN(val):
			c.Reason = "the run's value is not a number"
		default:
			c.Actual = &val
			c.Pass = t.Op.Holds(val, t.Value)
		}
		if c.Pass {
			v.Passed++
		} else {
			v.Failed++
		}
		v.Checks = append(v.Checks, c)
	}
	v.Pass = v.Failed == 0
	return v
}

// lookup returns the threshold's statistic in s, or why there is none.
func lookup(s *metrics.Summary, t Threshold) (float64, string) {
	if s == nil {
		return 0, "the run produced no summary"
	}
	if r := s.Get(t.Metric); r != nil {
		if r.Scalar && t.Stat != "avg" {
			return 0, fmt.Sprintf("%s is a single value and has no %s", t.Metric, t.Stat)
		}
		return t.actual(r), ""
	}
	switch t.Metric {
	case "error_request_count":
		return float64(s.Failed), ""
	case "request_count":
		return float64(s.Valid), ""
	}
	return 0, missingReason(t.Metric)
}

// missingReason explains why a summary lacks a metric: the setting it
// needs, or no request that gave it a value.
func missingReason(tag string) string {
	m, _ := metrics.Lookup(tag)
	need := ""
	switch f := m.Flags; {
	case f.Has(metrics.FlagStreamingOnly):
		need = "; it needs --streaming and an endpoint that streams tokens"
	case f.Has(metrics.FlagGoodput):
		need = "; it needs --goodput"
	case f.Has(metrics.FlagHTTPTraceOnly):
		need = "; it needs --export-http-trace or --show-trace-timing"
	case f.Has(metrics.FlagTokenizesInputOnly), f.Has(metrics.FlagProducesTokensOnly):
		need = "; the endpoint type must produce or take tokens"
	case f.Has(metrics.FlagErrorOnly):
		need = "; no request failed"
	}
	return "the run did not produce " + tag + need
}

// JSON returns verdict.json: the verdict indented by two spaces, with a
// trailing newline.
func (v *Verdict) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("verdict json: %w", err)
	}
	return append(b, '\n'), nil
}
