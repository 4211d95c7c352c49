package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// positiveMS is a duration given in milliseconds that must be > 0
// (--measurement-interval).
type positiveMS struct{ d *time.Duration }

func (v positiveMS) String() string { return msValue(v).String() }

func (v positiveMS) Set(s string) error {
	f, err := parseFinite(s)
	if err != nil || f <= 0 {
		return fmt.Errorf("%q is not a number of milliseconds > 0", strings.TrimSpace(s))
	}
	*v.d = time.Duration(f * float64(time.Millisecond))
	return nil
}

// extraVerbose is AIPerf's --extra-verbose: -vv, trace logging.
type extraVerbose struct{ n *int }

func (v extraVerbose) String() string   { return strconv.FormatBool(v.n != nil && *v.n > 1) }
func (v extraVerbose) IsBoolFlag() bool { return true }
func (v extraVerbose) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	if b {
		*v.n = max(*v.n, 2)
	}
	return nil
}

// spacedList is a text flag that several uses extend, space-separated:
// GenAI-Perf's `--goodput a:1 b:2` (one value each) is AIPerf's
// `--goodput 'a:1 b:2'`.
type spacedList struct {
	p   *string
	set *bool // the first use replaces the default
}

func (v spacedList) String() string {
	if v.p == nil {
		return ""
	}
	return *v.p
}

func (v spacedList) Set(s string) error {
	if !*v.set {
		*v.p, *v.set = "", true
	}
	*v.p = strings.TrimSpace(*v.p + " " + s)
	return nil
}

// numberList is a list of numbers that several uses extend (GenAI-Perf's
// `--audio-depths 8 16`), each use comma-separated; the first use replaces
// the default. floats or ints is set.
type numberList struct {
	floats *[]float64
	ints   *[]int
	set    *bool
}

func (v numberList) String() string {
	if v.floats != nil {
		return floatList{v.floats}.String()
	}
	return intList{v.ints}.String()
}

func (v numberList) Set(s string) error {
	first := !*v.set
	*v.set = true
	if v.floats != nil {
		old := *v.floats
		if err := (floatList{v.floats}).Set(s); err != nil {
			return err
		}
		if !first {
			*v.floats = append(old, *v.floats...)
		}
		return nil
	}
	old := *v.ints
	if err := (intList{v.ints}).Set(s); err != nil {
		return err
	}
	if !first {
		*v.ints = append(old, *v.ints...)
	}
	return nil
}

// negBool is AIPerf's --no-X form of a bool flag: true sets the flag false.
type negBool struct{ p *bool }

func (v negBool) String() string   { return strconv.FormatBool(v.p != nil && !*v.p) }
func (v negBool) IsBoolFlag() bool { return true }
func (v negBool) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	if b {
		*v.p = false
	}
	return nil
}
