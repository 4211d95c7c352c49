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
