package metrics

import (
	"slices"
	"strings"

	"github.com/aiperf-go/aiperf/record"
	"github.com/aiperf-go/aiperf/tokenizer"
)

// recordOrder is the order of a record's values in profile_export.jsonl:
// AIPerf's dependency order (§3.2 example), goodput and error ISL last.
var recordOrder = [...]metricID{
	idISL, idTTFT, idTTST, idTTFO, idLatency, idVideoInference, idVideoPeakMemory, idDecode,
	idOutputTokens, idReasoningTokens, idICL, idOSL, idITL, idOTPU,
	idPrefill, idE2E,
	idUsagePrompt, idUsageCompletion, idUsageTotal, idUsageReasoning, idUsageCacheRead,
	idPromptDiff, idCompletionDiff, idReasoningDiff, idOSLDiff,
	idHTTPBlocked, idHTTPDNS, idHTTPConnecting, idHTTPSending, idHTTPWaiting,
	idHTTPReceiving, idHTTPReused, idHTTPDataSent, idHTTPChunksSent,
	idHTTPDataReceived, idHTTPChunksReceived, idHTTPOverhead, idHTTPDuration,
	idHTTPTotal,
	idGoodCount, idErrISL,
}

// Compute returns the per-record metric values of rec in display units, in
// a stable order (input_sequence_length, time_to_first_token, ...), as
// written to profile_export.jsonl. A valid record gets every enabled record
// metric that has a value (ITL needs OSL >= 2, TTST two content responses,
// ...); an invalid one gets only error_isl, when its ISL is known. INTERNAL,
// EXPERIMENTAL and NO_INDIVIDUAL_RECORDS metrics are never included.
// Compute keeps no state but a cache of the enabled metrics per
// configuration (enabledFor), and is safe for concurrent use.
func Compute(cfg *Config, rec *record.Record) []RecordValue {
	var v Values
	v.compute(cfg, rec)
	return v.Append(nil)
}

// ComputeValues computes what Compute returns and keeps it compactly
// (values is Values.Append's expansion): ~0.7 KB for a streamed record of
// AIPerf 0.13's metrics where the expanded slice takes ~2.8 KB, which
// matters while thousands of records wait to be consumed (issue 19). It
// is safe for concurrent use, as Compute.
func ComputeValues(cfg *Config, rec *record.Record) *Values {
	v := &Values{}
	v.compute(cfg, rec)
	return v
}

// compute fills v with rec's values under cfg.
func (v *Values) compute(cfg *Config, rec *record.Record) {
	en := enabledFor(cfg)
	v.en = en
	c := &v.c
	if rec.Valid() {
		c.valid(cfg, en, rec)
	} else if en[idErrISL] {
		if isl, ok := inputTokens(cfg, rec); ok {
			c.set(idErrISL, float64(isl))
		}
	}
}

// Values are one record's metric values, computed by ComputeValues.
type Values struct {
	c  calc
	en *enabledSet
}

// Append appends the values to dst, as Compute returns them, and returns
// the extended slice. Each list value gets an array of its own.
func (v *Values) Append(dst []RecordValue) []RecordValue {
	return v.c.values(v.en, dst)
}

// calc holds one record's values in base units.
type calc struct {
	val [numIDs]float64
	has [numIDs]bool
	icl []int64
}

func (c *calc) set(id metricID, v float64) {
	c.val[id] = v
	c.has[id] = true
}

func (c *calc) get(id metricID) (float64, bool) { return c.val[id], c.has[id] }

