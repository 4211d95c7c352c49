package custom

import (
	"fmt"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/trace"
)

// streamTraceSynthesis names the random stream of the --synthesis-prefix-
// root-multiplier draws, after AIPerf's "dataset.synthesis.synthesizer".
const streamTraceSynthesis = "dataset.synthesis.synthesizer"

// traceSynthesize applies o.Synthesis to the filtered, grouped rows, as
// AIPerf's trace loaders do before building prompts: the rows are visited
// session by session (the order decides their fresh hash_ids and
// prefix-root draws), with hash block size blockSize and o.MaxISL and
// o.MaxOSL as the caps. Nothing happens without a multiplier. The rows it
// returns still satisfy the hash_ids rule of §4.3; the error says which
// does not, which would be a bug.
func traceSynthesize(o *Options, sessions []traceSession, blockSize int) error {
	if o.Synthesis == nil || !o.Synthesis.Transforms() {
		return nil
	}
	s := *o.Synthesis
	s.BlockSize, s.MaxISL, s.MaxOSL = blockSize, int64(o.MaxISL), int64(o.MaxOSL)
	var rows []*traceRow
	var reqs []trace.Request
	for _, sess := range sessions {
		for _, r := range sess.rows {
			req := trace.Request{
				InputLength: int64(r.inputLength), HasInputLength: r.input == traceSynthetic, Literal: r.input != traceSynthetic,
				OutputLength: int64(r.outputLength), HasOutputLength: r.hasOutput,
				Timestamp: r.timestamp, HasTimestamp: r.hasTimestamp,
			}
			for _, h := range r.hashIDs {
				req.HashIDs = append(req.HashIDs, int64(h))
			}
			rows, reqs = append(rows, r), append(reqs, req)
		}
	}
	if err := s.Apply(reqs, dataset.NewRand(o.Seed, streamTraceSynthesis)); err != nil {
		return fmt.Errorf("%s: trace synthesis: %w", o.Path, err)
	}
	for i, r := range rows {
		req := &reqs[i]
		r.timestamp, r.outputLength = req.Timestamp, int(req.OutputLength)
		if r.input != traceSynthetic {
			continue
		}
		r.inputLength, r.hashIDs = int(req.InputLength), r.hashIDs[:0]
		for _, h := range req.HashIDs {
			r.hashIDs = append(r.hashIDs, int(h))
		}
		if len(r.hashIDs) == 0 {
			continue
		}
		if _, msg := blockFinal(r.inputLength, r.hashIDs, blockSize); msg != "" {
			return fmt.Errorf("%s:%d: trace synthesis made an invalid row: %s", o.Path, r.line, msg)
		}
	}
	return nil
}
