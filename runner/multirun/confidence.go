package multirun

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Confidence is one metric statistic summarised across runs (§2.4), in the
// unit of the per-run value. Statistics that cannot be computed (one value:
// no sample deviation) are NaN, written as null in JSON and empty in CSV.
type Confidence struct {
	Mean, Std, Min, Max float64
	// CV is the coefficient of variation, Std/|Mean|: +Inf when Mean is 0.
	CV float64
	// SE is the standard error of the mean, Std/sqrt(n).
	SE float64
	// CILow and CIHigh bound the confidence interval Mean ∓ TCritical*SE.
	CILow, CIHigh float64
	// TCritical is the two-sided Student-t critical value for n-1 degrees
	// of freedom at the confidence level.
	TCritical float64
	Unit      string
	// N is the number of runs that had a value.
	N int
}

// TCritical returns the two-sided Student-t critical value at the
// confidence level (0 < level < 1) for a sample of n values:
// t.ppf(1-(1-level)/2, n-1), e.g. 2.776 for n=5 at 0.95. It returns NaN
// when n < 2 (no degrees of freedom) or the level is out of range.
func TCritical(level float64, n int) float64 {
	if n < 2 || !(level > 0 && level < 1) {
		return math.NaN()
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}
	return t.Quantile(1 - (1-level)/2)
}

// Summarize computes the confidence statistics of values (one per run) at
// the confidence level: mean, sample standard deviation (ddof=1), min, max,
// CV, standard error and the t-based interval. With a single value the
// deviation-based statistics are NaN. values must not be empty.
func Summarize(values []float64, unit string, level float64) Confidence {
	n := len(values)
	c := Confidence{Unit: unit, N: n, Min: math.Inf(1), Max: math.Inf(-1)}
	var sum float64
	for _, v := range values {
		sum += v
		c.Min = min(c.Min, v)
		c.Max = max(c.Max, v)
	}
	c.Mean = sum / float64(n)
	if n < 2 {
		nan := math.NaN()
		c.Std, c.CV, c.SE, c.CILow, c.CIHigh, c.TCritical = nan, nan, nan, nan, nan, nan
		return c
	}
	var ss float64
	for _, v := range values {
		d := v - c.Mean
		ss += d * d
	}
	c.Std = math.Sqrt(ss / float64(n-1))
	if c.Mean == 0 {
		c.CV = math.Inf(1)
	} else {
		c.CV = c.Std / math.Abs(c.Mean)
	}
	c.SE = c.Std / math.Sqrt(float64(n))
	c.TCritical = TCritical(level, n)
	margin := c.TCritical * c.SE
	c.CILow, c.CIHigh = c.Mean-margin, c.Mean+margin
	return c
}
