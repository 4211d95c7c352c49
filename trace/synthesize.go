package trace

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// Synthesis is the transform of `aiperf synthesize` and of the profile's
// --synthesis-* flags (reference §7.2): AIPerf 0.13's Synthesizer, which
// rescales a mooncake trace's timing, its shared prefixes, its unique
// prompts and its output lengths while keeping the prefix-sharing shape.
// The zero value is not valid; start from DefaultSynthesis.
type Synthesis struct {
	// BlockSize is the tokens per hash_ids block (>= 1).
	BlockSize int
	// SpeedupRatio divides every timestamp (> 0); the result is truncated
	// to whole milliseconds, as AIPerf's int(timestamp / ratio).
	SpeedupRatio float64
	// PrefixLenMultiplier scales each row's shared prefix: the leading
	// blocks whose hash_id occurs more than once in the trace (> 0).
	PrefixLenMultiplier float64
	// PrefixRootMultiplier spreads the rows at random over that many
	// disjoint copies of the prefix tree (>= 1).
	PrefixRootMultiplier int
	// PromptLenMultiplier scales the tokens after the shared prefix (> 0).
	PromptLenMultiplier float64
	// OutputLenMultiplier scales output_length, rounding half to even
	// (>= 0; the result is at least 1).
	OutputLenMultiplier float64
	// MaxISL caps input_length after the transform (0: no cap); MaxOSL
	// caps output_length (0: no cap).
	MaxISL, MaxOSL int64
}

// DefaultSynthesis returns the identity transform with mooncake's block
// size: every multiplier 1 and no caps.
func DefaultSynthesis() Synthesis {
	return Synthesis{BlockSize: DefaultBlockSize, SpeedupRatio: 1, PrefixLenMultiplier: 1,
		PrefixRootMultiplier: 1, PromptLenMultiplier: 1, OutputLenMultiplier: 1}
}

// Transforms reports whether s changes more than the caps: whether any
// multiplier differs from 1. Without one, Apply only caps (AIPerf runs its
// Synthesizer only then, "_has_meaningful_synthesis").
func (s Synthesis) Transforms() bool {
	return s.SpeedupRatio != 1 || s.PrefixLenMultiplier != 1 || s.PrefixRootMultiplier != 1 ||
		s.PromptLenMultiplier != 1 || s.OutputLenMultiplier != 1
}

// Check validates s and names a bad setting by its flag: "--" + prefix +
// "speedup-ratio" and so on, prefix being "" for `aiperf synthesize` and
// "synthesis-" for the profile's flags. BlockSize is the caller's to check.
func (s Synthesis) Check(prefix string) error {
	positive := []struct {
		name string
		v    float64
	}{{"speedup-ratio", s.SpeedupRatio}, {"prefix-len-multiplier", s.PrefixLenMultiplier}, {"prompt-len-multiplier", s.PromptLenMultiplier}}
	for _, f := range positive {
		if !(f.v > 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("--%s%s must be a finite number > 0, got %v", prefix, f.name, f.v)
		}
	}
	switch {
	case !(s.OutputLenMultiplier >= 0) || math.IsInf(s.OutputLenMultiplier, 0):
		return fmt.Errorf("--%soutput-len-multiplier must be a finite number >= 0, got %v", prefix, s.OutputLenMultiplier)
	case s.PrefixRootMultiplier < 1:
		return fmt.Errorf("--%sprefix-root-multiplier must be >= 1, got %d", prefix, s.PrefixRootMultiplier)
	case s.MaxISL < 0:
		return fmt.Errorf("--%smax-isl must be >= 1 (or unset), got %d", prefix, s.MaxISL)
	case s.MaxOSL < 0:
		return fmt.Errorf("--%smax-osl must be >= 1 (or unset), got %d", prefix, s.MaxOSL)
	}
	return nil
}

// Request is the part of one trace row that synthesis reads and rewrites.
type Request struct {
	// InputLength is input_length; HasInputLength says the row gives one.
	InputLength    int64
	HasInputLength bool
	// Literal marks a row whose prompt is given (text_input, messages or
	// payload): its input_length is left alone.
	Literal bool
	// HashIDs are the row's blocks; empty means none. Apply may replace
	// the slice but never writes into the caller's array.
	HashIDs []int64
	// OutputLength is output_length when HasOutputLength.
	OutputLength    int64
	HasOutputLength bool
	// Timestamp is the row's timestamp in ms when HasTimestamp.
	Timestamp    float64
	HasTimestamp bool
}

