//go:build race

package runner

// timingSlackMS is the median deviation the media timing tests allow: the
// race detector slows both sides of a loopback exchange by ~10x.
const timingSlackMS = 2.0
