package dataset

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"math/rand/v2"
)

// Names of the independent random streams derived from a run's seed. Each
// concern draws from its own stream, so changing one setting (say the output
// length) does not shift the values another (the prompts) sees.
const (
	streamISL     = "dataset.prompt.length"
	streamCorpus  = "dataset.prompt.corpus"
	streamOSL     = "dataset.osl"
	streamModel   = "dataset.model"
	streamSampler = "dataset.sampler"

	streamSeqDist      = "dataset.seqdist"              // --seq-dist pair and lengths
	streamTurns        = "dataset.session.turns"        // turns per conversation
	streamDelay        = "dataset.session.delay"        // delays of later turns
	streamPrefixCorpus = "dataset.prompt.prefix.corpus" // prefix pool positions
	streamPrefixPick   = "dataset.prompt.prefix"        // pool entry per first turn
	streamContext      = "dataset.prompt.context"       // shared system and user context positions
	streamRankPassages = "dataset.rankings.passages"    // passages per query
	streamRankPassage  = "dataset.rankings.passages.tokens"
	streamRankQuery    = "dataset.rankings.query.tokens"
)

// deriveRand returns the generator of one named stream of seed: ChaCha8 keyed
// with SHA-256(seed as 8 little-endian bytes || stream). Streams of one seed
// are independent, and the same seed and name always give the same values.
func deriveRand(seed uint64, stream string) *rand.Rand {
	h := sha256.New()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], seed)
	h.Write(b[:])
	h.Write([]byte(stream))
	var key [32]byte
	copy(key[:], h.Sum(nil))
	return rand.New(rand.NewChaCha8(key))
}

// maxRejections bounds the rejection loop of SamplePositiveNormalInt for
// distributions with almost no mass at or above zero.
const maxRejections = 10_000

// SamplePositiveNormalInt returns ceil(x) for x drawn from N(mean, stddev)
// by rejection until x >= 0, as AIPerf's sample_positive_normal_integer. It
// draws from rng only when stddev > 0; stddev <= 0 gives ceil(mean). The
// result is never negative: a negative mean with stddev 0 gives 0, and so does
// a distribution that stays below zero for 10,000 draws. Note that a draw in
// [0, 1) can give 0 when mean is small relative to stddev.
func SamplePositiveNormalInt(rng *rand.Rand, mean, stddev float64) int {
	if stddev <= 0 {
		return max(0, int(math.Ceil(mean)))
	}
	for range maxRejections {
		if x := rng.NormFloat64()*stddev + mean; x >= 0 {
			return int(math.Ceil(x))
		}
	}
	return 0
}