// maxSynthBlocks bounds the blocks of one synthesized row, so that a huge
// multiplier fails instead of exhausting memory.
const maxSynthBlocks = 1 << 20

// maxSynthID bounds the hash_ids synthesis may write, far from overflow.
const maxSynthID = 1 << 61

// errTooLarge is the error of a transform past maxSynthBlocks or maxSynthID.
var errTooLarge = errors.New("the multipliers make the row too large")

// Apply transforms reqs in place, in order (the order decides which fresh
// hash_ids a row gets and the prefix-root draws). With Transforms false it
// only applies the caps. Otherwise, as AIPerf's Synthesizer:
//
//   - A hash_id is shared when it occurs more than once in the trace. A
//     row's shared prefix is its leading run of shared hash_ids; the rest
//     of its tokens are its prompt.
//   - PrefixLenMultiplier m > 1 replaces each prefix block h by the int(m)
//     blocks h·int(m) … h·int(m)+int(m)−1 (rows sharing h still share
//     them), then adds fresh blocks up to ceil(n·m); m < 1 keeps the first
//     max(1, int(n·m)) blocks.
//   - PromptLenMultiplier scales the prompt's tokens (truncated), which get
//     fresh, unique blocks.
//   - PrefixRootMultiplier R > 1 moves each row with blocks into copy
//     rng.IntN(R) of the id space (R disjoint prefix trees); rng may be
//     nil when R is 1.
//   - Timestamps are divided by SpeedupRatio and output lengths multiplied
//     by OutputLenMultiplier; then MaxISL and MaxOSL cap.
//
// A row whose new blocks are empty keeps its input_length and loses its
// hash_ids. Apply fails only when a multiplier makes a row or a hash_id
// too large to represent.
func (s Synthesis) Apply(reqs []Request, rng *rand.Rand) error {
	if s.Transforms() {
		if err := s.reshape(reqs, rng); err != nil {
			return err
		}
	}
	for i := range reqs {
		s.finish(&reqs[i])
	}
	return nil
}

// reshape rewrites every row's blocks and input length, then its timestamp
// and output length (steps 1 to 7 of AIPerf's _apply_multipliers).
func (s Synthesis) reshape(reqs []Request, rng *rand.Rand) error {
	counts := make(map[int64]int)
	for _, r := range reqs {
		for _, h := range r.HashIDs {
			counts[h]++
		}
	}
	// AIPerf's max(shared) falls back to 0 when nothing is shared.
	var maxShared, minShared int64
	shared := false
	for h, c := range counts {
		switch {
		case c < 2:
		case !shared:
			maxShared, minShared, shared = h, h, true
		default:
			maxShared, minShared = max(maxShared, h), min(minShared, h)
		}
	}
	stretch := int64(1)
	if s.PrefixLenMultiplier > 1 {
		if s.PrefixLenMultiplier >= maxSynthBlocks {
			return fmt.Errorf("prefix length multiplier %v: %w", s.PrefixLenMultiplier, errTooLarge)
		}
		stretch = int64(s.PrefixLenMultiplier)
	}
	if math.Abs(float64(maxShared)+1)*float64(stretch) >= maxSynthID || math.Abs(float64(minShared))*float64(stretch) >= maxSynthID {
		return fmt.Errorf("hash_ids up to %d: %w", maxShared, errTooLarge)
	}
	next := (maxShared + 1) * stretch // the last id taken; fresh ids follow
	for i := range reqs {
		r := &reqs[i]
		if len(r.HashIDs) == 0 {
			r.HashIDs = nil
			continue
		}
		ids, isl, err := s.reshapeRow(r, counts, stretch, &next)
		if err != nil {
			return fmt.Errorf("row %d: %w", i+1, err)
		}
		r.HashIDs = ids
		if len(ids) > 0 {
			r.InputLength = isl
		}
	}
	if s.PrefixRootMultiplier > 1 {
		root := int64(s.PrefixRootMultiplier)
		base := next + 1
		if float64(base)*float64(root) >= maxSynthID {
			return fmt.Errorf("prefix root multiplier %d: %w", root, errTooLarge)
		}
		for i := range reqs {
			ids := reqs[i].HashIDs
			if len(ids) == 0 {
				continue
			}
			if tree := int64(rng.IntN(int(root))); tree > 0 {
				for k := range ids {
					ids[k] += tree * base
				}
			}
		}
	}
	for i := range reqs {
		r := &reqs[i]
		if r.HasTimestamp {
			r.Timestamp = math.Trunc(r.Timestamp / s.SpeedupRatio)
		}
		if r.HasOutputLength {
			osl := math.RoundToEven(float64(r.OutputLength) * s.OutputLenMultiplier)
			r.OutputLength = int64(min(osl, math.MaxInt64/2))
			r.OutputLength = max(1, r.OutputLength)
		}
	}
	return nil
}

