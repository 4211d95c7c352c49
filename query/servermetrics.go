package query

import (
	"fmt"
	"strings"
)

// ServerMetricTypes are the values of server_metrics.type.
var ServerMetricTypes = []string{"gauge", "counter", "histogram", "summary", "untyped"}

// Indexes of ServerMetricTypes; typeDerive marks a type still to derive.
const (
	typeGauge uint8 = iota
	typeCounter
	typeHistogram
	typeSummary
	typeUntyped
	typeDerive uint8 = 255
)

// parseMetricType maps a type as a record or an export names it to its
// index: Prometheus' and AIPerf's names, "unknown" for untyped; other
// names (OpenMetrics' info, stateset, gaugehistogram) are untyped.
func parseMetricType(t string) uint8 {
	switch strings.ToLower(t) {
	case "gauge":
		return typeGauge
	case "counter":
		return typeCounter
	case "histogram":
		return typeHistogram
	case "summary":
		return typeSummary
	}
	return typeUntyped
}

// Columns of the server rows the telemetry table function yields (see
// serverTableColumns); a row's null bit for column c is 1<<c.
const (
	srvColTimestamp = iota
	srvColLatency
	srvColEndpoint
	srvColMetric
	srvColType
	srvColLabels
	srvColValue
	srvColSum
	srvColCount
	srvColBuckets
	srvColQuantiles
	numServerCols
)

// serverAllNull has the null bit of every nullable server row column set.
const serverAllNull = uint64(1)<<srvColTimestamp | 1<<srvColLatency | 1<<srvColEndpoint |
	1<<srvColValue | 1<<srvColSum | 1<<srvColCount | 1<<srvColBuckets | 1<<srvColQuantiles

// serverRow is one sample of one series in one scrape.
type serverRow struct {
	timestampNS, latencyNS   int64
	endpoint, metric, labels span // in serverBatch.text
	typ                      uint8
	value, sum, count        float64
	// buckets and quantiles span pairs of serverBatch.pairs: off is the
	// index of the first key, n the number of pairs.
	buckets, quantiles span
	null               uint64
}

// serverBatch holds decoded server metric rows; their text is in text and
// their buckets and quantiles, as key, value, key, value…, in pairs (a
// NaN value is NULL).
type serverBatch struct {
	rows  []serverRow
	text  []byte
	pairs []float64
	// scratch holds the texts of pairTexts.
	scratch []byte
}

func (b *serverBatch) str(sp span) []byte { return b.text[sp.off : sp.off+sp.n] }

// serverDecoder decodes server_metrics_export.jsonl lines, AIPerf's raw
// per-scrape records: {"endpoint_url", "timestamp_ns",
// "endpoint_latency_ns", "metrics": {name: [sample, …]}, …}, into one row
// per sample. A sample is {"labels"?: {name: value}, "value"?,
// "buckets"? (or "histogram"): {le: count}, "summary"? (or "quantiles"):
// {q: value}, "sum"?, "count"?}. A family may also be an object
// {"type", "samples": [...]} (AIPerf's full record), whose type is then
// the series' type; else the type comes from types (the run's
// server_metrics_export.json), else from the sample: histogram with
// buckets, summary with quantiles, counter for a name ending in _total,
// gauge otherwise.
//
// timestamp_ns is required; other keys may be missing or null. Labels
// must be strings; they are stored as a JSON object in the order given
// ({} without labels). Bucket bounds and quantiles are numbers in strings
// ("+Inf"). NaN and infinite values are NULL. Of a key given twice, the
// last value counts (a duplicated label or bucket keeps its first
// place). A decoder is not safe for concurrent use.
type serverDecoder struct {
	s jsonScanner
	// types maps metric names to their type index (shared, read-only).
	types map[string]uint8
	// labels are the labels of the sample being read, their names and
	// values in arena.
	labels []labelPair
	arena  []byte
}

// labelPair is a label's name and value in serverDecoder.arena.
type labelPair struct{ name, value span }

