//go:build race

package dataset

// raceEnabled shrinks the slowest tests under the race detector.
const raceEnabled = true
