package multirun

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/runner"
)

// dirs returns the points' directory names.
func dirs(ps []Point) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Dir()
	}
	return out
}

func TestPointsGridAndZip(t *testing.T) {
	cfg := runner.Defaults()
	cfg.Models = []string{"m"}
	cfg.ISLList = []int{32, 64}
	if got := dirs(Points(&cfg)); !slices.Equal(got, []string{"isl_32", "isl_64"}) {
		t.Errorf("isl sweep: %q", got)
	}
	// A grid: every combination, the earlier setting (concurrency, then
	// isl, osl) varying slowest, each list in its given order.
	cfg.ConcurrencyList = []int{2, 1}
	cfg.OSLList = []int{8, 16, 4}
	want := []string{
		"concurrency_2__isl_32__osl_8", "concurrency_2__isl_32__osl_16", "concurrency_2__isl_32__osl_4",
		"concurrency_2__isl_64__osl_8", "concurrency_2__isl_64__osl_16", "concurrency_2__isl_64__osl_4",
		"concurrency_1__isl_32__osl_8", "concurrency_1__isl_32__osl_16", "concurrency_1__isl_32__osl_4",
		"concurrency_1__isl_64__osl_8", "concurrency_1__isl_64__osl_16", "concurrency_1__isl_64__osl_4",
	}
	if got := dirs(Points(&cfg)); !slices.Equal(got, want) {
		t.Errorf("grid: %q", got)
	}
	// Zip: element-wise.
	cfg.SweepType = "zip"
	cfg.ConcurrencyList, cfg.OSLList = nil, []int{128, 256}
	cfg.PromptBatchSizeList = []int{1, 4}
	cfg.NumDatasetEntriesList = []int{10, 20}
	want = []string{"isl_32__osl_128__num_dataset_entries_10__prompt_batch_size_1", "isl_64__osl_256__num_dataset_entries_20__prompt_batch_size_4"}
	if got := dirs(Points(&cfg)); !slices.Equal(got, want) {
		t.Errorf("zip: %q", got)
	}
	// The point's configuration carries its values and no lists.
	c := pointConfig(&cfg, Points(&cfg)[1], 1)
	if c.ISLMean != 64 || c.OSLMean != 256 || c.NumDatasetEntries != 20 || !c.NumDatasetEntriesSet || c.PromptBatchSize != 4 ||
		c.ISLList != nil || c.OSLList != nil || c.NumDatasetEntriesList != nil || c.PromptBatchSizeList != nil {
		t.Errorf("point config %+v", c)
	}
	if l := Points(&cfg)[0].Label(); l != "isl 32, osl 128, num_dataset_entries 10, prompt_batch_size 1" {
		t.Errorf("label %q", l)
	}
}

func TestSweepDestNames(t *testing.T) {
	cfg := runner.Defaults()
	cfg.Models = []string{"org/m"}
	cfg.ISLList = []int{32, 64}
	if got, want := SweepDest(&cfg), filepath.Join("artifacts", "org_m-openai-chat-isl_sweep"); got != want {
		t.Errorf("isl sweep dest %q, want %q", got, want)
	}
	cfg.PromptBatchSizeList = []int{1, 2}
	if got, want := SweepDest(&cfg), filepath.Join("artifacts", "org_m-openai-chat-isl__prompt_batch_size_sweep"); got != want {
		t.Errorf("grid dest %q, want %q", got, want)
	}
}

func TestCheckSweepLists(t *testing.T) {
	base := func() runner.Config {
		cfg := runner.Defaults()
		cfg.Models = []string{"m"}
		cfg.ISLList = []int{32, 64}
		return cfg
	}
	for _, tt := range []struct {
		name string
		edit func(*runner.Config)
		want string // a part of the error; "" when none
	}{
		{"isl sweep", func(*runner.Config) {}, ""},
		{"grid of unequal lists", func(c *runner.Config) { c.OSLList = []int{1, 2, 3} }, ""},
		{"zip of equal lists", func(c *runner.Config) { c.SweepType, c.OSLList = "zip", []int{1, 2} }, ""},
		{"zip of unequal lists", func(c *runner.Config) { c.SweepType, c.OSLList = "zip", []int{1, 2, 3} },
			"--sweep-type zip pairs the lists element-wise, but --isl has 2 values and --osl has 3: give them equal lengths or use --sweep-type grid"},
		{"unknown sweep type", func(c *runner.Config) { c.SweepType = "cross" }, `--sweep-type "cross" is not a way to combine sweep lists: use grid`},
		{"analyze's sweep type", func(c *runner.Config) { c.SweepType = "concurrency" }, "(concurrency is aiperf analyze's --sweep-type)"},
		{"a bad point", func(c *runner.Config) { c.PromptBatchSizeList = []int{2, 0} }, "sweep point isl 32, prompt_batch_size 0: "},
		{"both load lists", func(c *runner.Config) { c.ConcurrencyList, c.RequestRateList = []int{1, 2}, []float64{1, 2} }, "--concurrency and --request-rate cannot both be lists"},
		{"sharded", func(c *runner.Config) { c.ShardCount = 2 }, "sweep lists cannot be sharded"},
		{"too many points", func(c *runner.Config) {
			c.OSLList = make([]int, 40)
			c.NumDatasetEntriesList = make([]int, 30)
		}, "the sweep has 2400 points (more than 1000)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := base()
			tt.edit(&cfg)
			err := Check(&cfg)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one with %q", err, tt.want)
			}
		})
	}
}

