//go:build !race

package runner

// timingSlackMS is the median deviation the media timing tests allow.
const timingSlackMS = 0.2