// reshapeRow returns the new blocks and input length of r, taking fresh
// ids after *next. The shared prefix counts for at most the row's
// input_length: AIPerf fails on a row whose every block, the partial last
// one included, is shared ("input_len < prefix_len"); here that partial
// block keeps its size, so such a row keeps its shape.
func (s Synthesis) reshapeRow(r *Request, counts map[int64]int, stretch int64, next *int64) ([]int64, int64, error) {
	b := int64(s.BlockSize)
	n := 0
	for n < len(r.HashIDs) && counts[r.HashIDs[n]] > 1 {
		n++
	}
	prefix := r.HashIDs[:n]
	input := r.InputLength
	if r.Literal || !r.HasInputLength {
		input = 0 // AIPerf's trace.get("input_length", 0)
	}
	full := int64(n) * b
	prefixLen := min(full, max(input, 0))
	short := full - prefixLen // > 0 only when the prefix is the whole row
	promptLen := max(input, 0) - prefixLen

	m := s.PrefixLenMultiplier
	var ids []int64
	var newPrefix int64
	switch {
	case m > 1:
		target := math.Ceil(float64(n) * m)
		if target > maxSynthBlocks {
			return nil, 0, errTooLarge
		}
		ids = make([]int64, 0, int(target))
		for _, h := range prefix {
			for j := range stretch {
				ids = append(ids, h*stretch+j)
			}
		}
		for len(ids) < int(target) {
			*next++
			ids = append(ids, *next)
		}
		newPrefix = max(0, int64(len(ids))*b-short)
	case m < 1:
		// AIPerf keeps max(1, int(n·m)) blocks but counts a block's tokens
		// even when the row has no shared block; counting only the blocks
		// kept keeps the row's length and blocks consistent.
		k := min(n, max(1, int(float64(n)*m)))
		ids = append([]int64(nil), prefix[:k]...)
		newPrefix = int64(k) * b
		if k == n {
			newPrefix = max(0, newPrefix-short)
		}
	default:
		ids = append([]int64(nil), prefix...)
		newPrefix = prefixLen
	}
	scaled := float64(promptLen) * s.PromptLenMultiplier
	if scaled/float64(b)+float64(len(ids)) > maxSynthBlocks {
		return nil, 0, errTooLarge
	}
	newPrompt := int64(scaled)
	for range (newPrompt + b - 1) / b {
		*next++
		ids = append(ids, *next)
	}
	if *next >= maxSynthID {
		return nil, 0, errTooLarge
	}
	if len(ids) == 0 {
		return nil, 0, nil
	}
	return ids, newPrefix + newPrompt, nil
}

// finish applies the caps. A capped input_length drops the blocks past it,
// so that the row still satisfies the hash_ids rule of §4.3 (AIPerf caps
// the length alone, leaving a row its prompt synthesis then rejects).
func (s Synthesis) finish(r *Request) {
	if !r.Literal && !r.HasInputLength && s.Transforms() {
		// AIPerf writes input_length into every row without a literal
		// prompt: its own, or the block size when it has none.
		r.InputLength, r.HasInputLength = int64(s.BlockSize), true
	}
	if s.MaxISL > 0 && !r.Literal && r.HasInputLength && r.InputLength > s.MaxISL {
		r.InputLength = s.MaxISL
		if keep := (s.MaxISL + int64(s.BlockSize) - 1) / int64(s.BlockSize); int64(len(r.HashIDs)) > keep {
			r.HashIDs = r.HashIDs[:keep]
		}
	}
	if s.MaxOSL > 0 && r.HasOutputLength && r.OutputLength > s.MaxOSL {
		r.OutputLength = s.MaxOSL
	}
}