func (c *calc) valid(cfg *Config, en *enabledSet, rec *record.Record) {
	start := rec.StartNS
	rs := rec.Responses

	// Content responses carry data; usage-only messages do not count for
	// timing (§2.2).
	first, second, last, firstOutput, nContent := -1, -1, -1, -1, 0
	for i := range rs {
		if !rs[i].HasContent() {
			continue
		}
		switch nContent {
		case 0:
			first = i
		case 1:
			second = i
		}
		if firstOutput < 0 && rs[i].Text != "" {
			firstOutput = i
		}
		last = i
		nContent++
	}

	if en[idISL] {
		if isl, ok := inputTokens(cfg, rec); ok {
			c.set(idISL, float64(isl))
		}
	}

	streamed := cfg.Streaming && rec.Streaming
	if streamed && first >= 0 {
		if d := rs[first].PerfNS - start; d >= 0 && en[idTTFT] {
			c.set(idTTFT, float64(d))
		}
		if second >= 0 && en[idTTST] {
			if d := rs[second].PerfNS - rs[first].PerfNS; d >= 0 {
				c.set(idTTST, float64(d))
			}
		}
		if firstOutput >= 0 && en[idTTFO] {
			if d := rs[firstOutput].PerfNS - start; d >= 0 {
				c.set(idTTFO, float64(d))
			}
		}
	}

	end := rs[len(rs)-1].PerfNS // no content: fall back to the last response
	if last >= 0 {
		end = rs[last].PerfNS
	}
	if d := end - start; d >= 0 {
		c.set(idLatency, float64(d))
	}
	if cfg.ProducesVideo {
		c.video(en, rs)
	}
	lat, hasLat := c.get(idLatency)
	ttft, hasTTFT := c.get(idTTFT)
	if en[idDecode] && hasLat && hasTTFT && lat >= ttft {
		c.set(idDecode, lat-ttft)
	}
	if en[idICL] && streamed && nContent >= 2 {
		c.icl = interChunk(rs, nContent)
		c.has[idICL] = c.icl != nil
	}

	if cfg.ProducesTokens {
		c.tokens(cfg, en, rec)
	} else if en[idOSL] && len(rs) > 0 {
		// AIPerf 0.13 tokenizes a parsed response of an endpoint that
		// produces no tokens (embeddings, rankings) as "": an OSL of 0.
		c.set(idOSL, 0)
	}
	osl, hasOSL := c.get(idOSL)
	if en[idITL] && hasOSL && osl >= 2 && hasLat && hasTTFT {
		c.set(idITL, (lat-ttft)/(osl-1))
	}
	if itl, ok := c.get(idITL); ok && en[idOTPU] {
		if s := itl * nsToSec; s != 0 {
			c.set(idOTPU, 1/s)
		}
	}
	if isl, ok := c.get(idISL); ok && en[idPrefill] && hasTTFT && ttft != 0 {
		c.set(idPrefill, isl/(ttft*nsToSec))
	}
	if en[idE2E] && hasOSL && hasLat && lat != 0 {
		c.set(idE2E, osl/(lat*nsToSec))
	}

	c.usage(en, rs)
	if en[idOSLDiff] && hasOSL && rec.RequestedOutputTokens > 0 {
		req := float64(rec.RequestedOutputTokens)
		c.set(idOSLDiff, (osl-req)/req*100)
	}
	if cfg.HTTPTrace && rec.HTTPTrace != nil {
		c.httpTrace(en, rec.HTTPTrace)
	}
	if en[idGoodCount] {
		c.set(idGoodCount, c.good(cfg.Goodput))
	}
}

// interChunk returns the gaps between consecutive content responses, or nil
// when one is negative (AIPerf rejects the metric for that record).
func interChunk(rs []record.Response, nContent int) []int64 {
	out := make([]int64, 0, nContent-1)
	prev := int64(-1)
	for i := range rs {
		if !rs[i].HasContent() {
			continue
		}
		if prev >= 0 {
			d := rs[i].PerfNS - prev
			if d < 0 {
				return nil
			}
			out = append(out, d)
		}
		prev = rs[i].PerfNS
	}
	return out
}

// tokens sets output_token_count, reasoning_token_count and OSL.
func (c *calc) tokens(cfg *Config, en *enabledSet, rec *record.Record) {
	var out, reasoning int64
	var hasOut, hasReasoning bool
	if cfg.UseServerTokenCount {
		reasoning, hasReasoning = lastUsage(rec.Responses, func(u *record.Usage) *int64 { return u.ReasoningTokens })
		var completion int64
		if completion, hasOut = lastUsage(rec.Responses, func(u *record.Usage) *int64 { return u.CompletionTokens }); hasOut {
			out = max(completion-reasoning, 0)
		}
	} else if cfg.Tokenizer != nil {
		out, hasOut = countTexts(cfg.Tokenizer, rec.Responses, func(r *record.Response) string { return r.Text })
		reasoning, hasReasoning = countTexts(cfg.Tokenizer, rec.Responses, func(r *record.Response) string { return r.Reasoning })
	}
	if hasOut && en[idOutputTokens] {
		c.set(idOutputTokens, float64(out))
	}
	if hasReasoning && en[idReasoningTokens] {
		c.set(idReasoningTokens, float64(reasoning))
	}
	if (hasOut || hasReasoning) && en[idOSL] {
		c.set(idOSL, float64(out+reasoning))
	}
}

