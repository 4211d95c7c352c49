package dataset

import "fmt"

// RankingsConfig shapes synthetic rankings turns (§4.4, --rankings-*): one
// query and a number of passages per turn, each of a length drawn with
// SamplePositiveNormalInt.
type RankingsConfig struct {
	// PassagesMean and PassagesStddev give the passages per query
	// (--rankings-passages-mean/-stddev).
	PassagesMean, PassagesStddev float64
	// PassageTokensMean and PassageTokensStddev give each passage's length
	// (--rankings-passages-prompt-token-mean/-stddev).
	PassageTokensMean, PassageTokensStddev float64
	// QueryTokensMean and QueryTokensStddev give the query's length
	// (--rankings-query-prompt-token-mean/-stddev).
	QueryTokensMean, QueryTokensStddev float64
}

// DefaultRankings returns AIPerf's defaults: 1 passage of 550 tokens and a
// query of 550 tokens, no spread.
func DefaultRankings() RankingsConfig {
	return RankingsConfig{PassagesMean: 1, PassageTokensMean: 550, QueryTokensMean: 550}
}

func (r *RankingsConfig) validate() error {
	for _, v := range []struct {
		name string
		v    float64
	}{
		{"rankings passages mean", r.PassagesMean}, {"rankings passages stddev", r.PassagesStddev},
		{"rankings passage tokens mean", r.PassageTokensMean}, {"rankings passage tokens stddev", r.PassageTokensStddev},
		{"rankings query tokens mean", r.QueryTokensMean}, {"rankings query tokens stddev", r.QueryTokensStddev},
	} {
		if !(v.v >= 0) {
			return fmt.Errorf("%s %g: must be >= 0", v.name, v.v)
		}
	}
	return nil
}

// planRankings draws the rankings turns: per conversation the passage count
// (its own stream), the query length and each passage's length (one stream
// each), and corpus positions, query first, from the prompt corpus stream.
// A rankings turn's texts are the query then the passages.
func (cfg *SyntheticConfig) planRankings(p *synthPlan, corpusLen int) {
	r := cfg.Rankings
	count := deriveRand(cfg.Seed, streamRankPassages)
	passLen := deriveRand(cfg.Seed, streamRankPassage)
	queryLen := deriveRand(cfg.Seed, streamRankQuery)
	pos := deriveRand(cfg.Seed, streamCorpus)
	for i := range p.convs {
		n := SamplePositiveNormalInt(count, r.PassagesMean, r.PassagesStddev)
		texts := make([]plannedText, 1+n)
		texts[0] = plannedText{length: SamplePositiveNormalInt(queryLen, r.QueryTokensMean, r.QueryTokensStddev), prefix: -1}
		texts[0].start = pos.IntN(corpusLen)
		for k := 1; k <= n; k++ {
			texts[k] = plannedText{length: SamplePositiveNormalInt(passLen, r.PassageTokensMean, r.PassageTokensStddev), prefix: -1}
			texts[k].start = pos.IntN(corpusLen)
		}
		p.convs[i] = plannedConv{turns: []plannedTurn{{texts: texts}}, context: -1}
		p.addTokens(texts)
	}
}
