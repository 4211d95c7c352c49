package dataset

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

func TestParseSeqDist(t *testing.T) {
	p := func(isl int, islSD float64, osl int, oslSD, prob float64) SeqPair {
		return SeqPair{ISL: isl, ISLStddev: islSD, OSL: osl, OSLStddev: oslSD, Prob: prob}
	}
	tests := []struct {
		name, in string
		want     []SeqPair
	}{
		{"semicolon", "256,128:60;512,256:40", []SeqPair{p(256, 0, 128, 0, 60), p(512, 0, 256, 0, 40)}},
		{"semicolon stddev", "256|10,128|5:40;512|20.5,256|.5:60", []SeqPair{p(256, 10, 128, 5, 40), p(512, 20.5, 256, 0.5, 60)}},
		{"semicolon spaces", "  256 , 128 : 60 ; 512 | 2 , 256 : 40 ;", []SeqPair{p(256, 0, 128, 0, 60), p(512, 2, 256, 0, 40)}},
		{"semicolon one pair", "100,50:100", []SeqPair{p(100, 0, 50, 0, 100)}},
		{"semicolon empty parts", "100,50:50;;100,60:50", []SeqPair{p(100, 0, 50, 0, 50), p(100, 0, 60, 0, 50)}},
		{"semicolon decimal probs", "1,1:33.3;2,2:33.3;3,3:33.4", []SeqPair{p(1, 0, 1, 0, 33.3), p(2, 0, 2, 0, 33.3), p(3, 0, 3, 0, 33.4)}},
		{"zero probability", "1,1:0;2,2:100", []SeqPair{p(1, 0, 1, 0, 0), p(2, 0, 2, 0, 100)}},
		{"bracket", "[(256,128):60,(512,256):40]", []SeqPair{p(256, 0, 128, 0, 60), p(512, 0, 256, 0, 40)}},
		{"bracket stddev spaces", "[ ( 256|10 , 128|5 ) : 40 , (512|20,256|10):60 ]", []SeqPair{p(256, 10, 128, 5, 40), p(512, 20, 256, 10, 60)}},
		{"json", `{"pairs":[{"isl":256,"isl_stddev":10,"osl":128,"osl_stddev":5,"prob":40},{"isl":512,"osl":256,"prob":60}]}`,
			[]SeqPair{p(256, 10, 128, 5, 40), p(512, 0, 256, 0, 60)}},
		{"json whole float", `{"pairs":[{"isl":256.0,"osl":1e2,"prob":100}]}`, []SeqPair{p(256, 0, 100, 0, 100)}},
		{"tolerance inside", "1,1:50.00005;2,2:50.00005", []SeqPair{p(1, 0, 1, 0, 50.00005), p(2, 0, 2, 0, 50.00005)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ParseSeqDist(tc.in)
			if err != nil {
				t.Fatalf("ParseSeqDist(%q): %v", tc.in, err)
			}
			if !reflect.DeepEqual(d.Pairs, tc.want) {
				t.Errorf("pairs %+v, want %+v", d.Pairs, tc.want)
			}
		})
	}
}

