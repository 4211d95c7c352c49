package runner

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"
)

// Intervals yields the gaps between successive request sends in request-rate
// mode. The first request is sent at the schedule's start; request i at the
// sum of the first i gaps. Not safe for concurrent use.
type Intervals interface {
	Next() time.Duration
}

// NewIntervals returns the generator for an arrival pattern at rate requests
// per second, drawing from rng: constant gives 1/rate; poisson gives
// exponential gaps with mean 1/rate; gamma gives Gamma(shape=smoothness,
// scale=1/(rate*smoothness)), whose mean is also 1/rate.
func NewIntervals(pattern string, rate, smoothness float64, rng *rand.Rand) (Intervals, error) {
	if rate <= 0 {
		return nil, fmt.Errorf("rate must be > 0, got %v", rate)
	}
	switch strings.ToLower(pattern) {
	case "constant":
		return constantIntervals(seconds(1 / rate)), nil
	case "", "poisson":
		return &poissonIntervals{rate: rate, rng: rng}, nil
	case "gamma":
		if smoothness == 0 {
			smoothness = 1
		}
		if smoothness < 0 {
			return nil, fmt.Errorf("smoothness must be > 0, got %v", smoothness)
		}
		return &gammaIntervals{shape: smoothness, scale: 1 / (rate * smoothness), rng: rng}, nil
	}
	return nil, fmt.Errorf("unknown arrival pattern %q", pattern)
}

func seconds(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }

type constantIntervals time.Duration

func (c constantIntervals) Next() time.Duration { return time.Duration(c) }

type poissonIntervals struct {
	rate float64
	rng  *rand.Rand
}

func (p *poissonIntervals) Next() time.Duration { return seconds(p.rng.ExpFloat64() / p.rate) }

type gammaIntervals struct {
	shape, scale float64
	rng          *rand.Rand
}

func (g *gammaIntervals) Next() time.Duration { return seconds(gammaSample(g.rng, g.shape) * g.scale) }

// gammaSample draws from Gamma(shape, 1) with Marsaglia and Tsang's method;
// shapes below 1 use the boost Gamma(a) = Gamma(a+1) * U^(1/a).
func gammaSample(rng *rand.Rand, shape float64) float64 {
	if shape < 1 {
		u := rng.Float64()
		for u == 0 {
			u = rng.Float64()
		}
		return gammaSample(rng, shape+1) * math.Pow(u, 1/shape)
	}
	d := shape - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*x*x*x*x {
			return d * v
		}
		if u > 0 && math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v
		}
	}
}
