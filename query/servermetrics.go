package query

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

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
// {"type", "samples": [...]} (AIPerf's full record), whose type (when
// not null or "") is then the series' type; else the type comes from
// types (the run's server_metrics_export.json), else from the sample:
// histogram with buckets, summary with quantiles, counter for a name
// ending in _total, gauge otherwise.
//
// timestamp_ns is required; other keys may be missing or null. Labels
// must be strings; they are stored as a JSON object in the order given
// ({} without labels). Bucket bounds and quantiles are numbers in strings
// ("+Inf"). NaN and infinite values are NULL. Of a key given twice, the
// last value counts (a duplicated label or bucket keeps its first
// place). The credentials of endpoint_url are hidden (secret.URL). A
// decoder is not safe for concurrent use.
type serverDecoder struct {
	s jsonScanner
	// types maps metric names to their type index (shared, read-only).
	types map[string]uint8
	// labels are the labels of the sample being read, their names and
	// values in arena.
	labels []labelPair
	arena  []byte
	// urls hides the credentials of endpoint_url.
	urls urlRedactor
}

// labelPair is a label's name and value in serverDecoder.arena.
type labelPair struct{ name, value span }

// decodeLine implements lineDecoder.
func (d *serverDecoder) decodeLine(b *serverBatch, line []byte) error {
	s := &d.s
	if blank, err := s.objectLine(line); blank || err != nil {
		return err
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
			endpoint = addSpan(&b.text, d.urls.redact(v))
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
					if err == nil && !null && len(t) > 0 { // "" says nothing
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

// errLabelValue reports a label whose value is not a string.
var errLabelValue = errors.New("labels: want string values")

// readLabels reads a labels object (or null) into d.labels, the values
// of repeated names replacing the earlier ones in place.
func (d *serverDecoder) readLabels() error {
	s := &d.s
	d.labels, d.arena = d.labels[:0], d.arena[:0]
	return members(s, func(key []byte) error {
		// The key may alias the scratch buffer that the value reuses.
		pair := labelPair{name: addSpan(&d.arena, key)}
		if s.peek() != '"' {
			return errLabelValue
		}
		v, err := s.str()
		if err != nil {
			return err
		}
		pair.value = addSpan(&d.arena, v)
		for i := range d.labels {
			if string(d.text(d.labels[i].name)) == string(d.text(pair.name)) {
				d.labels[i].value = pair.value
				return nil
			}
		}
		d.labels = append(d.labels, pair)
		return nil
	})
}

func (d *serverDecoder) text(sp span) []byte { return d.arena[sp.off : sp.off+sp.n] }

// appendLabels writes d.labels into b.text as a JSON object.
func (d *serverDecoder) appendLabels(b *serverBatch) span {
	off := len(b.text)
	b.text = append(b.text, '{')
	for i, l := range d.labels {
		if i > 0 {
			b.text = append(b.text, ',')
		}
		b.text = appendYYString(b.text, d.text(l.name))
		b.text = append(b.text, ':')
		b.text = appendYYString(b.text, d.text(l.value))
	}
	b.text = append(b.text, '}')
	return span{int32(off), int32(len(b.text) - off)}
}

// readPairs reads an object of number-valued keys ({"0.1": 3, "+Inf": 5})
// into b.pairs; a repeated key keeps its first place and its last value.
func (d *serverDecoder) readPairs(b *serverBatch) (sp span, null bool, err error) {
	s := &d.s
	if s.peek() == 'n' {
		return span{}, true, s.literal("null")
	}
	off := len(b.pairs)
	err = members(s, func(key []byte) error {
		k, err := strconv.ParseFloat(strings.TrimSpace(string(key)), 64)
		if err != nil || math.IsNaN(k) {
			return fmt.Errorf("bound %q: not a number", key)
		}
		v, null, err := s.floatValue()
		if err != nil {
			return err
		}
		if null {
			v = math.NaN()
		}
		for i := off; i < len(b.pairs); i += 2 {
			if b.pairs[i] == k {
				b.pairs[i+1] = v
				return nil
			}
		}
		b.pairs = append(b.pairs, k, v)
		return nil
	})
	if err != nil {
		return span{}, false, err
	}
	return span{int32(off), int32((len(b.pairs) - off) / 2)}, false, nil
}
