package metrics

// Console groups of Result.Group: the tables AIPerf 0.13 prints (its
// MetricConsoleGroup), titled "NVIDIA AIPerf | <title>: Effective" and so
// on, the default group's table titled "NVIDIA AIPerf | <title>". Runs of
// the 1.0 schema put every result in GroupDefault.
const (
	GroupEffective = "effective"
	GroupActive    = "active"
	GroupUsage     = "usage"
	GroupDefault   = ""
)

// ConsoleGroups lists the console groups in the order AIPerf 0.13 prints
// their tables: effective and active first, the default table last.
var ConsoleGroups = [...]string{GroupEffective, GroupActive, GroupUsage, GroupDefault}

// consoleRow is where AIPerf 0.13 shows a catalogue metric: its console
// group and display order (which differs from 0.8's for the usage metrics).
type consoleRow struct {
	group string
	order int
}

// console14 holds the catalogue metrics AIPerf 0.13 shows on the console
// (console_group DEFAULT or USAGE, read from its MetricRegistry); the
// others (console_group NONE, or ERROR_ONLY) are only in the files.
var console14 = map[string]consoleRow{
	"time_to_first_token":              {GroupDefault, 100},
	"time_to_second_token":             {GroupDefault, 200},
	"time_to_first_output_token":       {GroupDefault, 210},
	"request_latency":                  {GroupDefault, 300},
	"video_inference_time":             {GroupDefault, 310},
	"video_peak_memory":                {GroupDefault, 311},
	"decode_duration":                  {GroupDefault, 350},
	"inter_token_latency":              {GroupDefault, 400},
	"output_token_throughput_per_user": {GroupDefault, 500},
	"e2e_output_token_throughput":      {GroupDefault, 510},
	"output_sequence_length":           {GroupDefault, 600},
	"input_sequence_length":            {GroupDefault, 700},
	"output_token_throughput":          {GroupDefault, 800},
	"input_token_throughput":           {GroupDefault, 805},
	"request_throughput":               {GroupDefault, 900},
	"goodput":                          {GroupDefault, 1000},
	"completed_request_count":          {GroupDefault, 1075},
	"request_error_rate":               {GroupDefault, 1080},
	"request_count":                    {GroupDefault, 1100},

	"usage_prompt_tokens":                  {GroupUsage, 1000},
	"usage_prompt_cache_read_tokens":       {GroupUsage, 1010},
	"usage_completion_tokens":              {GroupUsage, 1100},
	"usage_reasoning_tokens":               {GroupUsage, 1110},
	"usage_total_tokens":                   {GroupUsage, 1200},
	"total_usage_prompt_tokens":            {GroupUsage, 2000},
	"total_usage_prompt_cache_read_tokens": {GroupUsage, 2010},
	"overall_usage_prompt_cache_read_pct":  {GroupUsage, 2012},
	"total_usage_completion_tokens":        {GroupUsage, 2100},
	"total_usage_reasoning_tokens":         {GroupUsage, 2110},
	"total_usage_total_tokens":             {GroupUsage, 2200},
}

// ConsoleGroup returns the console group and display order of the metric
// in a run configured by cfg: AIPerf 0.13's for a Schema14 run, else
// GroupDefault and DisplayOrder.
func (m *Metric) ConsoleGroup(cfg *Config) (group string, order int) {
	if cfg.Schema14 {
		if row, ok := console14[m.Tag]; ok {
			return row.group, row.order
		}
	}
	return GroupDefault, m.DisplayOrder
}

// headers14 are the headers AIPerf 0.13 changed.
var headers14 = map[string]string{
	"usage_prompt_tokens_diff_pct": "Usage Prompt Diff %",
}

// HeaderFor returns the metric's header in a run configured by cfg: AIPerf
// 0.13's for a Schema14 run (it renamed a few), else Header.
func (m *Metric) HeaderFor(cfg *Config) string {
	if h, ok := headers14[m.Tag]; ok && cfg.Schema14 {
		return h
	}
	return m.Header
}
