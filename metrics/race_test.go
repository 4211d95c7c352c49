//go:build race

package metrics

// raceEnabled skips the slowest tests under the race detector.
const raceEnabled = true
