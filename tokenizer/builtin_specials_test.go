package tokenizer

import "testing"

// o200k_base has no BOS token; its <|endoftext|> is 199999 (tiktoken's
// o200k_base special_tokens), so AIPerf's "bos_token_id or eos_token_id"
// is 199999.
func TestBuiltinBlockSeparator(t *testing.T) {
	sp, ok := builtinForTest(t).(Specials)
	if !ok {
		t.Fatal("builtin does not implement Specials")
	}
	if id, ok := sp.BlockSeparator(); id != 199999 || !ok {
		t.Errorf("BlockSeparator = %d, %v, want 199999, true", id, ok)
	}
}

// The ids are tiktoken's own (see o200kCases): DecodeWithSpecial keeps the
// special tokens' text where Decode skips it.
func TestBuiltinDecodeWithSpecial(t *testing.T) {
	tok := builtinForTest(t)
	sp := tok.(Specials)
	tests := []struct {
		ids                []int
		withSpecial, plain string
	}{
		{[]int{24912, 199999, 2375}, "hello<|endoftext|> world", "hello world"},
		{[]int{64, 200018, 199999, 65}, "a<|endofprompt|><|endoftext|>b", "ab"},
		{[]int{199999}, "<|endoftext|>", ""},
		{[]int{87, 220, 199999, 198}, "x <|endoftext|>\n", "x \n"},
		{[]int{24912, 199998, 2375}, "hello world", "hello world"}, // 199998 is unused
		{nil, "", ""},
	}
	for _, tt := range tests {
		if got := sp.DecodeWithSpecial(tt.ids); got != tt.withSpecial {
			t.Errorf("DecodeWithSpecial(%v) = %q, want %q", tt.ids, got, tt.withSpecial)
		}
		if got := tok.Decode(tt.ids); got != tt.plain {
			t.Errorf("Decode(%v) = %q, want %q", tt.ids, got, tt.plain)
		}
	}
}
