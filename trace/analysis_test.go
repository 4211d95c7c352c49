package trace

import (
	"bytes"
	"errors"
	"math"
	"os"
	"strings"
	"testing"
)

// handTrace exercises every stat; its expectations are worked out by hand
// in TestAnalyzeHandComputed. Block size 100. Line 3 is blank.
const handTrace = `{"input_length": 250, "output_length": 10, "hash_ids": [1, 2, 3]}
{"input_length": 180, "output_length": 20, "hash_ids": [1, 2]}

{"input_length": 300, "output_length": 30, "hash_ids": [1, 4, 3]}
{"input_length": 90, "output_length": 40}
{"input_length": 150, "output_length": 50, "hash_ids": [5, 2]}
{"input_length": 120, "output_length": 60, "hash_ids": [5, 2], "timestamp": 7, "extra": {"x": [1]}}
`

func TestAnalyzeHandComputed(t *testing.T) {
	a, err := Analyze(strings.NewReader(handTrace), 100)
	if err != nil {
		t.Fatal(err)
	}
	// Rows (blank line skipped): R1 [1 2 3], R2 [1 2], R4 [1 4 3], R5 none,
	// R6 [5 2], R7 [5 2].
	//
	// Prefixes: R1 (1)(1,2)(1,2,3); R2 (1)(1,2); R4 (1)(1,4)(1,4,3);
	// R6 (5)(5,2); R7 (5)(5,2). Distinct: (1)(1,2)(1,2,3)(1,4)(1,4,3)(5)(5,2)
	// = 7. Counts 3,2,1,1,1,2,2: Σ = 12 = 3+2+3+2+2 blocks; those seen more
	// than once: 3+2+2+2 = 9, so reuse = 9/12 = 0.75.
	// First blocks: 1 starts 3 rows, 5 starts 2 rows → 2 prefix groups.
	//
	// Hit rates, cache filled in file order:
	//   R1: nothing seen → 0/3 = 0            seen {1,2,3}
	//   R2: 1,2 seen → 2/2 = 1
	//   R4: 1 seen, 4 not → 1/3               seen {1,2,3,4}
	//   R6: 5 not seen → 0/2 = 0              seen {1,2,3,4,5}
	//   R7: 5,2 seen → 2/2 = 1
	// cache_hit_rate = (0+1+1/3+0+1)/5 = 7/15, by statistics.mean: the
	// exact mean of the floats rounded once = 0.4666666666666667, while
	// np.mean (hit_rate_stats.mean) sums in float: 0.4666666666666666.
	//
	// (position, hash_id) pairs: (0,1)×3 (1,2)×4 (2,3)×2 (1,4)×1 (0,5)×2.
	// Context: R1 all repeated → isl 250; R2 all → 180; R4 (1,4) unique,
	// 2 repeated → 2×100 = 200; R5 no hash_ids → 0; R6 all → 150; R7 all
	// → 120. Unique prompt = isl − context: 0, 0, 100, 90, 0, 0.
	want := Analysis{
		TotalRequests:    6,
		UniquePrefixes:   7,
		NumPrefixGroups:  2,
		CacheHitRate:     0.4666666666666667,
		MinISL:           90,
		MaxISL:           300,
		AvgISL:           1090.0 / 6, // 250+180+300+90+150+120 = 1090
		MinOSL:           10,
		MaxOSL:           60,
		AvgOSL:           35, // 210/6
		PrefixReuseRatio: 0.75,
		// ISL sorted 90 120 150 180 250 300. p25: index 5×.25 = 1.25 →
		// 120 + .25×30 = 127.5; median (150+180)/2 = 165; p75: index 3.75
		// → 180 + .75×70 = 232.5. var = (6×229900 − 1090²)/36 = 191300/36
		// (Σx² = 62500+32400+90000+8100+22500+14400 = 229900).
		ISLStats: &Stats{Mean: 1090.0 / 6, StdDev: math.Sqrt(191300) / 6, Min: 90, P25: 127.5, Median: 165, P75: 232.5, Max: 300},
		// OSL 10..60: p25 20 + .25×10 = 22.5, median 35, p75 40 + .75×10 =
		// 47.5; deviations ±25 ±15 ±5: var = 2×(625+225+25)/6 = 1750/6.
		OSLStats: &Stats{Mean: 35, StdDev: math.Sqrt(1750.0 / 6), Min: 10, P25: 22.5, Median: 35, P75: 47.5, Max: 60},
		// Context 250 180 200 0 150 120, sorted 0 120 150 180 200 250: mean
		// 900/6 = 150; p25 120 + .25×30 = 127.5; median (150+180)/2 = 165;
		// p75 180 + .75×20 = 195; deviations 100 30 50 −150 0 −30: var =
		// (10000+900+2500+22500+0+900)/6 = 36800/6.
		ContextLengthStats: &Stats{Mean: 150, StdDev: math.Sqrt(36800.0 / 6), Min: 0, P25: 127.5, Median: 165, P75: 195, Max: 250},
		// Unique 0 0 100 90 0 0, sorted 0 0 0 0 90 100: mean 190/6; p25 0;
		// median 0; p75 0 + .75×90 = 67.5; var = (6×18100 − 190²)/36 =
		// 72500/36.
		UniquePromptLengthStats: &Stats{Mean: 190.0 / 6, StdDev: math.Sqrt(72500) / 6, Min: 0, P25: 0, Median: 0, P75: 67.5, Max: 100},
		// Hit rates 0 1 1/3 0 1, sorted 0 0 1/3 1 1: p25 index 1 → 0; median
		// 1/3; p75 index 3 → 1; deviations from 7/15: −7 8 −2 −7 8 (/15):
		// var = (49+64+4+49+64)/225/5 = 230/1125.
		HitRateStats: &Stats{Mean: 0.4666666666666666, StdDev: math.Sqrt(230.0 / 1125), Min: 0, P25: 0, Median: 1.0 / 3, P75: 1, Max: 1},
	}
	checkAnalysis(t, a, &want)
}

