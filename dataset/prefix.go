package dataset

import "slices"

// promptWithPrefix returns a text of len(prefix)+n tokens: the prefix ids
// followed by n corpus ids from start, decoded as one text (a token-level
// join, so the prefix adds exactly its length), then put through the same
// fix-up as promptAt, which trims or tops up at the end only. It returns the
// text and the corpus tokenizer's count of it (len(prefix)+n unless the
// fix-up did not converge). A nil prefix gives what promptAt gives, except
// that n <= 0 then yields "" through the loop rather than at once.
func (c *Corpus) promptWithPrefix(prefix []int, start, n int) (string, int) {
	n = max(n, 0)
	return c.fixUp(append(slices.Clone(prefix), c.window(start, n)...), (start+n)%len(c.ids))
}
