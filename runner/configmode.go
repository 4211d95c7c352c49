package runner

import (
	"strconv"

	"github.com/aiperf-go/aiperf/internal/pyjson"
)

// Mode is the timing mode a configuration selects.
type Mode string

// Timing modes.
const (
	ModeConcurrency   Mode = "concurrency"
	ModeRequestRate   Mode = "request_rate"
	ModeFixedSchedule Mode = "fixed_schedule"
	ModeUserCentric   Mode = "user_centric_rate"
)

// Mode returns the timing mode (§5.1): fixed schedule when asked for (or
// enabled by a timestamped dataset), then user-centric rate, request-rate
// when a rate is given, else concurrency (closed loop).
func (c *Config) Mode() Mode {
	if c.FixedSchedule {
		return ModeFixedSchedule
	}
	if c.UserCentricRate > 0 {
		return ModeUserCentric
	}
	if c.RequestRate > 0 {
		return ModeRequestRate
	}
	return ModeConcurrency
}

// OpenLoop reports whether the run sends on a schedule anywhere: a
// request-rate, fixed-schedule or user-centric profiling phase, a rate
// sweep, or a warmup at a rate. Such a run is only as good as its
// sender's wake-ups (see Validity); a closed-loop run sends when replies
// come back.
func (c *Config) OpenLoop() bool {
	return c.Mode() != ModeConcurrency || len(c.RequestRateList) > 0 || c.WarmupRequestRate > 0
}

// EffectiveConcurrency is the concurrency limit in force: the configured one,
// 1 in concurrency mode when unset, and 0 (unlimited) in the open-loop modes
// when unset.
func (c *Config) EffectiveConcurrency() int {
	if c.Concurrency > 0 {
		return c.Concurrency
	}
	if c.Mode() == ModeConcurrency {
		return 1
	}
	return 0
}

// EffectiveRequestCount is the profiling request count: the configured one,
// or, when no count, session count nor duration is given, max(10,
// 2*concurrency). It is 0 for a run bound by duration, sessions or
// stability mode (Stability) only. A
// fixed-schedule run sends every turn of its schedule unless a count is
// given (see run.phaseSpecs).
func (c *Config) EffectiveRequestCount() int {
	if c.RequestCount > 0 {
		return c.RequestCount
	}
	if c.BenchmarkDuration > 0 || c.NumSessions > 0 || c.Stability.Enabled() {
		return 0
	}
	return max(10, 2*c.EffectiveConcurrency())
}

// Stimulus names the load in AIPerf's artifact directory naming, e.g.
// "concurrency10", "request_rate5.0", "concurrency100-request_rate10.0".
func (c *Config) Stimulus() string {
	switch c.Mode() {
	case ModeFixedSchedule:
		return "fixed_schedule"
	case ModeUserCentric:
		return "user_centric_rate" + string(pyjson.AppendFloat(nil, c.UserCentricRate))
	}
	conc := "concurrency" + strconv.Itoa(c.EffectiveConcurrency())
	if c.Mode() == ModeConcurrency {
		return conc
	}
	rate := "request_rate" + string(pyjson.AppendFloat(nil, c.RequestRate))
	if c.Concurrency > 0 {
		return conc + "-" + rate
	}
	return rate
}
