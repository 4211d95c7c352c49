package query

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// errLabelValue reports a label whose value is not a string.
var errLabelValue = errors.New("labels: want string values")

// readLabels reads a labels object (or null) into d.labels, the values
// of repeated names replacing the earlier ones in place.
func (d *serverDecoder) readLabels() error {
	s := &d.s
	d.labels, d.arena = d.labels[:0], d.arena[:0]
	if ok, err := s.objectOrNull(); !ok || err != nil {
		return err
	}
	for first := true; ; first = false {
		key, ok, err := s.nextKey(first)
		if err != nil || !ok {
			return err
		}
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
		replaced := false
		for i := range d.labels {
			if string(d.text(d.labels[i].name)) == string(d.text(pair.name)) {
				d.labels[i].value, replaced = pair.value, true
			}
		}
		if !replaced {
			d.labels = append(d.labels, pair)
		}
	}
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
func (d *serverDecoder) readPairs(b *serverBatch) (span, bool, error) {
	s := &d.s
	if ok, err := s.objectOrNull(); !ok || err != nil {
		return span{}, true, err
	}
	off := len(b.pairs)
	for first := true; ; first = false {
		key, ok, err := s.nextKey(first)
		if err != nil {
			return span{}, false, err
		}
		if !ok {
			break
		}
		k, err := strconv.ParseFloat(strings.TrimSpace(string(key)), 64)
		if err != nil || math.IsNaN(k) {
			return span{}, false, fmt.Errorf("bound %q: not a number", key)
		}
		v, null, err := s.floatValue()
		if err != nil {
			return span{}, false, err
		}
		if null {
			v = math.NaN()
		}
		dup := false
		for i := off; i < len(b.pairs); i += 2 {
			if b.pairs[i] == k {
				b.pairs[i+1], dup = v, true
			}
		}
		if !dup {
			b.pairs = append(b.pairs, k, v)
		}
	}
	return span{int32(off), int32((len(b.pairs) - off) / 2)}, false, nil
}
