package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// SeqPair is one ISL/OSL pair of a sequence-length distribution: token
// lengths with optional standard deviations, and its weight in percent.
type SeqPair struct {
	ISL       int     // input length in tokens, > 0
	ISLStddev float64 // >= 0
	OSL       int     // output length in tokens, > 0
	OSLStddev float64 // >= 0
	Prob      float64 // percent, in [0, 100]
}

// SeqDist is a --seq-dist mixture of ISL/OSL pairs (§4.4). The zero value
// has no pairs and must not be sampled.
type SeqDist struct {
	Pairs []SeqPair
}

// seqDistTolerance is how far from 100 the percentages may sum: AIPerf
// checks np.isclose(total, 100, rtol=1e-6, atol=1e-6), that is
// |total − 100| <= 1e-6 + 1e-6·100.
const seqDistTolerance = 1e-6 + 1e-6*100

// ParseSeqDist parses a --seq-dist value in any of its three syntaxes:
//
//	semicolon  "256,128:60;512|20,256|10:40"   (ISL[|sd],OSL[|sd]:P; …)
//	bracket    "[(256,128):60,(512|20,256|10):40]"
//	JSON       {"pairs":[{"isl":256,"isl_stddev":0,"osl":128,"osl_stddev":0,"prob":60}, …]}
//
// Lengths are positive whole numbers, standard deviations non-negative
// decimals and probabilities percentages in [0, 100] that sum to 100 within
// 1.01e-4 (AIPerf's np.isclose tolerance). Whitespace around the separators
// is allowed. The error names the offending pair or key. Unlike AIPerf, the
// bracket form must consist of pairs only (AIPerf skips text between them),
// and the JSON form rejects unknown keys and fractional lengths (AIPerf
// ignores the former and truncates the latter).
func ParseSeqDist(s string) (SeqDist, error) {
	s = strings.TrimSpace(s)
	var pairs []SeqPair
	var err error
	switch {
	case s == "":
		return SeqDist{}, errors.New("seq-dist: empty distribution")
	case strings.HasPrefix(s, "{"):
		pairs, err = parseSeqJSON(s)
	case strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]"):
		pairs, err = parseSeqBracket(s[1 : len(s)-1])
	default:
		pairs, err = parseSeqSemicolon(s)
	}
	if err != nil {
		return SeqDist{}, fmt.Errorf("seq-dist %q: %w", s, err)
	}
	total := 0.0
	for _, p := range pairs {
		total += p.Prob
	}
	if math.Abs(total-100) > seqDistTolerance {
		return SeqDist{}, fmt.Errorf("seq-dist %q: probabilities sum to %g, want 100 (they are percentages)", s, total)
	}
	return SeqDist{Pairs: pairs}, nil
}

func parseSeqSemicolon(s string) ([]SeqPair, error) {
	var pairs []SeqPair
	for part := range strings.SplitSeq(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue // AIPerf skips empty parts ("a;;b", a trailing ';')
		}
		lengths, prob, ok := strings.Cut(part, ":")
		if !ok {
			return nil, fmt.Errorf("pair %q: want ISL[|SD],OSL[|SD]:PROB", part)
		}
		p, err := parseSeqPair(lengths, prob)
		if err != nil {
			return nil, fmt.Errorf("pair %q: %w", part, err)
		}
		pairs = append(pairs, p)
	}
	if len(pairs) == 0 {
		return nil, errors.New("no pairs")
	}
	return pairs, nil
}

// parseSeqBracket parses the inside of "[(ISL,OSL):P,(ISL,OSL):P]".
func parseSeqBracket(s string) ([]SeqPair, error) {
	rest := strings.TrimSpace(s)
	if rest == "" {
		return nil, errors.New("no pairs")
	}
	var pairs []SeqPair
	for {
		if !strings.HasPrefix(rest, "(") {
			return nil, fmt.Errorf("at %q: want (ISL[|SD],OSL[|SD]):PROB", rest)
		}
		closing := strings.IndexByte(rest, ')')
		if closing < 0 {
			return nil, fmt.Errorf("at %q: missing ')'", rest)
		}
		lengths := rest[1:closing]
		after, ok := strings.CutPrefix(strings.TrimSpace(rest[closing+1:]), ":")
		if !ok {
			return nil, fmt.Errorf("pair %q: want ':PROB' after ')'", rest[:closing+1])
		}
		prob, next, more := strings.Cut(after, ",")
		p, err := parseSeqPair(lengths, prob)
		if err != nil {
			return nil, fmt.Errorf("pair %q: %w", rest[:closing+1]+":"+strings.TrimSpace(prob), err)
		}
		pairs = append(pairs, p)
		if !more {
			return pairs, nil
		}
		if rest = strings.TrimSpace(next); rest == "" {
			return nil, errors.New("trailing ','")
		}
	}
}

