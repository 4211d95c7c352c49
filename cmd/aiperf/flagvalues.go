package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/aiperf-go/aiperf/runner/multirun"
)

// secondsValue is a duration given in (fractional) seconds, optionally "inf"
// when infOK, which is stored as a negative duration.
type secondsValue struct {
	d     *time.Duration
	infOK bool
}

func (v secondsValue) String() string {
	if v.d == nil {
		return ""
	}
	if *v.d < 0 {
		return "inf"
	}
	return strconv.FormatFloat(v.d.Seconds(), 'f', -1, 64)
}

func (v secondsValue) Set(s string) error {
	s = strings.TrimSpace(s)
	if v.infOK && strings.EqualFold(s, "inf") {
		*v.d = -1
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		if v.infOK {
			return fmt.Errorf("%q is not a number of seconds or \"inf\"", s)
		}
		return fmt.Errorf("%q is not a number of seconds", s)
	}
	if f < 0 {
		return fmt.Errorf("%q must be >= 0 seconds", s)
	}
	*v.d = time.Duration(f * float64(time.Second))
	return nil
}

// listValue is a repeatable flag whose values may also be comma-separated
// (e.g. --model a,b --model c).
type listValue struct {
	p     *[]string
	split bool
}

func (v listValue) String() string { return strings.Join(*v.p, ",") }

func (v listValue) Set(s string) error {
	if !v.split {
		*v.p = append(*v.p, s)
		return nil
	}
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			*v.p = append(*v.p, part)
		}
	}
	return nil
}

// countBool is -v: a bool flag that may repeat (-vv).
type countBool struct{ n *int }

func (v countBool) String() string   { return strconv.FormatBool(v.n != nil && *v.n > 0) }
func (v countBool) IsBoolFlag() bool { return true }
func (v countBool) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	if b {
		*v.n++
	}
	return nil
}

// seedValue is an optional unsigned seed.
type seedValue struct {
	v   *uint64
	set *bool
}

func (s seedValue) String() string {
	if s.set == nil || !*s.set {
		return ""
	}
	return strconv.FormatUint(*s.v, 10)
}

func (s seedValue) Set(str string) error {
	n, err := strconv.ParseUint(strings.TrimSpace(str), 10, 64)
	if err != nil {
		return fmt.Errorf("%q is not a non-negative integer", str)
	}
	*s.v, *s.set = n, true
	return nil
}

// floatList is a comma-separated or repeated list of numbers; the first use
// replaces the default.
type floatList struct{ p *[]float64 }

