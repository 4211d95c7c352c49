package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/internal/command"
)

// TestFloatFlagsRefuseNaN: every number flag refuses NaN and infinities
// with a usage error naming the flag, before anything is sent.
func TestFloatFlagsRefuseNaN(t *testing.T) {
	for _, args := range [][]string{
		{"--request-rate", "NaN"}, {"--request-rate", "10,inf"}, {"--arrival-smoothness", "NaN"},
		{"--isl", "+Inf"}, {"--fixed-schedule-start-offset", "nan"}, {"--lateness-threshold-ms", "inf"},
		{"--audio-sample-rates", "16,NaN"}, {"--confidence-level", "-inf"},
	} {
		_, err := parseProfile(append([]string{"--model", "m"}, args...))
		var ue *command.UsageError
		if err == nil || !errors.As(err, &ue) || !strings.Contains(err.Error(), args[0]) || !strings.Contains(err.Error(), "finite") {
			t.Errorf("%q: err %v, want a usage error naming %s", args, err, args[0])
		}
	}
}
