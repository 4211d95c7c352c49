// Package timeslice recomputes a run's metrics per time window
// (--slice-duration), as AIPerf's timeslices do (reference §3.5): the
// profiling records are grouped by the window their request started in, and
// each window gets the same metrics and statistics as the run summary, with
// throughputs divided by the window length.
//
// The window grid is anchored at the earliest request start, which is only
// known once every record is in, so the Accumulator keeps each record's
// timestamps and metric values in a compact form (about 9 bytes per value
// plus 64 per record) and builds one window's metrics at a time in Slices.
package timeslice

import (
	"fmt"
	"time"

	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/record"
)

// Slice is one non-empty window of a run and its metrics.
type Slice struct {
	// Index is the window's position among the non-empty windows, from 0:
	// AIPerf's timeslice_index. Windows without a request start are skipped,
	// so Index can differ from (Start-first start)/duration.
	Index int
	// Start and End bound the window [Start, End), in the records' clock
	// (monotonic ns since the run's record.Clock origin).
	Start, End int64
	// Partial reports that End was clipped to the last activity of the run
	// (the latest request start or end), so the window is shorter than the
	// slice duration. Only the last window can be partial.
	Partial bool
	// Summary holds the window's metrics, computed over the records whose
	// request started in the window. Throughputs divide by End-Start; its
	// StartWallNS and EndWallNS are monotonic (no clock is applied).
	Summary *metrics.Summary
}

// Accumulator collects the profiling records of a run for timeslicing. It
// is not safe for concurrent use: one goroutine calls Add, then Slices.
type Accumulator struct {
	cfg   *metrics.Config
	slice int64

	rows []row
	// nums holds every row's values back to back: a scalar takes one entry,
	// a list one entry per element. seq holds each entry's tag index, so
	// consecutive entries of a list tag within a row form that list.
	nums []float64
	seq  []uint8

	tags     []tagInfo
	tagIndex map[string]uint8

	errs     []record.Error
	errIndex map[record.Error]int32
}

// row keeps the fields of a record that metrics.Accumulator.Add reads:
// timestamps, validity, error, token counts. Identity strings and response
// bodies are dropped; the values carry what the responses gave.
type row struct {
	credit, start, ack, end, cancelledAt int64
	// off is the index in nums and seq of the row's first value.
	off                          int
	inputTokens, requestedTokens int32
	// err indexes errs, or is -1 when the record has no error.
	err                         int32
	valid, cancelled, streaming bool
}

// tagInfo is what rebuilding a metrics.RecordValue needs besides its value.
type tagInfo struct {
	tag, unit string
	integer   bool
	list      bool
}

// maxTags bounds the distinct metric tags; the catalogue holds far fewer.
const maxTags = 256

// New returns an empty accumulator that cuts a run configured by cfg into
// windows of slice (which must be positive; New panics otherwise). cfg must
// be the run's metrics configuration and must not change while the
// accumulator is in use.
//
// origin, the profiling phase start, is not used to place the windows: like
// AIPerf, Slices anchors the grid at the earliest request start of the
// records, which is only known at the end.
func New(cfg *metrics.Config, slice time.Duration, origin int64) *Accumulator {
	_ = origin
	if slice <= 0 {
		panic(fmt.Sprintf("timeslice: slice duration %v is not positive", slice))
	}
	return &Accumulator{
		cfg: cfg, slice: int64(slice),
		tagIndex: map[string]uint8{}, errIndex: map[record.Error]int32{},
	}
}

// Add keeps one record and its values, which must be
// metrics.Compute(cfg, rec) for the accumulator's cfg. Warmup records are
// ignored. Neither rec nor vals is retained.
func (a *Accumulator) Add(rec *record.Record, vals []metrics.RecordValue) {
	if rec.Phase == record.PhaseWarmup {
		return
	}
	r := row{
		credit: rec.CreditIssuedNS, start: rec.StartNS, ack: rec.AckNS, end: rec.EndNS,
		cancelledAt: rec.CancelledNS, off: len(a.nums),
		inputTokens: int32(rec.InputTokens), requestedTokens: int32(rec.RequestedOutputTokens),
		err: -1, valid: rec.Valid(), cancelled: rec.Cancelled, streaming: rec.Streaming,
	}
	if rec.Error != nil {
		r.err = a.errorIndex(*rec.Error)
	}
	for i := range vals {
		v := &vals[i]
		t := a.tagOf(v)
		if a.tags[t].list {
			for _, x := range v.List {
				a.nums = append(a.nums, x)
				a.seq = append(a.seq, t)
			}
			continue
		}
		a.nums = append(a.nums, v.Value)
		a.seq = append(a.seq, t)
	}
	a.rows = append(a.rows, r)
}

// tagOf returns the index of v's tag, registering it on first sight.
func (a *Accumulator) tagOf(v *metrics.RecordValue) uint8 {
	if t, ok := a.tagIndex[v.Tag]; ok {
		return t
	}
	if len(a.tags) == maxTags {
		panic(fmt.Sprintf("timeslice: more than %d metric tags", maxTags))
	}
	t := uint8(len(a.tags))
	a.tags = append(a.tags, tagInfo{tag: v.Tag, unit: v.Unit, integer: v.Int, list: v.List != nil})
	a.tagIndex[v.Tag] = t
	return t
}

func (a *Accumulator) errorIndex(e record.Error) int32 {
	if i, ok := a.errIndex[e]; ok {
		return i
	}
	i := int32(len(a.errs))
	a.errs = append(a.errs, e)
	a.errIndex[e] = i
	return i
}

// validResponses stands in for a valid record's responses when it is
// replayed: metrics.Accumulator only asks whether the record is valid.
var validResponses = []record.Response{{PerfNS: 1}}

// replay rebuilds row i as a record and its values for metrics.Accumulator.
// rec and buf are reused across calls; the values' lists alias a.nums.
func (a *Accumulator) replay(i int, rec *record.Record, buf []metrics.RecordValue) []metrics.RecordValue {
	r := &a.rows[i]
	*rec = record.Record{
		Phase: record.PhaseProfiling, CreditIssuedNS: r.credit, StartNS: r.start, AckNS: r.ack,
		EndNS: r.end, Streaming: r.streaming, InputTokens: int(r.inputTokens),
		RequestedOutputTokens: int(r.requestedTokens), Cancelled: r.cancelled, CancelledNS: r.cancelledAt,
	}
	if r.valid {
		rec.Responses = validResponses
	}
	if r.err >= 0 {
		rec.Error = &a.errs[r.err]
	}
	end := len(a.nums)
	if i+1 < len(a.rows) {
		end = a.rows[i+1].off
	}
	buf = buf[:0]
	for j := r.off; j < end; {
		t := a.seq[j]
		info := &a.tags[t]
		v := metrics.RecordValue{Tag: info.tag, Unit: info.unit, Int: info.integer}
		k := j + 1
		if info.list {
			for k < end && a.seq[k] == t {
				k++
			}
			v.List = a.nums[j:k:k]
		} else {
			v.Value = a.nums[j]
		}
		buf = append(buf, v)
		j = k
	}
	return buf
}