// decodeLine implements lineDecoder.
func (d *serverDecoder) decodeLine(b *serverBatch, line []byte) error {
	s := &d.s
	s.reset(line)
	if s.blank() {
		return nil
	}
	if s.peek() != '{' {
		return s.unexpected("a JSON object")
	}
	start := len(b.rows)
	var ts, latency int64
	var endpoint span
	null := uint64(1)<<srvColTimestamp | 1<<srvColLatency | 1<<srvColEndpoint
	err := members(s, func(key []byte) error {
		var isNull bool
		var err error
		switch string(key) {
		case "timestamp_ns":
			ts, isNull, err = s.intValue(64)
			setNull(&null, srvColTimestamp, isNull)
		case "endpoint_latency_ns":
			latency, isNull, err = s.intValue(64)
			setNull(&null, srvColLatency, isNull)
		case "endpoint_url":
			var v []byte
			v, isNull, err = s.textValue()
			endpoint = addSpan(&b.text, v)
			setNull(&null, srvColEndpoint, isNull)
		case "metrics":
			b.rows = b.rows[:start] // the last "metrics" counts
			err = d.metrics(b)
		default:
			err = s.skip(0)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := s.end(); err != nil {
		return err
	}
	if null&(1<<srvColTimestamp) != 0 {
		return errNoTimestamp
	}
	const lineBits = 1<<srvColTimestamp | 1<<srvColLatency | 1<<srvColEndpoint
	for i := start; i < len(b.rows); i++ {
		r := &b.rows[i]
		r.timestampNS, r.latencyNS, r.endpoint = ts, latency, endpoint
		r.null = r.null&^lineBits | null
	}
	return nil
}

// metrics reads the metrics object into rows.
func (d *serverDecoder) metrics(b *serverBatch) error {
	s := &d.s
	return members(s, func(key []byte) error {
		name := addSpan(&b.text, key)
		start := len(b.rows)
		famType := typeDerive
		var err error
		switch s.peek() {
		case '[':
			err = d.samples(b, name)
		case '{': // {"type": …, "description": …, "samples": […]}
			err = members(s, func(k []byte) error {
				switch string(k) {
				case "type":
					t, null, err := s.textValue()
					if err == nil && !null {
						famType = parseMetricType(string(t))
					}
					return err
				case "samples":
					if s.peek() == 'n' {
						return s.literal("null")
					}
					b.rows = b.rows[:start] // the last "samples" counts
					return d.samples(b, name)
				}
				return s.skip(0)
			})
		case 'n':
			err = s.literal("null")
		default:
			err = s.unexpected("a list of samples")
		}
		if err != nil {
			return fmt.Errorf("%s: %w", b.str(name), err)
		}
		known, isKnown := d.types[string(b.str(name))]
		for i := start; i < len(b.rows); i++ {
			r := &b.rows[i]
			switch {
			case famType != typeDerive:
				r.typ = famType
			case isKnown:
				r.typ = known
			default:
				r.typ = deriveType(b.str(name), r)
			}
		}
		return nil
	})
}

// deriveType is the type of a sample whose record and run do not say.
func deriveType(name []byte, r *serverRow) uint8 {
	switch {
	case r.null&(1<<srvColBuckets) == 0:
		return typeHistogram
	case r.null&(1<<srvColQuantiles) == 0:
		return typeSummary
	case strings.HasSuffix(string(name), "_total"):
		return typeCounter
	}
	return typeGauge
}

// samples reads a list of samples, one row each.
func (d *serverDecoder) samples(b *serverBatch, name span) error {
	s := &d.s
	if s.peek() != '[' {
		return s.unexpected("a list of samples")
	}
	s.pos++
	for first := true; ; first = false {
		ok, err := s.arrayNext(first)
		if err != nil || !ok {
			return err
		}
		if s.peek() == 'n' {
			if err := s.literal("null"); err != nil {
				return err
			}
			continue
		}
		if err := d.sample(b, name); err != nil {
			return err
		}
	}
}

// sample reads one sample object into a new row.
func (d *serverDecoder) sample(b *serverBatch, name span) error {
	s := &d.s
	if s.peek() != '{' {
		return s.unexpected("a sample object")
	}
	r := serverRow{metric: name, null: serverAllNull}
	d.labels, d.arena = d.labels[:0], d.arena[:0]
	err := members(s, func(key []byte) error {
		var null bool
		var err error
		switch string(key) {
		case "labels":
			err = d.readLabels()
		case "value":
			r.value, null, err = s.floatValue()
			setNull(&r.null, srvColValue, null)
		case "sum":
			r.sum, null, err = s.floatValue()
			setNull(&r.null, srvColSum, null)
		case "count":
			r.count, null, err = s.floatValue()
			setNull(&r.null, srvColCount, null)
		case "buckets", "histogram":
			r.buckets, null, err = d.readPairs(b)
			setNull(&r.null, srvColBuckets, null)
		case "summary", "quantiles":
			r.quantiles, null, err = d.readPairs(b)
			setNull(&r.null, srvColQuantiles, null)
		default:
			err = s.skip(0)
		}
		return err
	})
	if err != nil {
		return err
	}
	r.labels = d.appendLabels(b)
	b.rows = append(b.rows, r)
	return nil
}
