package query

import (
	"fmt"
	"slices"
)

// keySet is the set of keys an object of a record may have that the
// decoder reads; the others are skipped.
type keySet struct {
	keys  []string
	index map[string]int
}

func newKeySet(keys ...string) *keySet {
	k := &keySet{keys: keys, index: make(map[string]int, len(keys))}
	for i, key := range keys {
		k.index[key] = i
	}
	return k
}

// withAliases makes each key of aliases (an old name) find the position of
// its value (today's name), when k has that; a record with both names is a
// duplicate key.
func withAliases(k *keySet, aliases map[string]string) *keySet {
	for old, now := range aliases {
		if i, ok := k.index[now]; ok {
			k.index[old] = i
		}
	}
	return k
}

// find returns the position of key in the set, or -1.
func (k *keySet) find(key []byte) int {
	if i, ok := k.index[string(key)]; ok {
		return i
	}
	return -1
}

// The key sets of the objects read. metricKeys holds MetricColumns in
// order, then inter_chunk_latency (so its position plus fieldMetric is
// the field); metadataKeys is in the md* order.
var (
	topKeys      = newKeySet("metadata", "metrics", "error")
	metricKeys   = withAliases(newKeySet(append(slices.Clip(MetricColumns), "inter_chunk_latency")...), legacyTags)
	metricFields = newKeySet("value", "unit")
	errorKeys    = newKeySet("code", "type", "message")
	metadataKeys = newKeySet("request_num", "session_num", "x_request_id", "x_correlation_id", "conversation_id",
		"turn_index", "credit_issued_ns", "request_start_ns", "request_ack_ns", "request_end_ns", "worker_id",
		"record_processor_id", "benchmark_phase", "was_cancelled", "cancellation_time_ns", "timestamp_ns", "credit_phase")
)

// The metadata keys, in metadataKeys order.
const (
	mdRequestNum = iota
	mdSessionNum
	mdXRequestID
	mdXCorrelationID
	mdConversationID
	mdTurnIndex
	mdCreditIssuedNS
	mdRequestStartNS
	mdRequestAckNS
	mdRequestEndNS
	mdWorkerID
	mdRecordProcessorID
	mdBenchmarkPhase
	mdWasCancelled
	mdCancellationTimeNS
	mdTimestampNS // legacy request_start_ns
	mdCreditPhase // legacy benchmark_phase
)

// members reads the members of an object whose '{' was consumed, calling
// read with each key's position in keys (-1: unknown) with the scanner at
// the key's value, which read must consume. A known key twice is an
// error.
func (d *recordDecoder) members(keys *keySet, read func(i int) error) error {
	s := &d.s
	var seen uint64
	for first := true; ; first = false {
		key, ok, err := s.nextKey(first)
		if err != nil || !ok {
			return err
		}
		i := keys.find(key)
		if i >= 0 {
			if seen&(1<<i) != 0 {
				return fmt.Errorf("duplicate key %q", key)
			}
			seen |= 1 << i
		}
		if err := read(i); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
	}
}
