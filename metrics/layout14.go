package metrics

import "strings"

// LookupResult14 returns how a Config.Schema14 summary places a result
// that is not in the catalogue (Lookup has no entry for it): the 14
// sweep-line results (effective_*, active_*, tokens_in_flight),
// effective_latency, credit_to_start_latency and the error-adjusted
// adj_<tag> of the metrics AIPerf 0.13 adjusts. The Result has Tag,
// Header, Unit, Group, Console, DisplayOrder and, for the statistics such
// a result never has, Missing set exactly as Accumulator.Summary sets
// them; its values are zero. An adj_* result's Missing lists only the
// statistics every adjusted result lacks (avg, max, std, sum): which
// percentiles land on a failure depends on the run. ok is false for any
// other tag.
func LookupResult14(tag string) (Result, bool) {
	for i, sp := range sweepSpecs {
		if sp.tag == tag {
			return Result{Tag: tag, Header: sp.header, Unit: sp.unit, Group: sp.group, Console: true,
				DisplayOrder: orderSweep + i, Missing: sweepMissing}, true
		}
	}
	switch tag {
	case "credit_to_start_latency":
		return Result{Tag: tag, Header: "Credit-to-Start Latency", Unit: unitMS, Group: GroupDefault,
			DisplayOrder: orderCreditLat}, true
	case "effective_latency":
		return Result{Tag: tag, Header: "Effective Latency (CO-aware)", Unit: unitMS, Group: GroupEffective,
			Console: true, DisplayOrder: orderEffLat}, true
	}
	if base, ok := strings.CutPrefix(tag, "adj_"); ok {
		for i, id := range adjustedIDs {
			if d := &catalog[id]; d.Tag == base {
				return Result{Tag: tag, Header: d.Header + " (error-adjusted)", Unit: d.DisplayUnit,
					Console: true, DisplayOrder: orderAdjusted + i, Missing: []string{"avg", "max", "std", "sum"}}, true
			}
		}
	}
	return Result{}, false
}