// checkAnalysis compares counts exactly and floats to within 1e-13
// relative (hand arithmetic need not round like numpy's).
func checkAnalysis(t *testing.T, got, want *Analysis) {
	t.Helper()
	if got.TotalRequests != want.TotalRequests || got.UniquePrefixes != want.UniquePrefixes ||
		got.NumPrefixGroups != want.NumPrefixGroups || got.MinISL != want.MinISL || got.MaxISL != want.MaxISL ||
		got.MinOSL != want.MinOSL || got.MaxOSL != want.MaxOSL {
		t.Errorf("counts: got %+v\nwant %+v", *got, *want)
	}
	near(t, "cache_hit_rate", got.CacheHitRate, want.CacheHitRate)
	near(t, "avg_isl", got.AvgISL, want.AvgISL)
	near(t, "avg_osl", got.AvgOSL, want.AvgOSL)
	near(t, "prefix_reuse_ratio", got.PrefixReuseRatio, want.PrefixReuseRatio)
	for _, s := range []struct {
		name      string
		got, want *Stats
	}{
		{"isl_stats", got.ISLStats, want.ISLStats},
		{"osl_stats", got.OSLStats, want.OSLStats},
		{"context_length_stats", got.ContextLengthStats, want.ContextLengthStats},
		{"unique_prompt_length_stats", got.UniquePromptLengthStats, want.UniquePromptLengthStats},
		{"hit_rate_stats", got.HitRateStats, want.HitRateStats},
	} {
		if (s.got == nil) != (s.want == nil) {
			t.Errorf("%s: got %+v, want %+v", s.name, s.got, s.want)
			continue
		}
		if s.got == nil {
			continue
		}
		near(t, s.name+".mean", s.got.Mean, s.want.Mean)
		near(t, s.name+".std_dev", s.got.StdDev, s.want.StdDev)
		near(t, s.name+".min", s.got.Min, s.want.Min)
		near(t, s.name+".p25", s.got.P25, s.want.P25)
		near(t, s.name+".median", s.got.Median, s.want.Median)
		near(t, s.name+".p75", s.got.P75, s.want.P75)
		near(t, s.name+".max", s.got.Max, s.want.Max)
	}
}

