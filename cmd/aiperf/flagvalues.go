package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
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