func (v floatList) String() string {
	parts := make([]string, len(*v.p))
	for i, f := range *v.p {
		parts[i] = strconv.FormatFloat(f, 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

func (v floatList) Set(s string) error {
	var out []float64
	for _, part := range strings.Split(s, ",") {
		f, err := parseFinite(part)
		if err != nil {
			return err
		}
		out = append(out, f)
	}
	*v.p = out
	return nil
}

// intList is floatList for integers.
type intList struct{ p *[]int }

func (v intList) String() string {
	parts := make([]string, len(*v.p))
	for i, n := range *v.p {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ",")
}

func (v intList) Set(s string) error {
	var out []int
	for _, part := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil {
			return fmt.Errorf("%q is not an integer", part)
		}
		out = append(out, n)
	}
	*v.p = out
	return nil
}

// optFloat is a number flag that records whether it was given.
type optFloat struct {
	v   *float64
	set *bool
}

func (o optFloat) String() string {
	if o.set == nil || !*o.set {
		return ""
	}
	return strconv.FormatFloat(*o.v, 'g', -1, 64)
}

func (o optFloat) Set(s string) error {
	f, err := parseFinite(s)
	if err != nil {
		return err
	}
	*o.v, *o.set = f, true
	return nil
}

// sweepInt is an integer flag that sweeps (--concurrency,
// --prompt-batch-size): one value, or a comma list or range
// start:stop[:step] (see multirun.ParseSweepInts; a range without a step
// is the powers of two). The first value goes to v, the whole list to
// list.
type sweepInt struct {
	v    *int
	list *[]int
}

func (f sweepInt) String() string { return sweepIntString(f.v, f.list) }

func (f sweepInt) Set(s string) error { return setSweepInt(f.v, f.list, s, false) }

// sweepCount is sweepInt for --num-dataset-entries, whose ranges without
// a step are every integer (GenAI-Perf's rule for num_dataset_entries).
type sweepCount struct {
	v    *int
	list *[]int
}

func (f sweepCount) String() string { return sweepIntString(f.v, f.list) }

func (f sweepCount) Set(s string) error { return setSweepInt(f.v, f.list, s, true) }

// sweepIntString shows a sweep flag's list, or its single value.
func sweepIntString(v *int, list *[]int) string {
	if list == nil || len(*list) == 0 {
		if v == nil {
			return ""
		}
		return strconv.Itoa(*v)
	}
	return intList{list}.String()
}

// setSweepInt parses s into list and its first value into v.
func setSweepInt(v *int, list *[]int, s string, linear bool) error {
	vs, err := multirun.ParseSweepInts(s, linear)
	if err != nil {
		return err
	}
	*list, *v = vs, vs[0]
	return nil
}

// sweepFloat is --request-rate: one number, or a comma list whose items
// may be integer ranges start:stop[:step] (as sweepInt's).
type sweepFloat struct {
	v    *float64
	list *[]float64
}

func (f sweepFloat) String() string { return floatList{f.list}.String() }

func (f sweepFloat) Set(s string) error {
	var out []float64
	for _, part := range strings.Split(s, ",") {
		if strings.Contains(part, ":") {
			vs, err := multirun.ParseSweepInts(part, false)
			if err != nil {
				return err
			}
			for _, v := range vs {
				out = append(out, float64(v))
			}
			continue
		}
		v, err := parseFinite(part)
		if err != nil {
			return err
		}
		out = append(out, v)
	}
	*f.list, *f.v = out, out[0]
	return nil
}

// sweepTokens is --isl or --osl: one number of tokens (a fraction is a
// mean), or a sweep of whole numbers as sweepInt's (power-of-two ranges).
type sweepTokens struct {
	v    *float64
	list *[]int
}

func (f sweepTokens) String() string {
	if f.list == nil || len(*f.list) == 0 {
		return finiteFloat{f.v}.String()
	}
	return intList{f.list}.String()
}

func (f sweepTokens) Set(s string) error {
	if !strings.ContainsAny(s, ",:") {
		*f.list = nil
		return finiteFloat{f.v}.Set(s)
	}
	vs, err := multirun.ParseSweepInts(s, false)
	if err != nil {
		return err
	}
	*f.list, *f.v = vs, float64(vs[0])
	return nil
}

// msValue is a duration given in milliseconds.
type msValue struct{ d *time.Duration }

func (v msValue) String() string {
	if v.d == nil {
		return ""
	}
	return strconv.FormatFloat(float64(*v.d)/float64(time.Millisecond), 'g', -1, 64)
}

func (v msValue) Set(s string) error {
	f, err := parseFinite(s)
	if err != nil || f < 0 {
		return fmt.Errorf("%q is not a finite number of milliseconds >= 0", s)
	}
	*v.d = time.Duration(f * float64(time.Millisecond))
	return nil
}

// parseFinite reads a number flag's value: NaN and infinities are refused
// (they pass strconv but no setting means them: --request-rate NaN would
// send requests, --arrival-smoothness NaN would hang the pacer).
func parseFinite(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%q is not a finite number", strings.TrimSpace(s))
	}
	return f, nil
}

// finiteFloat is a plain number flag that refuses NaN and infinities.
type finiteFloat struct{ p *float64 }

func (v finiteFloat) String() string {
	if v.p == nil {
		return ""
	}
	return strconv.FormatFloat(*v.p, 'g', -1, 64)
}

func (v finiteFloat) Set(s string) error {
	f, err := parseFinite(s)
	if err != nil {
		return err
	}
	*v.p = f
	return nil
}
