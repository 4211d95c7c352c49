package metrics

import "sync/atomic"

// enabledSets caches the enabled set of each configuration signature
// (enabledSignature): Compute runs for every record, and building the set
// asks every catalogue metric's Enabled (issue 19: a third of Compute).
var enabledSets [1 << 8]atomic.Pointer[enabledSet]

// enabledSignature packs the Config conditions that Metric.Enabled reads
// into one number; configurations with the same signature enable the same
// metrics. Enabled must read nothing that is not here
// (TestEnabledForMatchesEnabled varies every field of Config to check).
func (cfg *Config) enabledSignature() int {
	sig := 0
	for i, on := range [...]bool{cfg.Streaming, cfg.ProducesTokens, cfg.TokenizesInput, len(cfg.Goodput) > 0,
		cfg.UseServerTokenCount, cfg.HTTPTrace, cfg.ProducesVideo, cfg.Schema14} {
		if on {
			sig |= 1 << i
		}
	}
	return sig
}

// enabledFor returns the enabled set of cfg, built once per signature. The
// set is shared: callers must not modify it.
func enabledFor(cfg *Config) *enabledSet {
	slot := &enabledSets[cfg.enabledSignature()]
	if en := slot.Load(); en != nil {
		return en
	}
	en := newEnabledSet(cfg)
	slot.Store(&en)
	return &en
}