func TestParseSeqDistErrors(t *testing.T) {
	tests := []struct{ name, in, msg string }{
		{"empty", "  ", "empty distribution"},
		{"sum low", "256,128:60;512,256:30", "sum to 90"},
		{"sum high", "256,128:60;512,256:60", "sum to 120"},
		{"tolerance outside", "1,1:50.0002;2,2:50", "sum to 100.0002"},
		{"fractions", "256,128:0.6;512,256:0.4", "sum to 1"},
		{"no colon", "256,128", `pair "256,128"`},
		{"no comma", "256:100", "want ISL[|SD],OSL[|SD]"},
		{"isl not number", "abc,128:100", `isl: "abc" is not a whole number`},
		{"isl decimal", "25.5,128:100", `isl: "25.5" is not a whole number`},
		{"isl negative", "-5,128:100", `isl: "-5" is not a whole number`},
		{"isl zero", "0,128:100", "isl 0: must be > 0"},
		{"osl zero", "10,0:100", "osl 0: must be > 0"},
		{"osl empty", "10,:100", `osl: "" is not a whole number`},
		{"stddev negative", "10|-1,5:100", `isl: stddev: "-1" is not an unsigned decimal`},
		{"stddev empty", "10|,5:100", `isl: stddev: "" is not an unsigned decimal`},
		{"osl stddev bad", "10,5|x:100", `osl: stddev: "x"`},
		{"prob bad", "10,5:abc", `probability: "abc"`},
		{"prob negative", "10,5:-100", `probability: "-100"`},
		{"prob over 100", "10,5:150;10,5:-50", "probability 150: must be in [0, 100]"},
		{"prob exponent", "10,5:1e2", `probability: "1e2"`},
		{"prob trailing dot", "10,5:100.", `probability: "100."`},
		{"only semicolons", ";;", "no pairs"},
		{"bracket empty", "[]", "no pairs"},
		{"bracket no paren", "[256,128:100]", "want (ISL[|SD],OSL[|SD]):PROB"},
		{"bracket missing close", "[(256,128:100]", "missing ')'"},
		{"bracket missing prob", "[(256,128)]", "want ':PROB' after ')'"},
		{"bracket bad isl", "[(x,128):100]", `pair "(x,128):100": isl`},
		{"bracket trailing comma", "[(256,128):100,]", "trailing ','"},
		{"bracket junk between", "[(256,128):60 junk,(512,256):40]", `probability: "60 junk"`},
		{"bracket sum", "[(256,128):60,(512,256):30]", "sum to 90"},
		{"json invalid", `{"pairs":[`, "json:"},
		{"json no pairs", `{"pair":[]}`, `unknown field "pair"`},
		{"json pairs missing", `{}`, `missing key "pairs"`},
		{"json pairs empty", `{"pairs":[]}`, `"pairs" is empty`},
		{"json pairs not list", `{"pairs":5}`, "json:"},
		{"json missing keys", `{"pairs":[{"isl":1}]}`, "pair 0: missing key(s) osl, prob"},
		{"json unknown key", `{"pairs":[{"isl":1,"osl":1,"prob":100,"probability":1}]}`, `pair 0: json: unknown field "probability"`},
		{"json fractional isl", `{"pairs":[{"isl":1.5,"osl":1,"prob":100}]}`, "pair 0: isl 1.5: must be a whole number"},
		{"json string value", `{"pairs":[{"isl":"1","osl":1,"prob":100}]}`, "pair 0:"},
		{"json negative stddev", `{"pairs":[{"isl":1,"osl":1,"prob":100,"osl_stddev":-2}]}`, "osl stddev -2: must be a number >= 0"},
		{"json prob range", `{"pairs":[{"isl":1,"osl":1,"prob":101},{"isl":1,"osl":1,"prob":-1}]}`, "pair 0: probability 101: must be in [0, 100]"},
		{"json trailing", `{"pairs":[{"isl":1,"osl":1,"prob":100}]} {}`, "text after the object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSeqDist(tc.in)
			if err == nil {
				t.Fatalf("ParseSeqDist(%q): no error", tc.in)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("ParseSeqDist(%q): %v; want it to mention %q", tc.in, err, tc.msg)
			}
		})
	}
}

// constSource returns the same 64 bits on every call: Float64 then gives
// (v mod 2^53)/2^53.
type constSource uint64

func (s constSource) Uint64() uint64 { return uint64(s) }

// TestSeqDistSampleBoundary checks the cumulative pick: with 50/50 pairs,
// u just below 0.5 picks the first and u = 0.5 the second (numpy
// searchsorted side="right").
func TestSeqDistSampleBoundary(t *testing.T) {
	d := SeqDist{Pairs: []SeqPair{{ISL: 1, OSL: 2, Prob: 50}, {ISL: 3, OSL: 4, Prob: 50}}}
	for _, tc := range []struct {
		u        uint64 // u·2^-53
		isl, osl int
	}{{0, 1, 2}, {1<<52 - 1, 1, 2}, {1 << 52, 3, 4}, {1<<53 - 1, 3, 4}} {
		isl, osl := d.Sample(rand.New(constSource(tc.u)))
		if isl != tc.isl || osl != tc.osl {
			t.Errorf("u=%d/2^53: (%d, %d), want (%d, %d)", tc.u, isl, osl, tc.isl, tc.osl)
		}
	}
	// Probabilities that round below 1 leave the top of [0,1) to the last pair.
	short := SeqDist{Pairs: []SeqPair{{ISL: 1, OSL: 1, Prob: 10}, {ISL: 2, OSL: 2, Prob: 10}}}
	if isl, _ := short.Sample(rand.New(constSource(1<<53 - 1))); isl != 2 {
		t.Errorf("u≈1 with cumulative 0.2: isl %d, want the last pair's 2", isl)
	}
}

