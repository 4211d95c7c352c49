package runner

import "testing"

// TestOpenLoop: a run is open-loop when any phase sends on a schedule.
func TestOpenLoop(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(c *Config)
		want bool
	}{
		{"concurrency", func(c *Config) { c.Concurrency = 8 }, false},
		{"concurrency sweep", func(c *Config) { c.ConcurrencyList = []int{1, 2} }, false},
		{"request rate", func(c *Config) { c.RequestRate = 10 }, true},
		{"rate sweep", func(c *Config) { c.RequestRateList = []float64{1, 2} }, true},
		{"fixed schedule", func(c *Config) { c.FixedSchedule = true }, true},
		{"user-centric", func(c *Config) { c.UserCentricRate = 5; c.NumUsers = 2 }, true},
		{"warmup at a rate", func(c *Config) { c.Concurrency = 8; c.WarmupRequestRate = 10 }, true},
	} {
		var c Config
		tc.set(&c)
		if got := c.OpenLoop(); got != tc.want {
			t.Errorf("%s: OpenLoop %v, want %v", tc.name, got, tc.want)
		}
	}
}
