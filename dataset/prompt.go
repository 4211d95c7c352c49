package dataset

import "math/rand/v2"

// maxFixups bounds the BPE fix-up loop of Prompt, as AIPerf's 10 tries.
const maxFixups = 10

// Prompt returns a text of n tokens cut from the corpus at a random position
// (one draw from rng), and the number of tokens the corpus tokenizer counts in
// that text.
//
// Decoding a window of ids and encoding the text again need not give n ids:
// the window may start or end inside a word, and pieces merge differently at
// chunk joins. So Prompt re-encodes and, up to 10 times, trims the excess ids
// from the end or tops up with the corpus ids that follow the window, until
// the re-encoded count is exactly n. With the builtin tokenizer this converges
// for every length tested (thousands of random lengths up to 4096, almost
// always within two tries). If it does not converge, Prompt returns the last
// text and its true count, which then differs from n by a few tokens; callers
// record the returned count rather than assuming n. n <= 0 gives "" and 0.
func (c *Corpus) Prompt(rng *rand.Rand, n int) (text string, tokens int) {
	if n <= 0 {
		return "", 0
	}
	return c.promptAt(rng.IntN(len(c.ids)), n)
}

// promptAt is Prompt with the start position given, so that positions can be
// drawn in order and texts built in parallel.
func (c *Corpus) promptAt(start, n int) (string, int) {
	if n <= 0 {
		return "", 0
	}
	return c.fixUp(c.window(start, n), (start+n)%len(c.ids))
}

// fixUp decodes ids and, up to maxFixups times, re-encodes the text and
// trims the excess ids from the end or tops up with corpus ids from next,
// until the text encodes to exactly len(ids) tokens. It returns the last
// text and its true count.
func (c *Corpus) fixUp(ids []int, next int) (string, int) {
	target := len(ids)
	text := c.tok.Decode(ids)
	for range maxFixups {
		ids = c.tok.Encode(text)
		switch {
		case len(ids) == target:
			return text, target
		case len(ids) > target:
			ids = ids[:target]
		default:
			more := target - len(ids)
			ids = append(ids, c.window(next, more)...)
			next = (next + more) % len(c.ids)
		}
		text = c.tok.Decode(ids)
	}
	return text, c.tok.Count(text)
}