// TestSeqDistFrequencies draws 10,000 pairs and checks each pair's share is
// within four binomial standard deviations of its probability.
func TestSeqDistFrequencies(t *testing.T) {
	d, err := ParseSeqDist("100,10:50;200,20:30;300,30:15;400,40:5")
	if err != nil {
		t.Fatal(err)
	}
	const n = 10_000
	rng := deriveRand(42, streamSeqDist)
	counts := map[int]int{}
	for range n {
		isl, osl := d.Sample(rng)
		if osl*10 != isl {
			t.Fatalf("pair (%d, %d) mixes two pairs", isl, osl)
		}
		counts[isl]++
	}
	for _, p := range d.Pairs {
		q := p.Prob / 100
		sd := math.Sqrt(n * q * (1 - q))
		if got := float64(counts[p.ISL]); math.Abs(got-n*q) > 4*sd {
			t.Errorf("pair %d drawn %g times, want %g ± %.0f", p.ISL, got, n*q, 4*sd)
		}
	}
}

// TestSeqDistStddev checks lengths spread around the pair's means: the mean
// of ceil(N(μ, σ)) is μ + ~0.5.
func TestSeqDistStddev(t *testing.T) {
	d, err := ParseSeqDist("1000|100,500|50:100")
	if err != nil {
		t.Fatal(err)
	}
	rng := deriveRand(7, streamSeqDist)
	const n = 4000
	var sumI, sumO float64
	distinct := map[int]bool{}
	for range n {
		isl, osl := d.Sample(rng)
		sumI += float64(isl)
		sumO += float64(osl)
		distinct[isl] = true
	}
	// Standard errors: 100/√4000 ≈ 1.6 and 0.8.
	if m := sumI / n; math.Abs(m-1000.5) > 7 {
		t.Errorf("mean ISL %g, want 1000.5 ± 7", m)
	}
	if m := sumO / n; math.Abs(m-500.5) > 4 {
		t.Errorf("mean OSL %g, want 500.5 ± 4", m)
	}
	if len(distinct) < 100 {
		t.Errorf("only %d distinct ISLs", len(distinct))
	}
}

func TestSeqDistString(t *testing.T) {
	d, err := ParseSeqDist(`{"pairs":[{"isl":256,"isl_stddev":10.5,"osl":128,"prob":60},{"isl":512,"osl":256,"osl_stddev":3,"prob":40}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d.String(), "256|10.5,128:60;512,256|3:40"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func FuzzParseSeqDist(f *testing.F) {
	for _, s := range []string{
		"256,128:60;512,256:40", "256|10,128|5:40;512|20,256|10:60", "[(256,128):60,(512,256):40]",
		"[(256|10,128|5):40,(512|20,256|10):60]", `{"pairs":[{"isl":256,"isl_stddev":10,"osl":128,"osl_stddev":5,"prob":100}]}`,
		"1,1:.5;1,1:99.5", "[(1,1):100,]", "", ";", "{", "[", "[()]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseSeqDist(s)
		if err != nil {
			return
		}
		total := 0.0
		for _, p := range d.Pairs {
			if err := checkSeqPair(p); err != nil {
				t.Fatalf("accepted an invalid pair %+v: %v", p, err)
			}
			total += p.Prob
		}
		if math.Abs(total-100) > seqDistTolerance {
			t.Fatalf("accepted probabilities summing to %g", total)
		}
		back, err := ParseSeqDist(d.String())
		if err != nil || !reflect.DeepEqual(back.Pairs, d.Pairs) {
			t.Fatalf("String %q does not read back: %+v, %v", d.String(), back.Pairs, err)
		}
		isl, osl := d.Sample(rand.New(rand.NewPCG(1, 2)))
		if isl < 1 || osl < 1 {
			t.Fatalf("Sample gave (%d, %d)", isl, osl)
		}
	})
}