func TestApplyAnalyzeSweep(t *testing.T) {
	for _, tt := range []struct {
		name, typ, rng, list string
		edit                 func(*runner.Config)
		check                func(*runner.Config) bool
		want                 string // a part of the error; "" when none
	}{
		{name: "concurrency range", typ: "concurrency", rng: "1:8",
			check: func(c *runner.Config) bool {
				return slices.Equal(c.ConcurrencyList, []int{1, 2, 4, 8}) && c.Concurrency == 1
			}},
		{name: "rate range with step", typ: "request_rate", rng: "100:500:100",
			check: func(c *runner.Config) bool {
				return slices.Equal(c.RequestRateList, []float64{100, 200, 300, 400, 500}) && c.RequestRate == 100
			}},
		{name: "isl list", typ: "input_sequence_length", list: "100,150,200,400",
			check: func(c *runner.Config) bool {
				return slices.Equal(c.ISLList, []int{100, 150, 200, 400}) && c.ISLMean == 100
			}},
		{name: "entries range without step is linear", typ: "num_dataset_entries", rng: "100:103",
			check: func(c *runner.Config) bool {
				return slices.Equal(c.NumDatasetEntriesList, []int{100, 101, 102, 103}) && c.NumDatasetEntries == 100
			}},
		{name: "batch size one value", typ: "batch_size", list: "4",
			check: func(c *runner.Config) bool {
				return slices.Equal(c.PromptBatchSizeList, []int{4}) && c.PromptBatchSize == 4 && len(Points(c)) == 1
			}},
		{name: "sweep type clears grid", typ: "concurrency", list: "1,2", edit: func(c *runner.Config) { c.SweepType = "zip" },
			check: func(c *runner.Config) bool { return c.SweepType == "" && c.AnalyzeSweepType == "concurrency" }},
		{name: "no type", want: "--sweep-type is required: one of concurrency, request_rate, input_sequence_length, num_dataset_entries, batch_size"},
		{name: "osl is not analyze's", typ: "osl", list: "1,2", want: `--sweep-type "osl" is not a setting analyze sweeps`},
		{name: "no values", typ: "concurrency", want: "give --sweep-range min:max[:step] or --sweep-list a,b,c"},
		{name: "both", typ: "concurrency", rng: "1:4", list: "1,2", want: "--sweep-range and --sweep-list are both given"},
		{name: "range without colon", typ: "concurrency", rng: "8", want: `--sweep-range "8": write min:max or min:max:step`},
		{name: "reversed range", typ: "concurrency", rng: "256:8", want: "--sweep-range: range \"256:8\": stop 8 must be greater than start 256"},
		{name: "zero step", typ: "request_rate", rng: "1:8:0", want: "the step must be >= 1"},
		{name: "fraction in list", typ: "input_sequence_length", list: "100,150.5", want: `--sweep-list: "150.5" is not a whole number`},
		{name: "zero in list", typ: "batch_size", list: "0,1", want: "--sweep-list value 0 must be >= 1"},
		{name: "profile list too", typ: "input_sequence_length", list: "1,2", edit: func(c *runner.Config) { c.ConcurrencyList = []int{1, 2} },
			want: "--concurrency has several values, but analyze sweeps only its --sweep-type"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := runner.Defaults()
			if tt.edit != nil {
				tt.edit(&cfg)
			}
			err := ApplyAnalyzeSweep(&cfg, tt.typ, tt.rng, tt.list)
			if tt.want != "" {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("error %v, want one with %q", err, tt.want)
				}
				return
			}
			if err != nil || !tt.check(&cfg) || cfg.AnalyzeSweepType != tt.typ {
				t.Fatalf("err %v, config %+v", err, cfg)
			}
		})
	}
}

func TestAnalyzeDir(t *testing.T) {
	cfg := runner.Defaults()
	cfg.Models = []string{"org/gpt2", "other"}
	for _, tt := range []struct {
		typ, list, want string
	}{
		{"num_dataset_entries", "100", "org_gpt2_multi-openai-chat-num_dataset_entries100"},
		{"batch_size", "4", "org_gpt2_multi-openai-chat-runtime_batch_size4"},
		{"request_rate", "100", "org_gpt2_multi-openai-chat-request_rate100"},
		{"input_sequence_length", "128", "org_gpt2_multi-openai-chat-input_sequence_length128"},
		{"concurrency", "16", "org_gpt2_multi-openai-chat-concurrency16"},
	} {
		c := cfg
		if err := ApplyAnalyzeSweep(&c, tt.typ, "", tt.list); err != nil {
			t.Fatal(err)
		}
		if got := AnalyzeDir(&c, Points(&c)[0]); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.typ, got, tt.want)
		}
	}
	c := cfg
	c.Models, c.ServiceKind, c.Backend = []string{"gpt2"}, "triton", "vllm"
	_ = ApplyAnalyzeSweep(&c, "num_dataset_entries", "100:200:50", "")
	if got := dirs(Points(&c)); len(got) != 3 || AnalyzeDir(&c, Points(&c)[2]) != "gpt2-triton-vllm-num_dataset_entries200" {
		t.Errorf("triton: %q", AnalyzeDir(&c, Points(&c)[2]))
	}
}
