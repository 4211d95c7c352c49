package dataset

import "math/rand/v2"

// NewRand returns the generator of the named stream of seed, derived as the
// synthetic generator derives its own (ChaCha8 keyed with SHA-256 of the seed
// and the name): the same seed and name always give the same values, and
// different names give independent streams. Loaders outside this package
// (public datasets, custom files) use it so that their draws follow the
// run's --random-seed too. The generator is not safe for concurrent use.
func NewRand(seed uint64, stream string) *rand.Rand {
	return deriveRand(seed, stream)
}
