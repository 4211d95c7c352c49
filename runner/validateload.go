package runner

import (
	"fmt"
	"slices"
	"strings"
)

// connectionReuse are the valid --connection-reuse-strategy values.
var connectionReuse = []string{"pooled", "never", "sticky-user-sessions"}

// flagSet reports whether the flag (long name, no dashes) was given.
func (c *Config) flagSet(name string) bool { return slices.Contains(c.FlagsSet, name) }

// WarmupEnabled reports whether a warmup phase runs.
func (c *Config) WarmupEnabled() bool {
	return c.WarmupRequestCount > 0 || c.WarmupDuration > 0 || c.NumWarmupSessions > 0
}

// loadProblems checks the timing-mode rules of §5.9, with the reference's
// messages (each followed by the fix).
func (c *Config) loadProblems() []string {
	var p []string
	add := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	userCentric := c.UserCentricRate > 0

	if c.UserCentricRate < 0 {
		add("--user-centric-rate must be > 0 requests/sec (got %v)", c.UserCentricRate)
	}
	if userCentric && (c.RequestRate > 0 || c.flagSet("arrival-pattern")) {
		add("--user-centric-rate cannot be used together with --request-rate or --arrival-pattern")
	}
	if userCentric && c.NumUsers <= 0 {
		add("--user-centric-rate requires --num-users to be set")
	}
	if userCentric && c.InputFile == "" && c.PublicDataset == "" && c.SessionTurnsMean < 2 {
		add("--user-centric-rate requires multi-turn conversations (--session-turns-mean >= 2)")
	}
	if c.NumUsers != 0 && !userCentric {
		add("--num-users can only be used with --user-centric-rate")
	}
	if c.FailureWindow < 0 {
		add("--failure-window must be >= 0 seconds (0 turns it off; got %v)", c.FailureWindow.Seconds())
	}
	if c.NumUsers < 0 {
		add("--num-users must be >= 1 (got %d)", c.NumUsers)
	}
	if c.WarmupGracePeriodSet && !c.WarmupEnabled() {
		add("--warmup-grace-period can only be used when warmup is enabled")
	}
	if c.PrefillConcurrency < 0 || c.WarmupPrefillConcurrency < 0 {
		add("--prefill-concurrency must be >= 1")
	}
	if (c.PrefillConcurrency > 0 || c.WarmupPrefillConcurrency > 0) && !c.Streaming {
		add("--prefill-concurrency requires --streaming to be enabled")
	}
	if c.PrefillConcurrency > 0 && c.Concurrency > 0 && c.PrefillConcurrency > c.Concurrency {
		add("--prefill-concurrency (%d) must be <= --concurrency (%d)", c.PrefillConcurrency, c.Concurrency)
	}
	if c.WarmupRequestCount > 0 && c.NumWarmupSessions > 0 {
		add("Both --warmup-request-count and --num-warmup-sessions are set: give one")
	}
	for _, n := range []struct {
		flag string
		v    int
	}{{"--num-warmup-sessions", c.NumWarmupSessions}, {"--warmup-concurrency", c.WarmupConcurrency}} {
		if n.v < 0 {
			add("%s must be >= 0 (got %d)", n.flag, n.v)
		}
	}
	if c.WarmupRequestRate < 0 || c.WarmupDuration < 0 {
		add("--warmup-request-rate and --warmup-duration must be >= 0")
	}
	if c.WarmupArrivalPattern != "" && !slices.Contains(arrivalPatterns, strings.ToLower(c.WarmupArrivalPattern)) {
		add("--warmup-arrival-pattern %q is not valid: use one of %s", c.WarmupArrivalPattern, strings.Join(arrivalPatterns, ", "))
	}
	if c.RequestCancellationRate < 0 || c.RequestCancellationRate > 100 {
		add("--request-cancellation-rate must be a percentage between 0 and 100 (got %v)", c.RequestCancellationRate)
	}
	if c.RequestCancellationDelay > 0 && c.RequestCancellationRate == 0 {
		add("--request-cancellation-delay can only be used with --request-cancellation-rate")
	}
	if c.RequestRateRamp > 0 && userCentric {
		add("--request-rate-ramp-duration cannot be used with --user-centric-rate")
	}
	if c.RequestRateRamp > 0 && c.FixedSchedule {
		add("--request-rate-ramp-duration cannot be used with --fixed-schedule")
	}
	if c.RequestRateRamp > 0 && c.RequestRate == 0 && !userCentric && !c.FixedSchedule {
		add("--request-rate-ramp-duration needs --request-rate")
	}
	if strings.EqualFold(c.ArrivalPattern, "concurrency_burst") && c.RequestRate > 0 {
		add("Request rate mode cannot be 'concurrency_burst' when a request rate is specified.")
	}
	if c.FixedSchedule && (c.RequestRate > 0 || c.flagSet("arrival-pattern") || c.ArrivalSmoothness != 0) {
		add("--request-rate, --arrival-pattern and --arrival-smoothness cannot be used with --fixed-schedule: the dataset's timestamps set the schedule")
	}
	if c.FixedSchedule && userCentric {
		add("--user-centric-rate cannot be used with --fixed-schedule")
	}
	if userCentric && c.DatasetSampling != "" && c.FixedSchedule {
		add("Dataset sampling strategy is not compatible with fixed schedule mode")
	}
	if c.ConnectionReuse != "" && !slices.Contains(connectionReuse, c.ConnectionReuse) {
		add("--connection-reuse-strategy %q is not valid: use one of %s", c.ConnectionReuse, strings.Join(connectionReuse, ", "))
	}
	if c.NumProfileRuns < 1 || c.NumProfileRuns > 10 {
		add("--num-profile-runs must be between 1 and 10 (got %d)", c.NumProfileRuns)
	}
	if c.ConfidenceLevel <= 0 || c.ConfidenceLevel >= 1 {
		add("--confidence-level must be between 0 and 1, e.g. 0.95 (got %v)", c.ConfidenceLevel)
	}
	if c.NumProfileRuns > 1 && strings.EqualFold(c.UIType, "dashboard") {
		add("Dashboard UI is not supported with multi-run mode (--num-profile-runs > 1): use --ui-type simple or none")
	}
	if len(c.ConcurrencyList) > 1 && len(c.RequestRateList) > 1 {
		add("--concurrency and --request-rate cannot both be lists: sweep one of them")
	}
	for _, v := range c.ConcurrencyList {
		switch {
		case v >= 1:
		case len(c.ConcurrencyList) == 1:
			add("--concurrency must be >= 1 (got %d)", v)
		default:
			add("--concurrency values must be >= 1 (got %d)", v)
		}
	}
	for _, v := range c.RequestRateList {
		switch {
		case v > 0:
		case len(c.RequestRateList) == 1:
			add("--request-rate must be > 0 requests/sec (got %v)", v)
		default:
			add("--request-rate values must be > 0 (got %v)", v)
		}
	}
	if c.SliceDuration < 0 {
		add("--slice-duration must be > 0 seconds")
	}
	return p
}
