package multirun

import (
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// MaxSweepValues caps the values one sweep flag may expand to, so that a
// typo such as 1:1000000:1 is refused rather than run for days.
const MaxSweepValues = 1000

// ParseSweepInts reads the value of an integer sweep flag: one integer, or
// comma-separated items each of which is an integer or a range
// start:stop[:step]. A range with a step is start, start+step, … up to
// stop (inclusive). A range without a step is, as GenAI-Perf's analyze
// --sweep-range, the powers of two from start to stop (8:256 is 8, 16, 32,
// 64, 128, 256), or every integer from start to stop when linear (GenAI-
// Perf's rule for num_dataset_entries). Range bounds and steps must be
// integers >= 1 with stop > start. The values keep the order given.
//
// Errors say what is wrong and how to write it; the caller names the flag.
func ParseSweepInts(s string, linear bool) ([]int, error) {
	var out []int
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if !strings.Contains(item, ":") {
			n, err := parseWhole(item)
			if err != nil {
				return nil, err
			}
			out = append(out, n)
		} else {
			vs, err := expandRange(item, linear)
			if err != nil {
				return nil, err
			}
			out = append(out, vs...)
		}
		if len(out) > MaxSweepValues {
			return nil, fmt.Errorf("%q gives more than %d values: use a larger step or fewer values", s, MaxSweepValues)
		}
	}
	return out, nil
}

// parseWhole reads one integer of a sweep, telling a fraction from junk.
func parseWhole(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err == nil {
		return n, nil
	}
	if _, ferr := strconv.ParseFloat(s, 64); ferr == nil {
		return 0, fmt.Errorf("%q is not a whole number: this sweep takes integers, e.g. 32,64 or 32:256", s)
	}
	if s == "" {
		return 0, errors.New("empty value: write integers separated by commas, e.g. 32,64, or a range start:stop[:step]")
	}
	return 0, fmt.Errorf("%q is not an integer: write integers separated by commas, e.g. 32,64, or a range start:stop[:step]", s)
}

// expandRange expands one start:stop[:step] item (see ParseSweepInts).
func expandRange(item string, linear bool) ([]int, error) {
	parts := strings.Split(item, ":")
	if len(parts) > 3 {
		return nil, fmt.Errorf("range %q has %d parts: write start:stop or start:stop:step", item, len(parts))
	}
	nums := make([]int, len(parts))
	for i, p := range parts {
		n, err := parseWhole(strings.TrimSpace(p))
		if err != nil {
			return nil, fmt.Errorf("range %q: %w", item, err)
		}
		nums[i] = n
	}
	start, stop := nums[0], nums[1]
	if start < 1 {
		return nil, fmt.Errorf("range %q starts at %d: start must be >= 1", item, start)
	}
	if stop <= start {
		return nil, fmt.Errorf("range %q: stop %d must be greater than start %d, e.g. %d:%d", item, stop, start, start, 2*start)
	}
	step := 1
	if len(nums) == 3 {
		step = nums[2]
		if step < 1 {
			return nil, fmt.Errorf("range %q has step %d: the step must be >= 1", item, step)
		}
	} else if !linear {
		return powersOfTwo(item, start, stop)
	}
	n := (stop-start)/step + 1 // counted so that start+k*step cannot overflow
	if n > MaxSweepValues {
		return nil, fmt.Errorf("range %q gives more than %d values: use a larger step", item, MaxSweepValues)
	}
	out := make([]int, n)
	for k := range out {
		out[k] = start + k*step
	}
	return out, nil
}

// powersOfTwo returns the powers of two p with start <= p <= stop.
func powersOfTwo(item string, start, stop int) ([]int, error) {
	p := 1 << bits.Len(uint(start-1)) // the least power of two >= start
	var out []int
	for ; p > 0 && p <= stop; p <<= 1 {
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("range %q holds no power of two: give a step (%s:1) or powers-of-two bounds", item, item)
	}
	return out, nil
}
