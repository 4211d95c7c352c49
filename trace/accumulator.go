package trace

// accumulator gathers what the analysis needs from each row as it streams
// by, then computes the Analysis.
//
// Prefixes and (position, hash_id) pairs are counted through the hash_ids
// themselves. In a mooncake trace a block id stands for its whole prefix,
// so it always extends the same prefix at the same position; each distinct
// id therefore carries the counts of its "primary" prefix and pair (those
// of its first occurrence), and only an id met again under another prefix
// or at another position needs a map. This is exact for any trace and
// costs one array lookup per block for the usual one.
type accumulator struct {
	blockSize int64

	isls, osls     []int64
	islSum, oslSum intSum
	minISL, maxISL int64
	minOSL, maxOSL int64

	ids    idIndex  // hash_id → its number, which indexes info
	info   []idInfo // per distinct hash_id
	blocks int64    // Σ len(hash_ids): every prefix occurrence

	// Prefixes other than primary ones, by (prefix extended, hash_id).
	otherNodes      map[nodeKey]uint32 // → index in otherNodeCount
	otherNodeCount  []uint32
	otherNodeFirsts []uint32 // those of one block

	// (position, hash_id) pairs other than primary ones.
	otherPairs     map[pairKey]uint32 // → index in otherPairCount
	otherPairCount []uint32

	rowPairs []uint32 // each row's pair refs, rows in file order
	rowEnd   []int    // rowPairs[rowEnd[i-1]:rowEnd[i]] belongs to row i

	hitRates []float64 // per row with hash_ids, file order
}

// idInfo is what a distinct hash_id carries: its primary prefix (the one
// it ended at its first occurrence) and primary pair.
type idInfo struct {
	parent   uint32 // ref of the prefix the primary prefix extends; rootRef for none
	pos      uint32 // position of the primary pair
	count    uint32 // occurrences of the primary prefix
	posCount uint32 // rows holding the primary pair
}

// A ref names a prefix or a pair: a hash_id's number for its primary one,
// other|i for entry i of the other* tables. Numbers and indices stay below
// 2^31 - 1 (Analyze checks fits), positions below 2^31 (a line holds at
// most maxLineBytes), and counts fit in uint32 for traces of fewer than
// 2^32 rows.
const (
	other   = 1 << 31
	rootRef = 1<<32 - 1 // the empty prefix
)

type nodeKey struct {
	parent uint32
	id     int64
}

type pairKey struct {
	pos uint32
	id  int64
}

func newAccumulator(blockSize int64) *accumulator {
	return &accumulator{
		blockSize:  blockSize,
		otherNodes: map[nodeKey]uint32{},
		otherPairs: map[pairKey]uint32{},
	}
}

// fits reports whether a row of n blocks can be added without running out
// of refs, which takes some 2^31 distinct blocks (tens of gigabytes).
func (a *accumulator) fits(n int) bool {
	const limit = other - 1 // other|(other-1) is rootRef
	return len(a.info)+n < limit && len(a.otherNodeCount)+n < limit && len(a.otherPairCount)+n < limit
}

// add takes one row; r's storage may be reused afterwards.
func (a *accumulator) add(r *row) {
	if len(a.isls) == 0 {
		a.minISL, a.maxISL, a.minOSL, a.maxOSL = r.isl, r.isl, r.osl, r.osl
	}
	a.minISL, a.maxISL = min(a.minISL, r.isl), max(a.maxISL, r.isl)
	a.minOSL, a.maxOSL = min(a.minOSL, r.osl), max(a.maxOSL, r.osl)
	a.isls, a.osls = append(a.isls, r.isl), append(a.osls, r.osl)
	a.islSum.add(r.isl)
	a.oslSum.add(r.osl)
	if len(r.hashIDs) > 0 {
		a.addBlocks(r.hashIDs)
	}
	a.rowEnd = append(a.rowEnd, len(a.rowPairs))
}