func near(t *testing.T, name string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-13*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %v, want %v", name, got, want)
	}
}

func TestAnalyzeDocsExample(t *testing.T) {
	// A copy of shared/spec/fixtures/docs-examples/custom_trace.jsonl.
	f, err := os.Open("testdata/custom_trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, err := Analyze(f, DefaultBlockSize)
	if err != nil {
		t.Fatal(err)
	}
	// R1 1200/52 [0 1 2]; R2 1800/26 [0 3 4 5]; R3 1300/52 [1 4 6].
	// Prefixes (0)(0,1)(0,1,2) (0)(0,3)(0,3,4)(0,3,4,5) (1)(1,4)(1,4,6):
	// 9 distinct of 10 occurrences, only (0) twice → reuse 2/10 = 0.2.
	// First blocks 0 0 1 → 1 prefix group.
	// Hit rates: R1 0/3; R2 0 seen, 3 not → 1/4; R3 1 and 4 seen (R1, R2),
	// 6 not → 2/3. Mean (0 + .25 + 2/3)/3 = 11/36 (exact mean of the
	// floats, rounded: 0.3055555555555555).
	// Pairs: only (0,0) repeats ((1,4) ≠ (2,4)). Context: R1 1×512, R2
	// 1×512, R3 0 → 512 512 0; unique 688 1288 1300.
	// ISL 1200 1300 1800: p25 1200 + .5×100 = 1250, median 1300, p75 1300
	// + .5×500 = 1550; var = (1200²+1800²+1300²)/3 − (4300/3)² = 620000/9.
	// OSL 52 26 52: sorted 26 52 52 → p25 39, median 52, p75 52; var =
	// (2×52²+26²)/3 − (130/3)² = 1352/9.
	// Context 512 512 0: mean 1024/3, p25 0 + .5×512 = 256; var =
	// 2×512²/3 − (1024/3)² = 524288/9.
	// Unique 688 1288 1300 (sorted): mean 3276/3 = 1092, p25 988, p75 1294;
	// var = (404² + 196² + 208²)/3 = 244896/3.
	// Hit rates 0 .25 2/3: mean 11/36, p25 .125, median .25, p75 .25 +
	// .5×(2/3 − .25) = 11/24; var = (0 + 1/16 + 4/9)/3 − (11/36)² = 73/432 − 121/1296 = 98/1296.
	want := Analysis{
		TotalRequests: 3, UniquePrefixes: 9, NumPrefixGroups: 1,
		CacheHitRate: 11.0 / 36,
		MinISL:       1200, MaxISL: 1800, AvgISL: 4300.0 / 3,
		MinOSL: 26, MaxOSL: 52, AvgOSL: 130.0 / 3,
		PrefixReuseRatio:        0.2,
		ISLStats:                &Stats{Mean: 4300.0 / 3, StdDev: math.Sqrt(620000.0 / 9), Min: 1200, P25: 1250, Median: 1300, P75: 1550, Max: 1800},
		OSLStats:                &Stats{Mean: 130.0 / 3, StdDev: math.Sqrt(1352.0 / 9), Min: 26, P25: 39, Median: 52, P75: 52, Max: 52},
		ContextLengthStats:      &Stats{Mean: 1024.0 / 3, StdDev: math.Sqrt(524288.0 / 9), Min: 0, P25: 256, Median: 512, P75: 512, Max: 512},
		UniquePromptLengthStats: &Stats{Mean: 1092, StdDev: math.Sqrt(244896.0 / 3), Min: 688, P25: 988, Median: 1288, P75: 1294, Max: 1300},
		HitRateStats:            &Stats{Mean: 11.0 / 36, StdDev: math.Sqrt(98.0 / 1296), Min: 0, P25: 0.125, Median: 0.25, P75: 11.0 / 24, Max: 2.0 / 3},
	}
	checkAnalysis(t, a, &want)

	// And byte for byte what AIPerf 0.13.0 wrote for this file.
	wantJSON, err := os.ReadFile("testdata/custom_trace.aiperf.json")
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := a.WriteJSON(&got); err != nil {
		t.Fatal(err)
	}
	if got.String() != string(wantJSON) {
		t.Errorf("WriteJSON:\n%s\nwant (AIPerf):\n%s", got.String(), wantJSON)
	}
}

// TestAnalyzeMatchesAIPerf compares generated traces with what AIPerf
// 0.13.0's PrefixAnalyzer wrote for the same files, byte for byte:
//   - generated: 20,000 rows with rows without hash_ids, repeats, integral
//     floats, CRLF and blank lines, so numpy's pairwise sums, sorting and
//     percentiles run over more than 8,192 values;
//   - scattered: 5,000 rows whose ids are spread over the int64 range and
//     recur under other prefixes and at other positions.
func TestAnalyzeMatchesAIPerf(t *testing.T) {
	for _, tt := range []struct {
		name string
		data []byte
	}{
		{"generated", genTrace(20000, 42, genOpts{quirks: true})},
		{"scattered", genTrace(5000, 43, genOpts{quirks: true, scatter: true})},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dumpGenerated(t, tt.name, tt.data)
			a, err := Analyze(bytes.NewReader(tt.data), DefaultBlockSize)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile("testdata/" + tt.name + ".aiperf.json")
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := a.WriteJSON(&got); err != nil {
				t.Fatal(err)
			}
			if got.String() != string(want) {
				t.Errorf("WriteJSON:\n%s\nwant (AIPerf):\n%s", got.String(), want)
			}
		})
	}
}

