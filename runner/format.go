package runner

import (
	"math"
	"strconv"
)

func itoa(n int) string { return strconv.Itoa(n) }

// pyFloat formats f as Python's str(float) does for ordinary magnitudes:
// the shortest round-trip digits, with ".0" for integral values.
func pyFloat(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	for _, c := range s {
		if c == '.' {
			return s
		}
	}
	return s + ".0"
}
