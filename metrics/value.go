package metrics

// RecordValue is one metric value of one record in display units, as written
// to profile_export.jsonl. List metrics (inter_chunk_latency) set List and
// leave Value zero.
type RecordValue struct {
	Tag  string
	Unit string
	// Value is the scalar value; Int reports that it is an integral count
	// (tokens) and is written without a fractional part.
	Value float64
	Int   bool
	// List is non-nil for list-valued metrics.
	List []float64
}