func TestAnalyzeEdgeCases(t *testing.T) {
	tests := []struct {
		name  string
		trace string
		block int
		check func(t *testing.T, a *Analysis)
	}{
		{"empty", "", 512, func(t *testing.T, a *Analysis) {
			if *a != (Analysis{}) {
				t.Errorf("got %+v, want all zero and nil stats", *a)
			}
		}},
		{"blank lines only", "\n  \r\n\t\n", 512, func(t *testing.T, a *Analysis) {
			if a.TotalRequests != 0 {
				t.Errorf("total %d", a.TotalRequests)
			}
		}},
		{"no hash_ids anywhere", `{"input_length": 10, "output_length": 2}` + "\n" + `{"input_length": 30, "hash_ids": null}` + "\n" + `{"output_length": 4, "hash_ids": []}`, 512, func(t *testing.T, a *Analysis) {
			// Missing lengths count 0: ISL 10 30 0, OSL 2 0 4.
			if a.TotalRequests != 3 || a.UniquePrefixes != 0 || a.NumPrefixGroups != 0 || a.CacheHitRate != 0 ||
				a.PrefixReuseRatio != 0 || a.HitRateStats != nil || a.MinISL != 0 || a.MaxISL != 30 || a.MaxOSL != 4 {
				t.Errorf("got %+v", *a)
			}
			// Context 0 everywhere; unique = isl.
			if s := a.UniquePromptLengthStats; s.Max != 30 || s.Mean != 40.0/3 || a.ContextLengthStats.Max != 0 {
				t.Errorf("unique %+v context %+v", *s, *a.ContextLengthStats)
			}
		}},
		{"CR, CRLF and no final newline", "{\"input_length\": 1, \"hash_ids\": [7]}\r{\"input_length\": 2, \"hash_ids\": [7]}\r\n{\"input_length\": 3}", 512, func(t *testing.T, a *Analysis) {
			// Both [7] rows fully repeated → context = isl; 2nd row hits.
			if a.TotalRequests != 3 || a.UniquePrefixes != 1 || a.NumPrefixGroups != 1 || a.CacheHitRate != 0.5 ||
				a.ContextLengthStats.Max != 2 || a.PrefixReuseRatio != 1 {
				t.Errorf("got %+v", *a)
			}
		}},
		{"integral floats equal integers", `{"input_length": 1.2e3, "output_length": 5.0, "hash_ids": [3.0, 4]}` + "\n" + `{"input_length": 600, "hash_ids": [3, 4.0]}`, 512, func(t *testing.T, a *Analysis) {
			// Python: (3.0, 4) == (3, 4.0): one path of 2 prefixes, both twice.
			if a.MaxISL != 1200 || a.MaxOSL != 5 || a.UniquePrefixes != 2 || a.PrefixReuseRatio != 1 || a.CacheHitRate != 0.5 {
				t.Errorf("got %+v", *a)
			}
		}},
		{"duplicates within a row", `{"input_length": 1000, "hash_ids": [9, 9]}`, 512, func(t *testing.T, a *Analysis) {
			// (9) and (9,9) are two prefixes; (0,9) and (1,9) two pairs, each
			// once: context 0. The hit rate is 0 (9 unseen before the row).
			if a.UniquePrefixes != 2 || a.NumPrefixGroups != 0 || a.CacheHitRate != 0 || a.ContextLengthStats.Max != 0 {
				t.Errorf("got %+v", *a)
			}
		}},
		{"repeated blocks outsize input_length", `{"input_length": 100, "hash_ids": [1, 2]}` + "\n" + `{"input_length": 100, "hash_ids": [1, 3]}`, 512, func(t *testing.T, a *Analysis) {
			// One repeated pair each → context 512 > isl: unique −412.
			if s := a.UniquePromptLengthStats; s.Min != -412 || s.Max != -412 {
				t.Errorf("unique %+v", *s)
			}
		}},
		{"last duplicate key wins", `{"input_length": 5, "input_length": 7, "hash_ids": [1], "hash_ids": [2, 3]}`, 512, func(t *testing.T, a *Analysis) {
			if a.MaxISL != 7 || a.UniquePrefixes != 2 {
				t.Errorf("got %+v", *a)
			}
		}},
		{"a malformed value replaced by a later one", `{"input_length": "x", "hash_ids": ["y"], "input_length": 4, "hash_ids": [1]}`, 512, func(t *testing.T, a *Analysis) {
			// orjson keeps the last value of a repeated key, so AIPerf
			// never sees the bad ones.
			if a.MaxISL != 4 || a.UniquePrefixes != 1 {
				t.Errorf("got %+v", *a)
			}
		}},
		{"escaped key", `{"input\u005flength": 5}`, 512, func(t *testing.T, a *Analysis) {
			if a.MaxISL != 5 {
				t.Errorf("got %+v", *a)
			}
		}},
		{"keys are case-sensitive", `{"Input_Length": 5}`, 512, func(t *testing.T, a *Analysis) {
			if a.MaxISL != 0 {
				t.Errorf("got %+v", *a)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := Analyze(strings.NewReader(tt.trace), tt.block)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, a)
		})
	}
}