// parseSeqPair parses "ISL[|SD],OSL[|SD]" and "PROB".
func parseSeqPair(lengths, prob string) (SeqPair, error) {
	in, out, ok := strings.Cut(lengths, ",")
	if !ok {
		return SeqPair{}, errors.New("want ISL[|SD],OSL[|SD] before ':'")
	}
	var p SeqPair
	var err error
	if p.ISL, p.ISLStddev, err = parseSeqLength(in); err != nil {
		return SeqPair{}, fmt.Errorf("isl: %w", err)
	}
	if p.OSL, p.OSLStddev, err = parseSeqLength(out); err != nil {
		return SeqPair{}, fmt.Errorf("osl: %w", err)
	}
	if p.Prob, err = parseSeqDecimal(prob); err != nil {
		return SeqPair{}, fmt.Errorf("probability: %w", err)
	}
	return p, checkSeqPair(p)
}

// parseSeqLength parses "N" or "N|SD".
func parseSeqLength(s string) (int, float64, error) {
	mean, sd, hasSD := strings.Cut(strings.TrimSpace(s), "|")
	mean = strings.TrimSpace(mean)
	if mean == "" || strings.Trim(mean, "0123456789") != "" {
		return 0, 0, fmt.Errorf("%q is not a whole number", mean)
	}
	n, err := strconv.Atoi(mean)
	if err != nil {
		return 0, 0, fmt.Errorf("%q: %w", mean, err)
	}
	if !hasSD {
		return n, 0, nil
	}
	stddev, err := parseSeqDecimal(sd)
	if err != nil {
		return 0, 0, fmt.Errorf("stddev: %w", err)
	}
	return n, stddev, nil
}

// parseSeqDecimal parses an unsigned decimal: "12", "12.5" or ".5", as
// AIPerf's pattern (no sign, no exponent).
func parseSeqDecimal(s string) (float64, error) {
	s = strings.TrimSpace(s)
	whole, frac, hasDot := strings.Cut(s, ".")
	digits := func(d string) bool { return strings.Trim(d, "0123456789") == "" }
	if s == "" || !digits(whole) || !digits(frac) || (hasDot && frac == "") || (whole == "" && !hasDot) {
		return 0, fmt.Errorf("%q is not an unsigned decimal", s)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%q: %w", s, err)
	}
	return v, nil
}

func checkSeqPair(p SeqPair) error {
	switch {
	case p.ISL <= 0:
		return fmt.Errorf("isl %d: must be > 0", p.ISL)
	case p.OSL <= 0:
		return fmt.Errorf("osl %d: must be > 0", p.OSL)
	case p.ISLStddev < 0 || math.IsNaN(p.ISLStddev) || math.IsInf(p.ISLStddev, 0):
		return fmt.Errorf("isl stddev %g: must be a number >= 0", p.ISLStddev)
	case p.OSLStddev < 0 || math.IsNaN(p.OSLStddev) || math.IsInf(p.OSLStddev, 0):
		return fmt.Errorf("osl stddev %g: must be a number >= 0", p.OSLStddev)
	case !(p.Prob >= 0 && p.Prob <= 100):
		return fmt.Errorf("probability %g: must be in [0, 100]", p.Prob)
	}
	return nil
}

// seqJSONPair is one element of the JSON form; pointers tell absent keys.
type seqJSONPair struct {
	ISL       *float64 `json:"isl"`
	ISLStddev *float64 `json:"isl_stddev"`
	OSL       *float64 `json:"osl"`
	OSLStddev *float64 `json:"osl_stddev"`
	Prob      *float64 `json:"prob"`
}