// countTexts returns len(Encode(join of the non-empty texts)), or false when
// there is no text (AIPerf's None).
func countTexts(tok tokenizer.Tokenizer, rs []record.Response, text func(*record.Response) string) (int64, bool) {
	n, size, only := 0, 0, ""
	for i := range rs {
		if t := text(&rs[i]); t != "" {
			n++
			size += len(t)
			only = t
		}
	}
	switch n {
	case 0:
		return 0, false
	case 1:
		return int64(tok.Count(only)), true
	}
	var b strings.Builder
	b.Grow(size)
	for i := range rs {
		b.WriteString(text(&rs[i]))
	}
	return int64(tok.Count(b.String())), true
}

// inputTokens is the record's ISL: usage.prompt_tokens with server token
// counts, else the client-side count (-1 meaning unknown).
func inputTokens(cfg *Config, rec *record.Record) (int64, bool) {
	if cfg.UseServerTokenCount {
		return lastUsage(rec.Responses, func(u *record.Usage) *int64 { return u.PromptTokens })
	}
	return int64(rec.InputTokens), rec.InputTokens >= 0
}

// lastUsage returns the field's value from the last response whose usage
// carries it (usage is cumulative in streams).
func lastUsage(rs []record.Response, field func(*record.Usage) *int64) (int64, bool) {
	for i := len(rs) - 1; i >= 0; i-- {
		if u := rs[i].Usage; u != nil {
			if v := field(u); v != nil {
				return *v, true
			}
		}
	}
	return 0, false
}

// usage sets the usage_* metrics and the usage-diff percentages.
func (c *calc) usage(en *enabledSet, rs []record.Response) {
	fields := [...]struct {
		id    metricID
		field func(*record.Usage) *int64
	}{
		{idUsagePrompt, func(u *record.Usage) *int64 { return u.PromptTokens }},
		{idUsageCompletion, func(u *record.Usage) *int64 { return u.CompletionTokens }},
		{idUsageTotal, func(u *record.Usage) *int64 { return u.TotalTokens }},
		{idUsageReasoning, func(u *record.Usage) *int64 { return u.ReasoningTokens }},
		{idUsageCacheRead, func(u *record.Usage) *int64 { return u.CachedTokens }},
	}
	for _, f := range fields {
		if !en[f.id] {
			continue
		}
		if v, ok := lastUsage(rs, f.field); ok {
			c.set(f.id, float64(v))
		}
	}
	diffs := [...]struct{ id, usage, client metricID }{
		{idPromptDiff, idUsagePrompt, idISL},
		{idCompletionDiff, idUsageCompletion, idOSL},
		{idReasoningDiff, idUsageReasoning, idReasoningTokens},
	}
	for _, d := range diffs {
		u, okU := c.get(d.usage)
		cl, okC := c.get(d.client)
		if en[d.id] && okU && okC && cl != 0 {
			diff := u - cl
			if diff < 0 {
				diff = -diff
			}
			c.set(d.id, diff/cl*100)
		}
	}
}

// good returns 1 when every SLO passes, else 0. A missing value fails; the
// threshold is converted to the base unit before comparing, as AIPerf does.
func (c *calc) good(slos []SLO) float64 {
	for _, s := range slos {
		id, ok := tagIDs[s.Tag]
		if !ok || !c.has[id] {
			return 0
		}
		thr := s.Threshold * catalog[id].toBase
		if catalog[id].Flags.Has(FlagLargerIsBetter) {
			if !(c.val[id] >= thr) {
				return 0
			}
		} else if !(c.val[id] <= thr) {
			return 0
		}
	}
	return 1
}

// values converts the set values to display units in recordOrder.
func (c *calc) values(en *enabledSet, out []RecordValue) []RecordValue {
	n := 0
	for _, id := range recordOrder {
		if c.has[id] && en[id] {
			n++
		}
	}
	out = slices.Grow(out, n)
	for _, id := range recordOrder {
		if !c.has[id] || !en[id] {
			continue
		}
		d := &catalog[id]
		v := RecordValue{Tag: d.Tag, Unit: d.DisplayUnit, Int: d.integer && d.toDisplay == 1}
		if d.list {
			v.List = make([]float64, len(c.icl))
			for i, x := range c.icl {
				v.List[i] = float64(x) * d.toDisplay
			}
		} else {
			v.Value = c.val[id] * d.toDisplay
		}
		out = append(out, v)
	}
	return out
}