func TestAnalyzeMalformedLines(t *testing.T) {
	ok := `{"input_length": 1, "output_length": 1, "hash_ids": [1]}` + "\n"
	tests := []struct {
		name, line string
		want       string
		field      string
	}{
		{"isl string", `{"input_length": "12"}`, "line 3: input_length: not an integer", "input_length"},
		{"isl fraction", `{"input_length": 12.5}`, "line 3: input_length: not an integer", "input_length"},
		{"isl null", `{"input_length": null}`, "line 3: input_length: not an integer", "input_length"},
		{"isl bool", `{"input_length": true}`, "line 3: input_length: not an integer", "input_length"},
		{"isl negative", `{"input_length": -1}`, "line 3: input_length: negative", "input_length"},
		{"isl too big", `{"input_length": 99999999999999999999}`, "line 3: input_length: out of the int64 range", "input_length"},
		{"osl object", `{"output_length": {"a": 1}}`, "line 3: output_length: not an integer", "output_length"},
		{"hash_ids string", `{"hash_ids": "1,2"}`, "line 3: hash_ids: not a list of integers", "hash_ids"},
		{"hash_ids number", `{"hash_ids": 5}`, "line 3: hash_ids: not a list of integers", "hash_ids"},
		{"hash_ids element", `{"hash_ids": [1, 2, "x"]}`, "line 3: hash_ids: element 2: not an integer", "hash_ids"},
		{"hash_ids nested", `{"hash_ids": [[1]]}`, "line 3: hash_ids: element 0: not an integer", "hash_ids"},
		{"hash_ids later element", `{"hash_ids": [1, "x", 2, 3.5]}`, "line 3: hash_ids: element 1: not an integer", "hash_ids"},
		{"fields in order", `{"hash_ids": [true], "output_length": -1, "input_length": "x"}`, "line 3: input_length: not an integer", "input_length"},
		{"bad value then good then bad", `{"output_length": 1.5, "output_length": 2, "output_length": []}`, "line 3: output_length: not an integer", "output_length"},
		{"syntax beats a bad field", `{"input_length": "x", "y": }`, "line 3: invalid JSON at column 28: want a value", ""},
		{"syntax after a bad element", `{"hash_ids": ["x", ]}`, "line 3: invalid JSON at column 20: want a value", ""},
		{"invalid UTF-8", "{\"session_id\": \"\xff\"}", "line 3: invalid UTF-8", ""},
		{"not JSON", `input_length=5`, "line 3: invalid JSON at column 1: want an object", ""},
		{"array", `[1, 2]`, "line 3: invalid JSON at column 1: want an object", ""},
		{"truncated", `{"input_length": 5`, "line 3: invalid JSON at column 19: want ',' or '}' after object value", ""},
		{"trailing data", `{"input_length": 5} {}`, "line 3: invalid JSON at column 21: data after the object", ""},
		{"bad unknown value", `{"x": [1, }`, "line 3: invalid JSON at column 11: want a value", ""},
		{"trailing comma", `{"input_length": 5,}`, "line 3: invalid JSON at column 20: want a string", ""},
		{"NaN", `{"x": NaN}`, "line 3: invalid JSON at column 7: want a value", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Line 2 is blank: blank lines count in line numbers.
			_, err := Analyze(strings.NewReader(ok+"\n"+tt.line+"\n"+ok), 512)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			var le *LineError
			if !errors.As(err, &le) || le.Line != 3 || le.Field != tt.field {
				t.Errorf("LineError = %+v, want line 3 field %q", le, tt.field)
			}
		})
	}
}

