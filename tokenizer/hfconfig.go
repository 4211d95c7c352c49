package tokenizer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// hfConfig is what transformers takes from a tokenizer's configuration
// beyond tokenizer.json itself: the BOS and EOS token ids (bos_token_id,
// eos_token_id) and whether decoding cleans up spaces before punctuation
// (clean_up_tokenization_spaces).
type hfConfig struct {
	bos, eos       int
	hasBOS, hasEOS bool
	cleanUp        bool
}

// blockSeparator is AIPerf's "tokenizer.bos_token_id or
// tokenizer.eos_token_id" (§4.3), Python truthiness included: a BOS id of 0
// counts as absent, so the EOS id is used, and with no EOS there is none.
func (s hfConfig) blockSeparator() (int, bool) {
	if s.hasBOS && s.bos != 0 {
		return s.bos, true
	}
	if s.hasEOS {
		return s.eos, true
	}
	return 0, false
}

// Names of BOS and EOS tokens in common tokenizers, used only when no
// tokenizer_config.json names them (a bare tokenizer.json, or a config
// without the key, whose class would supply a default in transformers, as
// GPT-2's does).
var (
	knownBOS = []string{"<|begin_of_text|>", "<s>", "<bos>", "<|startoftext|>", "<｜begin▁of▁sentence｜>"}
	knownEOS = []string{"<|end_of_text|>", "</s>", "<eos>", "<|endoftext|>", "<｜end▁of▁sentence｜>"}
)

// tokenizerJSON is the part of a tokenizer.json that names special tokens.
type tokenizerJSON struct {
	AddedTokens []struct {
		ID      int    `json:"id"`
		Content string `json:"content"`
		Special bool   `json:"special"`
	} `json:"added_tokens"`
	PostProcessor json.RawMessage `json:"post_processor"`
	raw           []byte          // the whole file, for a vocabulary lookup
}

// readTokenizerJSON reads the top-level keys of a tokenizer.json until it
// has added_tokens and post_processor. Files written by the tokenizers
// library have both before "model", which is most of the file (several MB
// for a 128k vocabulary), so that is seldom read here; the Rust library
// parses (and validates) the whole file anyway.
func readTokenizerJSON(data []byte) (tokenizerJSON, error) {
	tj := tokenizerJSON{raw: data}
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil {
		return tj, err
	} else if t != json.Delim('{') {
		return tj, fmt.Errorf("not a JSON object")
	}
	for seen := 0; seen < 2 && dec.More(); {
		t, err := dec.Token()
		if err != nil {
			return tj, err
		}
		switch key, _ := t.(string); key {
		case "added_tokens":
			err = dec.Decode(&tj.AddedTokens)
			seen++
		case "post_processor":
			err = dec.Decode(&tj.PostProcessor)
			seen++
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			return tj, fmt.Errorf("%v: %w", t, err)
		}
	}
	return tj, nil
}

// postProcessor is a TemplateProcessing post-processor, or a Sequence of
// them; its single-sequence template starts with the BOS when the model
// adds one.
type postProcessor struct {
	Type       string          `json:"type"`
	Processors []postProcessor `json:"processors"`
	Single     []struct {
		SpecialToken *struct {
			ID string `json:"id"`
		} `json:"SpecialToken"`
	} `json:"single"`
	SpecialTokens map[string]struct {
		IDs []int `json:"ids"`
	} `json:"special_tokens"`
}

// tokenizerConfig is the part of a tokenizer_config.json that names special
// tokens. A present key holding null means "none"; an absent key means the
// config does not say.
type tokenizerConfig struct {
	CleanUp      *bool           `json:"clean_up_tokenization_spaces"`
	BOS          json.RawMessage `json:"bos_token"`
	EOS          json.RawMessage `json:"eos_token"`
	AddedDecoder map[string]struct {
		Content string `json:"content"`
	} `json:"added_tokens_decoder"`
}

