package tokenizer

import (
	"testing"
)

// Fragments of real tokenizer files (ids as in the models' own files).
const (
	llama3Added = `"added_tokens":[{"id":128000,"content":"<|begin_of_text|>","special":true},` +
		`{"id":128001,"content":"<|end_of_text|>","special":true},{"id":128009,"content":"<|eot_id|>","special":true}]`
	llama3Template = `"post_processor":{"type":"Sequence","processors":[{"type":"ByteLevel"},` +
		`{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<|begin_of_text|>","type_id":0}},` +
		`{"Sequence":{"id":"A","type_id":0}}],"special_tokens":{"<|begin_of_text|>":{"id":"<|begin_of_text|>","ids":[128000]}}}]}`
	qwen3Added = `"added_tokens":[{"id":151643,"content":"<|endoftext|>","special":true},` +
		`{"id":151644,"content":"<|im_start|>","special":true},{"id":151645,"content":"<|im_end|>","special":true}]`
	gpt2Added = `"added_tokens":[{"id":50256,"content":"<|endoftext|>","special":true}]`
)

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name     string
		tok, cfg string // cfg "" = no tokenizer_config.json
		want     hfConfig
		sep      int
		sepOK    bool
	}{
		{"llama3 config", `{` + llama3Added + `}`,
			`{"bos_token":"<|begin_of_text|>","eos_token":"<|end_of_text|>","clean_up_tokenization_spaces":true}`,
			hfConfig{bos: 128000, eos: 128001, hasBOS: true, hasEOS: true, cleanUp: true}, 128000, true},
		{"llama3 instruct eos", `{` + llama3Added + `}`, `{"bos_token":"<|begin_of_text|>","eos_token":"<|eot_id|>"}`,
			hfConfig{bos: 128000, eos: 128009, hasBOS: true, hasEOS: true}, 128000, true},
		{"llama3 bare tokenizer.json: template BOS, known EOS", `{` + llama3Added + `,` + llama3Template + `}`, "",
			hfConfig{bos: 128000, eos: 128001, hasBOS: true, hasEOS: true}, 128000, true},
		{"qwen3: bos null", `{` + qwen3Added + `}`,
			`{"bos_token":null,"eos_token":"<|im_end|>","clean_up_tokenization_spaces":false}`,
			hfConfig{eos: 151645, hasEOS: true}, 151645, true},
		{"AddedToken objects", `{` + qwen3Added + `}`,
			`{"bos_token":{"__type":"AddedToken","content":"<|im_start|>"},"eos_token":{"content":"<|endoftext|>"}}`,
			hfConfig{bos: 151644, eos: 151643, hasBOS: true, hasEOS: true}, 151644, true},
		{"gpt2: config without the keys", `{` + gpt2Added + `}`, `{"model_max_length":1024}`,
			hfConfig{eos: 50256, hasEOS: true}, 50256, true},
		{"id from added_tokens_decoder", `{"added_tokens":[]}`,
			`{"bos_token":"<s>","added_tokens_decoder":{"1":{"content":"<s>"},"2":{"content":"</s>"}},"eos_token":"</s>"}`,
			hfConfig{bos: 1, eos: 2, hasBOS: true, hasEOS: true}, 1, true},
		{"id from the vocabulary", `{"model":{"type":"BPE","vocab":{"<s>":5,"</s>":6}}}`,
			`{"bos_token":"<s>","eos_token":"</s>"}`,
			hfConfig{bos: 5, eos: 6, hasBOS: true, hasEOS: true}, 5, true},
		{"unigram vocabulary has no ids to find", `{"model":{"type":"Unigram","vocab":[["<s>",0.0]]}}`,
			`{"bos_token":"<s>"}`, hfConfig{}, 0, false},
		{"named token missing", `{` + gpt2Added + `}`, `{"bos_token":"<nope>","eos_token":""}`,
			hfConfig{}, 0, false},
		// AIPerf's `bos_token_id or eos_token_id`: a BOS id of 0 is falsy.
		{"BOS id 0 falls through to EOS", `{"added_tokens":[{"id":0,"content":"<s>","special":true},{"id":2,"content":"</s>","special":true}]}`,
			"", hfConfig{bos: 0, eos: 2, hasBOS: true, hasEOS: true}, 2, true},
		{"BOS id 0 and no EOS", `{"added_tokens":[{"id":0,"content":"<s>","special":true}]}`,
			`{"eos_token":null}`, hfConfig{hasBOS: true}, 0, false},
		{"not special: no heuristic match", `{"added_tokens":[{"id":7,"content":"</s>","special":false}]}`, "",
			hfConfig{}, 0, false},
		{"nothing", `{}`, "", hfConfig{}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var cfg []byte
			if tt.cfg != "" {
				cfg = []byte(tt.cfg)
			}
			got, err := parseConfig([]byte(tt.tok), cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("parseConfig = %+v, want %+v", got, tt.want)
			}
			sep, ok := got.blockSeparator()
			if sep != tt.sep || ok != tt.sepOK {
				t.Errorf("blockSeparator = %d, %v, want %d, %v", sep, ok, tt.sep, tt.sepOK)
			}
		})
	}
}

func TestParseConfigMalformed(t *testing.T) {
	if _, err := parseConfig([]byte(`{"added_tokens":`), nil); err == nil {
		t.Error("malformed tokenizer.json accepted")
	}
	if _, err := parseConfig([]byte(`{}`), []byte(`[`)); err == nil {
		t.Error("malformed tokenizer_config.json accepted")
	}
	// A wrongly typed bos_token is ignored, as an unreadable value.
	got, err := parseConfig([]byte(`{`+gpt2Added+`}`), []byte(`{"bos_token":42,"eos_token":"<|endoftext|>"}`))
	if err != nil || got != (hfConfig{eos: 50256, hasEOS: true}) {
		t.Errorf("parseConfig = %+v, %v", got, err)
	}
}

// Expectations worked by hand from transformers' clean_up_tokenization
// (chained str.replace calls).
func TestCleanUpTokenization(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Hello , world !", "Hello, world!"},
		{"Is it ? Yes .", "Is it? Yes."},
		{"I do n't know , I 'm sure it 's fine", "I don't know, I'm sure it's fine"},
		{"we 've and they 're", "we've and they're"},
		{"rock ' n ' roll", "rock'n'roll"},
		{"!!! ??? ...", "!!!???..."},
		// Chained passes: " ' " → "'" first makes " 'm", which a later pass
		// cleans; a single multi-pattern pass would leave "a 'm".
		{"a  ' m", "a'm"},
		{"no change here", "no change here"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := cleanUpTokenization(tt.in); got != tt.want {
			t.Errorf("cleanUpTokenization(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(`{`+llama3Added+`,`+llama3Template+`}`), []byte(`{"bos_token":"<|begin_of_text|>"}`))
	f.Add([]byte(`{`+qwen3Added+`}`), []byte(`{"bos_token":null,"eos_token":{"content":"<|im_end|>"}}`))
	f.Add([]byte(`{"model":{"vocab":[["a",1]]}}`), []byte(`{"added_tokens_decoder":{"x":{"content":"a"}},"bos_token":"a"}`))
	f.Fuzz(func(t *testing.T, tok, cfg []byte) {
		got, err := parseConfig(tok, cfg)
		if err != nil {
			return
		}
		if id, ok := got.blockSeparator(); ok && id != got.bos && id != got.eos {
			t.Errorf("separator %d is neither BOS nor EOS of %+v", id, got)
		}
	})
}