func parseSeqJSON(s string) ([]SeqPair, error) {
	var doc struct {
		Pairs *[]json.RawMessage `json:"pairs"`
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("json: %w", err)
	}
	if dec.More() {
		return nil, errors.New("json: text after the object")
	}
	if doc.Pairs == nil {
		return nil, errors.New(`json: missing key "pairs"`)
	}
	if len(*doc.Pairs) == 0 {
		return nil, errors.New(`json: "pairs" is empty`)
	}
	pairs := make([]SeqPair, 0, len(*doc.Pairs))
	for i, raw := range *doc.Pairs {
		var jp seqJSONPair
		d := json.NewDecoder(bytes.NewReader(raw))
		d.DisallowUnknownFields()
		if err := d.Decode(&jp); err != nil {
			return nil, fmt.Errorf("pair %d: %w", i, err)
		}
		p, err := jp.pair()
		if err != nil {
			return nil, fmt.Errorf("pair %d: %w", i, err)
		}
		pairs = append(pairs, p)
	}
	return pairs, nil
}

func (jp *seqJSONPair) pair() (SeqPair, error) {
	var missing []string
	for _, k := range []struct {
		name string
		v    *float64
	}{{"isl", jp.ISL}, {"osl", jp.OSL}, {"prob", jp.Prob}} {
		if k.v == nil {
			missing = append(missing, k.name)
		}
	}
	if len(missing) > 0 {
		return SeqPair{}, fmt.Errorf("missing key(s) %s", strings.Join(missing, ", "))
	}
	whole := func(name string, v float64) (int, error) {
		if v != math.Trunc(v) || math.Abs(v) > 1<<31 {
			return 0, fmt.Errorf("%s %g: must be a whole number", name, v)
		}
		return int(v), nil
	}
	p := SeqPair{Prob: *jp.Prob}
	var err error
	if p.ISL, err = whole("isl", *jp.ISL); err != nil {
		return SeqPair{}, err
	}
	if p.OSL, err = whole("osl", *jp.OSL); err != nil {
		return SeqPair{}, err
	}
	if jp.ISLStddev != nil {
		p.ISLStddev = *jp.ISLStddev
	}
	if jp.OSLStddev != nil {
		p.OSLStddev = *jp.OSLStddev
	}
	return p, checkSeqPair(p)
}

// Sample draws one pair from rng as AIPerf does: u = rng.Float64(), the
// first pair whose cumulative probability (percent/100, summed in order)
// exceeds u (the last pair if rounding leaves u above them all), then ISL
// and OSL each by SamplePositiveNormalInt when that stddev is > 0 (one draw
// each, ISL first), clamped to at least 1. It panics on a SeqDist with no
// pairs.
func (d SeqDist) Sample(rng *rand.Rand) (isl, osl int) {
	u := rng.Float64()
	idx := len(d.Pairs) - 1
	cum := 0.0
	for i, p := range d.Pairs {
		cum += p.Prob / 100
		if cum > u {
			idx = i
			break
		}
	}
	p := d.Pairs[idx]
	isl, osl = p.ISL, p.OSL
	if p.ISLStddev > 0 {
		isl = SamplePositiveNormalInt(rng, float64(p.ISL), p.ISLStddev)
	}
	if p.OSLStddev > 0 {
		osl = SamplePositiveNormalInt(rng, float64(p.OSL), p.OSLStddev)
	}
	return max(isl, 1), max(osl, 1)
}

// String renders d in the semicolon syntax that ParseSeqDist reads back,
// e.g. "256,128:60;512|20,256|10:40".
func (d SeqDist) String() string {
	var b strings.Builder
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	for i, p := range d.Pairs {
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteString(strconv.Itoa(p.ISL))
		if p.ISLStddev > 0 {
			b.WriteString("|" + num(p.ISLStddev))
		}
		b.WriteString("," + strconv.Itoa(p.OSL))
		if p.OSLStddev > 0 {
			b.WriteString("|" + num(p.OSLStddev))
		}
		b.WriteString(":" + num(p.Prob))
	}
	return b.String()
}