// addBlocks counts a row's prefixes ids[:1] ... ids and its (position,
// hash_id) pairs, and records its hit rate: the fraction of blocks before
// the first one no earlier row holds. Numbering ids as they are scanned
// does not disturb that: before the first new block, every block was
// numbered by an earlier row.
func (a *accumulator) addBlocks(ids []int64) {
	a.blocks += int64(len(ids))
	first := len(ids)
	parent := uint32(rootRef)
	for i, id := range ids {
		pos := uint32(i)
		num, added := a.ids.number(id)
		if added {
			a.info = append(a.info, idInfo{parent: parent, pos: pos})
			if first == len(ids) {
				first = i
			}
		}
		in := &a.info[num]
		node := num
		if in.parent == parent {
			in.count++
		} else {
			node = a.otherNode(nodeKey{parent, id})
		}
		pair := num
		if in.pos == pos {
			in.posCount++
		} else {
			pair = a.otherPair(pairKey{pos, id})
		}
		a.rowPairs = append(a.rowPairs, pair)
		parent = node
	}
	a.hitRates = append(a.hitRates, float64(first)/float64(len(ids)))
}

// otherNode counts an occurrence of a non-primary prefix and returns its ref.
func (a *accumulator) otherNode(k nodeKey) uint32 {
	i, ok := a.otherNodes[k]
	if !ok {
		i = uint32(len(a.otherNodeCount))
		a.otherNodes[k] = i
		a.otherNodeCount = append(a.otherNodeCount, 0)
		if k.parent == rootRef {
			a.otherNodeFirsts = append(a.otherNodeFirsts, i)
		}
	}
	a.otherNodeCount[i]++
	return other | i
}

// otherPair counts a non-primary pair and returns its ref.
func (a *accumulator) otherPair(k pairKey) uint32 {
	i, ok := a.otherPairs[k]
	if !ok {
		i = uint32(len(a.otherPairCount))
		a.otherPairs[k] = i
		a.otherPairCount = append(a.otherPairCount, 0)
	}
	a.otherPairCount[i]++
	return other | i
}

// pairCount returns the number of rows holding the pair ref names.
func (a *accumulator) pairCount(ref uint32) uint32 {
	if ref&other != 0 {
		return a.otherPairCount[ref&^other]
	}
	return a.info[ref].posCount
}

// result computes the Analysis.
func (a *accumulator) result() *Analysis {
	n := len(a.isls)
	an := &Analysis{
		TotalRequests:  n,
		UniquePrefixes: len(a.info) + len(a.otherNodeCount),
		CacheHitRate:   exactMean(a.hitRates),
		MinISL:         a.minISL,
		MaxISL:         a.maxISL,
		AvgISL:         a.islSum.mean(n),
		MinOSL:         a.minOSL,
		MaxOSL:         a.maxOSL,
		AvgOSL:         a.oslSum.mean(n),
		HitRateStats:   summarize(a.hitRates),
	}
	var reused int64
	for _, in := range a.info {
		if in.count > 1 {
			reused += int64(in.count)
			if in.parent == rootRef {
				an.NumPrefixGroups++
			}
		}
	}
	for _, c := range a.otherNodeCount {
		if c > 1 {
			reused += int64(c)
		}
	}
	for _, i := range a.otherNodeFirsts {
		if a.otherNodeCount[i] > 1 {
			an.NumPrefixGroups++
		}
	}
	an.PrefixReuseRatio = ratio(reused, a.blocks)

	vals := make([]float64, n)
	for i, v := range a.isls {
		vals[i] = float64(v)
	}
	an.ISLStats = summarize(vals)
	for i, v := range a.osls {
		vals[i] = float64(v)
	}
	an.OSLStats = summarize(vals)
	ctx, unique := a.contextLengths()
	an.ContextLengthStats = summarize(ctx)
	an.UniquePromptLengthStats = summarize(unique)
	return an
}

// contextLengths returns each row's context length and unique prompt
// length (input_length minus the context length).
func (a *accumulator) contextLengths() (ctx, unique []float64) {
	ctx = make([]float64, len(a.isls))
	unique = make([]float64, len(a.isls))
	start := 0
	for i, isl := range a.isls {
		pairs := a.rowPairs[start:a.rowEnd[i]]
		start = a.rowEnd[i]
		var c int64
		if len(pairs) > 0 {
			repeated := 0
			for _, ref := range pairs {
				if a.pairCount(ref) > 1 {
					repeated++
				}
			}
			c = int64(repeated) * a.blockSize
			if repeated == len(pairs) {
				c = isl
			}
		}
		ctx[i], unique[i] = float64(c), float64(isl-c)
	}
	return ctx, unique
}