// parseConfig reads the configuration of the tokenizer in tokJSON (a
// tokenizer.json) from cfgJSON (its tokenizer_config.json; nil when there
// is none). clean_up_tokenization_spaces absent means false, transformers'
// default since v4.45. The BOS and EOS are the tokens the config's
// bos_token/eos_token name (a string or an AddedToken object; null means
// none), looked up in the added tokens, the config's added_tokens_decoder,
// then the model's vocabulary. Where the config does not name one, the BOS
// is the special token that starts the post-processor's single-sequence
// template, else a well-known BOS name among the added special tokens, and
// the EOS a well-known EOS name among them. A named token with no id
// counts as absent. It fails only on malformed JSON.
func parseConfig(tokJSON, cfgJSON []byte) (hfConfig, error) {
	tj, err := readTokenizerJSON(tokJSON)
	if err != nil {
		return hfConfig{}, fmt.Errorf("tokenizer.json: %w", err)
	}
	var cfg tokenizerConfig
	if cfgJSON != nil {
		if err := json.Unmarshal(cfgJSON, &cfg); err != nil {
			return hfConfig{}, fmt.Errorf("tokenizer_config.json: %w", err)
		}
	}
	lookup := idLookup(&tj, &cfg)

	var s hfConfig
	s.cleanUp = cfg.CleanUp != nil && *cfg.CleanUp
	if cfg.BOS != nil {
		s.bos, s.hasBOS = configToken(cfg.BOS, lookup)
	} else if id, ok := templateBOS(tj.PostProcessor); ok {
		s.bos, s.hasBOS = id, true
	} else {
		s.bos, s.hasBOS = knownSpecial(&tj, knownBOS)
	}
	if cfg.EOS != nil {
		s.eos, s.hasEOS = configToken(cfg.EOS, lookup)
	} else {
		s.eos, s.hasEOS = knownSpecial(&tj, knownEOS)
	}
	return s, nil
}

// idLookup returns a function that maps a token's text to its id, trying
// the added tokens, the config's added_tokens_decoder, then the vocabulary
// (decoded only if needed: it is most of a tokenizer.json).
func idLookup(tj *tokenizerJSON, cfg *tokenizerConfig) func(string) (int, bool) {
	var vocab map[string]int
	vocabDone := false
	return func(content string) (int, bool) {
		for _, t := range tj.AddedTokens {
			if t.Content == content {
				return t.ID, true
			}
		}
		for key, t := range cfg.AddedDecoder {
			if t.Content == content {
				if id, err := strconv.Atoi(key); err == nil {
					return id, true
				}
			}
		}
		if !vocabDone {
			vocabDone = true
			var m struct {
				Model struct {
					Vocab json.RawMessage `json:"vocab"`
				} `json:"model"`
			}
			// A BPE or WordPiece vocabulary is an object; a Unigram one is
			// a list of [piece, score] pairs, which has no ids to find here.
			if json.Unmarshal(tj.raw, &m) == nil && bytes.HasPrefix(bytes.TrimSpace(m.Model.Vocab), []byte("{")) {
				_ = json.Unmarshal(m.Model.Vocab, &vocab)
			}
		}
		id, ok := vocab[content]
		return id, ok
	}
}

// configToken reads a bos_token/eos_token value: null, a string, or an
// AddedToken object {"content": ...}; an unreadable value counts as absent.
func configToken(raw json.RawMessage, lookup func(string) (int, bool)) (int, bool) {
	var content string
	if err := json.Unmarshal(raw, &content); err != nil {
		var obj struct {
			Content *string `json:"content"`
		}
		if json.Unmarshal(raw, &obj) != nil || obj.Content == nil {
			return 0, false
		}
		content = *obj.Content
	}
	if content == "" {
		return 0, false
	}
	return lookup(content)
}

// templateBOS returns the id of the special token that starts a
// TemplateProcessing post-processor's single-sequence template, looking
// inside a Sequence of post-processors.
func templateBOS(raw json.RawMessage) (int, bool) {
	if len(raw) == 0 {
		return 0, false
	}
	var pp postProcessor
	if json.Unmarshal(raw, &pp) != nil {
		return 0, false
	}
	return pp.firstSpecial()
}

func (pp *postProcessor) firstSpecial() (int, bool) {
	switch pp.Type {
	case "Sequence":
		for i := range pp.Processors {
			if id, ok := pp.Processors[i].firstSpecial(); ok {
				return id, true
			}
		}
	case "TemplateProcessing":
		if len(pp.Single) == 0 || pp.Single[0].SpecialToken == nil {
			return 0, false
		}
		st, ok := pp.SpecialTokens[pp.Single[0].SpecialToken.ID]
		if ok && len(st.IDs) == 1 {
			return st.IDs[0], true
		}
	}
	return 0, false
}

// knownSpecial returns the id of the first of names that is an added
// special token.
func knownSpecial(tj *tokenizerJSON, names []string) (int, bool) {
	for _, name := range names {
		for _, t := range tj.AddedTokens {
			if t.Special && t.Content == name {
				return t.ID, true
			}
		}
	}
	return 0, false
}

// cleanUpPairs are transformers' clean_up_tokenization replacements, in
// its order.
var cleanUpPairs = [...][2]string{
	{" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"},
	{" n't", "n't"}, {" 'm", "'m"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"},
}

// cleanUpTokenization is transformers' clean_up_tokenization: one
// replace-all pass per pair, in order, as its chained str.replace calls do
// (a single multi-pattern pass would differ where one replacement creates
// a match for a later pattern).
func cleanUpTokenization(s string) string {
	for _, p := range cleanUpPairs {
		if strings.Contains(s, p[0]) {
			s = strings.ReplaceAll(s, p[0], p[1])
		}
	}
	return s
}
