package dataset

import "math/rand/v2"

// plannedText is one text to cut: length tokens from corpus token start,
// after prefix pool entry prefix (-1 for none).
type plannedText struct{ start, length, prefix int }

// plannedTurn is what the random streams decide for one turn, drawn in order
// before any text is built so that parallel building stays deterministic.
type plannedTurn struct {
	texts     []plannedText // rankings: the query, then the passages
	model     string
	maxTokens int
	delayMS   float64
}

// plannedConv is one conversation's turns and the corpus position of its
// user context prompt (-1 for none).
type plannedConv struct {
	turns   []plannedTurn
	context int
}

// synthPlan is every random draw of one Synthetic call.
type synthPlan struct {
	convs      []plannedConv
	poolStarts []int // prefix pool entries' corpus positions
	shared     int   // shared system prompt's corpus position, or -1
	tokens     int   // tokens to cut in all, to choose the fast path
}

func (p *synthPlan) addTokens(texts []plannedText) {
	for _, t := range texts {
		p.tokens += t.length
	}
}

// plan draws every random value in a fixed order, one stream per concern:
// changing one setting leaves the draws of the others unchanged, and a
// feature that is off draws nothing.
func (cfg *SyntheticConfig) plan(corpusLen int) *synthPlan {
	p := &synthPlan{convs: make([]plannedConv, cfg.NumEntries), shared: -1}
	if cfg.Rankings != nil {
		cfg.planRankings(p, corpusLen)
		cfg.planModels(p)
		return p
	}
	pool, prefixLen := cfg.prefixPool()
	if pool > 0 {
		rng := deriveRand(cfg.Seed, streamPrefixCorpus)
		p.poolStarts = make([]int, pool)
		for k := range p.poolStarts {
			p.poolStarts[k] = rng.IntN(corpusLen)
		}
		p.tokens += pool * prefixLen
	}
	ctxRng := deriveRand(cfg.Seed, streamContext)
	if cfg.SharedSystemPromptLength > 0 {
		p.shared = ctxRng.IntN(corpusLen)
		p.tokens += cfg.SharedSystemPromptLength
	}

	isl := deriveRand(cfg.Seed, streamISL)
	pos := deriveRand(cfg.Seed, streamCorpus)
	turns := deriveRand(cfg.Seed, streamTurns)
	delay := deriveRand(cfg.Seed, streamDelay)
	seq := deriveRand(cfg.Seed, streamSeqDist)
	prefixPick := deriveRand(cfg.Seed, streamPrefixPick)
	batch := max(cfg.BatchSize, 1)
	ratio := cfg.SessionDelayRatio
	if ratio == 0 {
		ratio = 1
	}

	for i := range p.convs {
		c := &p.convs[i]
		c.turns = make([]plannedTurn, max(1, SamplePositiveNormalInt(turns, cfg.SessionTurnsMean, cfg.SessionTurnsStddev)))
		c.context = -1
		for t := range c.turns {
			pt := &c.turns[t]
			seqISL := 0
			if len(cfg.SeqDist.Pairs) > 0 {
				seqISL, pt.maxTokens = cfg.SeqDist.Sample(seq)
			}
			pt.texts = make([]plannedText, batch)
			for b := range pt.texts {
				length := seqISL
				if len(cfg.SeqDist.Pairs) == 0 {
					length = SamplePositiveNormalInt(isl, cfg.ISLMean, cfg.ISLStddev)
				}
				pt.texts[b] = plannedText{length: length, start: pos.IntN(corpusLen), prefix: -1}
				if t == 0 && len(p.poolStarts) > 0 {
					pt.texts[b].prefix = prefixPick.IntN(len(p.poolStarts))
					p.tokens += prefixLen
				}
			}
			p.addTokens(pt.texts)
			if t > 0 && cfg.SessionTurnDelayMean > 0 {
				pt.delayMS = float64(SamplePositiveNormalInt(delay, cfg.SessionTurnDelayMean, cfg.SessionTurnDelayStddev)) * ratio
			}
		}
		if cfg.UserContextPromptLength > 0 {
			c.context = ctxRng.IntN(corpusLen)
			p.tokens += cfg.UserContextPromptLength
		}
	}
	cfg.planModels(p)
	return p
}

// planModels assigns each turn, in order, a model and (without --seq-dist)
// its max_tokens.
func (cfg *SyntheticConfig) planModels(p *synthPlan) {
	osl := deriveRand(cfg.Seed, streamOSL)
	pick := deriveRand(cfg.Seed, streamModel)
	n := 0
	for i := range p.convs {
		for t := range p.convs[i].turns {
			pt := &p.convs[i].turns[t]
			pt.model = cfg.pickModel(pick, n)
			n++
			if len(cfg.SeqDist.Pairs) == 0 && cfg.OSLMean > 0 {
				// Turn.MaxTokens 0 means "none", so a draw of 0 becomes 1.
				pt.maxTokens = max(1, SamplePositiveNormalInt(osl, cfg.OSLMean, cfg.OSLStddev))
			}
		}
	}
}

// pickModel returns turn n's model: round robin over the turns of all
// conversations, or a uniform draw from pick.
func (cfg *SyntheticConfig) pickModel(pick *rand.Rand, n int) string {
	if cfg.ModelStrategy == ModelRandom {
		return cfg.Models[pick.IntN(len(cfg.Models))]
	}
	return cfg.Models[n%len(cfg.Models)]
}

// prefixPool returns the prefix pool size and prompt length. As AIPerf's
// configuration does, setting one of --num-prefix-prompts and
// --prefix-prompt-length gives the other its default: a pool of 1, or
// prompts of 128 tokens.
func (cfg *SyntheticConfig) prefixPool() (pool, length int) {
	pool, length = cfg.NumPrefixPrompts, cfg.PrefixPromptLength
	switch {
	case pool <= 0 && length <= 0:
		return 0, 0
	case pool <= 0:
		pool = 1
	case length <= 0:
		length = 128
	}
	return pool, length
}
