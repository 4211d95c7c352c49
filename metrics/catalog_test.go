package metrics

import (
	"slices"
	"testing"
)

func TestCatalogOrderAndUniqueness(t *testing.T) {
	cat := Catalog()
	if len(cat) != int(numIDs) {
		t.Fatalf("len(Catalog()) = %d, want %d", len(cat), numIDs)
	}
	tagSeen, orderSeen := map[string]bool{}, map[int]bool{}
	for i, m := range cat {
		if i > 0 && cat[i-1].DisplayOrder >= m.DisplayOrder {
			t.Errorf("%s (order %d) is not after %s (%d)", m.Tag, m.DisplayOrder, cat[i-1].Tag, cat[i-1].DisplayOrder)
		}
		if tagSeen[m.Tag] || orderSeen[m.DisplayOrder] {
			t.Errorf("duplicate tag or order: %s %d", m.Tag, m.DisplayOrder)
		}
		tagSeen[m.Tag], orderSeen[m.DisplayOrder] = true, true
		if got, ok := Lookup(m.Tag); !ok || got != m {
			t.Errorf("Lookup(%s) = %v, %v", m.Tag, got, ok)
		}
	}
	if _, ok := Lookup("ttft"); ok {
		t.Error("Lookup(ttft) found a short header")
	}
	cat[0].Tag = "changed"
	if Catalog()[0].Tag == "changed" {
		t.Error("Catalog returned shared storage")
	}
}

// consoleTags lists the console rows of a configuration in display order.
func consoleTags(cfg *Config) []string {
	var out []string
	for _, m := range Catalog() {
		if m.Console(cfg) {
			out = append(out, m.Tag)
		}
	}
	return out
}

func enabledTags(cfg *Config) []string {
	var out []string
	for _, m := range Catalog() {
		if m.Enabled(cfg) {
			out = append(out, m.Tag)
		}
	}
	return out
}

func TestConsoleRows(t *testing.T) {
	goodput := []SLO{{Tag: "time_to_first_token", Threshold: 100}}
	tests := []struct {
		name string
		cfg  Config
		want []string
	}{
		{
			name: "streaming chat with goodput (§8.1)",
			cfg:  Config{Streaming: true, ProducesTokens: true, TokenizesInput: true, Goodput: goodput},
			want: []string{
				"time_to_first_token", "time_to_second_token", "time_to_first_output_token",
				"request_latency", "inter_token_latency", "output_token_throughput_per_user",
				"output_sequence_length", "input_sequence_length", "output_token_throughput",
				"request_throughput", "goodput", "request_count",
			},
		},
		{
			name: "non-streaming chat (fixture baseline-chat)",
			cfg:  Config{ProducesTokens: true, TokenizesInput: true},
			want: []string{
				"request_latency", "e2e_output_token_throughput", "output_sequence_length",
				"input_sequence_length", "output_token_throughput", "request_throughput", "request_count",
			},
		},
		{
			name: "embeddings",
			cfg:  Config{TokenizesInput: true},
			want: []string{"request_latency", "input_sequence_length", "request_throughput", "request_count"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := consoleTags(&tt.cfg); !slices.Equal(got, tt.want) {
				t.Errorf("console rows\n got %v\nwant %v", got, tt.want)
			}
		})
	}
}

func TestEnabled(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		present []string
		absent  []string
	}{
		{
			name:    "non-streaming has no streaming metrics",
			cfg:     Config{ProducesTokens: true, TokenizesInput: true},
			present: []string{"e2e_output_token_throughput", "usage_completion_tokens_diff_pct", "output_token_count"},
			absent: []string{"time_to_first_token", "time_to_second_token", "time_to_first_output_token",
				"inter_token_latency", "inter_chunk_latency", "output_token_throughput_per_user",
				"decode_duration", "prefill_throughput_per_user", "goodput", "good_request_count"},
		},
		{
			name:    "embeddings have no token output metrics",
			cfg:     Config{TokenizesInput: true},
			present: []string{"input_sequence_length", "total_isl", "error_isl", "usage_prompt_tokens", "usage_prompt_tokens_diff_pct"},
			absent: []string{"output_sequence_length", "output_token_count", "reasoning_token_count",
				"output_token_throughput", "total_token_throughput", "e2e_output_token_throughput",
				"usage_completion_tokens", "osl_mismatch_count"},
		},
		{
			name:    "server token counts disable usage diffs",
			cfg:     Config{Streaming: true, ProducesTokens: true, TokenizesInput: true, UseServerTokenCount: true},
			present: []string{"usage_prompt_tokens", "time_to_first_token"},
			absent: []string{"usage_prompt_tokens_diff_pct", "usage_completion_tokens_diff_pct",
				"usage_reasoning_tokens_diff_pct", "usage_discrepancy_count"},
		},
		{
			name:    "goodput only when configured",
			cfg:     Config{ProducesTokens: true, Goodput: []SLO{{Tag: "request_latency", Threshold: 1}}},
			present: []string{"goodput", "good_request_count", "good_request_fraction"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := enabledTags(&tt.cfg)
			for _, tag := range tt.present {
				if !slices.Contains(got, tag) {
					t.Errorf("%s not enabled", tag)
				}
			}
			for _, tag := range tt.absent {
				if slices.Contains(got, tag) {
					t.Errorf("%s enabled", tag)
				}
			}
		})
	}
}

func TestExported(t *testing.T) {
	for _, m := range Catalog() {
		internal := m.Tag == "min_request_timestamp" || m.Tag == "max_response_timestamp"
		if m.Exported() == internal {
			t.Errorf("%s: Exported() = %v", m.Tag, m.Exported())
		}
	}
}