func TestAnalyzeRejectsBadBlockSize(t *testing.T) {
	for _, bs := range []int{0, -512} {
		if _, err := Analyze(strings.NewReader(""), bs); err == nil {
			t.Errorf("block size %d accepted", bs)
		}
	}
}

// errReader fails after its data.
type errReader struct{ data []byte }

func (r *errReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, errors.New("disk on fire")
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestAnalyzeReadError(t *testing.T) {
	_, err := Analyze(&errReader{data: []byte(`{"input_length": 1}` + "\n")}, 512)
	if err == nil || err.Error() != "read trace: disk on fire" {
		t.Errorf("err = %v", err)
	}
}

func FuzzAnalyze(f *testing.F) {
	f.Add([]byte(handTrace), 100)
	f.Add(genTrace(30, 1, genOpts{quirks: true, scatter: true}), 512)
	f.Add([]byte(`{"input_length": 1e3, "hash_ids": [1, -2, 9223372036854775807]}`+"\r"), 1)
	f.Add([]byte(`{"a": [{"b": ["\u00e9\n", -0.5e-3, true, false, null]}], "hash_ids": null}`), 512)
	f.Fuzz(func(t *testing.T, data []byte, blockSize int) {
		a, err := Analyze(bytes.NewReader(data), blockSize)
		if err != nil {
			return
		}
		if a.TotalRequests < 0 || a.UniquePrefixes < 0 || a.NumPrefixGroups > a.UniquePrefixes {
			t.Fatalf("bad counts %+v", *a)
		}
		for _, r := range []float64{a.CacheHitRate, a.PrefixReuseRatio} {
			if !(r >= 0 && r <= 1) {
				t.Fatalf("rate out of [0,1]: %+v", *a)
			}
		}
		if a.TotalRequests > 0 && (a.ISLStats == nil || a.ISLStats.Min != float64(a.MinISL) || a.ISLStats.Max != float64(a.MaxISL)) {
			t.Fatalf("isl stats disagree with min/max: %+v", *a)
		}
		if err := a.WriteReport(&bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
		if err := a.WriteJSON(&bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
	})
}
