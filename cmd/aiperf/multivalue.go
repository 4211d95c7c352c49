package main

import (
	"slices"
	"strconv"
	"strings"
)

// multiValueFlags take several values after one flag, as AIPerf's
// (cyclopts) consume-multiple options do: `--server-metrics a:8081 b:9090`.
// A bare flag (no value follows) is given the value "," (no items; the
// parser refuses an empty value).
var multiValueFlags = []string{"--url", "--gpu-telemetry", "--server-metrics", "--server-metrics-formats",
	// GenAI-Perf's nargs flags.
	"-m", "--model", "--model-names", "-g", "--goodput", "--audio-depths", "--audio-sample-rates", "--server-metrics-url", "--server-metrics-urls"}

// expandMultiValue rewrites a profile command line so that the standard
// flag parser reads AIPerf's multi-value flags: every value after such a
// flag, up to the next argument starting with '-', becomes its own
// --flag=value. Other arguments are left as they are.
func expandMultiValue(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if a == "--fixed-schedule" && i+1 < len(args) {
			// GenAI-Perf's --fixed-schedule takes a value (argparse
			// type=bool): --fixed-schedule true.
			if b, err := strconv.ParseBool(args[i+1]); err == nil {
				out = append(out, a+"="+strconv.FormatBool(b))
				i++
				continue
			}
		}
		if !slices.Contains(multiValueFlags, a) {
			out = append(out, a)
			continue
		}
		n := 0
		for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			i++
			n++
			if strings.HasPrefix(a, "--") {
				out = append(out, a+"="+args[i])
			} else { // a short flag takes no -m=value
				out = append(out, a, args[i])
			}
		}
		if n == 0 && strings.HasPrefix(a, "--") {
			out = append(out, a+"=,")
		} else if n == 0 {
			out = append(out, a)
		}
	}
	return out
}

// itemList is a list flag whose values may be separated by commas or
// spaces (the environment and YAML give several in one string), and whose
// first use replaces the default.
type itemList struct {
	p   *[]string
	set *bool // reports that the default was replaced
}

func (v itemList) String() string {
	if v.p == nil {
		return ""
	}
	return strings.Join(*v.p, ",")
}

func (v itemList) Set(s string) error {
	if !*v.set {
		*v.p, *v.set = nil, true
	}
	*v.p = append(*v.p, strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' })...)
	return nil
}
