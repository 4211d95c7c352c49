package metrics

import (
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestEnabledForMatchesEnabled sets every bool field of Config and its
// Goodput at random (so that a field added to Config, and read by Enabled
// but left out of enabledSignature, fails here) and checks the cached set
// against each metric's Enabled, asked afresh.
func TestEnabledForMatchesEnabled(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 19))
	for i := 0; i < 2000; i++ {
		var cfg Config
		v := reflect.ValueOf(&cfg).Elem()
		for f := 0; f < v.NumField(); f++ {
			if fv := v.Field(f); fv.Kind() == reflect.Bool {
				fv.SetBool(rng.IntN(2) == 1)
			}
		}
		if rng.IntN(2) == 1 {
			cfg.Goodput = []SLO{{Tag: "request_latency", Threshold: 1}}
		}
		en := enabledFor(&cfg)
		for id := range catalog {
			if want := catalog[id].Enabled(&cfg); en[id] != want {
				t.Fatalf("config %+v: %s enabled %v, Enabled says %v", cfg, catalog[id].Tag, en[id], want)
			}
		}
	}
}
