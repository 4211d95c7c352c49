package trace

// idIndex numbers distinct hash_ids densely (0, 1, 2, ... in order of first
// appearance). Mooncake traces number their blocks 0..N in order, so most
// ids index a plain slice directly, which keeps the lookups that dominate
// the analysis cache-friendly; ids far outside that range (negative,
// hash-like) go to a map. Each id lives in exactly one of the two: the
// slice when 0 <= id < len(dense), else the map.
type idIndex struct {
	dense  []uint32 // dense[id] = number+1, 0 when id is unnumbered
	sparse map[int64]uint32
	n      uint32 // ids numbered so far
}

// denseSlack lets the slice run ahead of the ids seen by this much, so
// that a trace whose ids start at an offset still indexes directly.
const denseSlack = 1 << 16

// number returns id's number, numbering it next if it has none; added
// reports whether it was numbered by this call.
func (x *idIndex) number(id int64) (num uint32, added bool) {
	if 0 <= id && id < int64(len(x.dense)) {
		if v := x.dense[id]; v != 0 {
			return v - 1, false
		}
		return x.add(id), true
	}
	if v, ok := x.sparse[id]; ok {
		return v, false
	}
	if 0 <= id && id < 2*int64(x.n)+denseSlack {
		x.grow(id)
		return x.add(id), true
	}
	if x.sparse == nil {
		x.sparse = map[int64]uint32{}
	}
	x.sparse[id] = x.n
	x.n++
	return x.n - 1, true
}

// add numbers id, which must index dense.
func (x *idIndex) add(id int64) uint32 {
	x.n++
	x.dense[id] = x.n
	return x.n - 1
}

// grow extends dense to cover id (at least doubling), moving the map's ids
// that it now covers.
func (x *idIndex) grow(id int64) {
	size := max(2*int64(len(x.dense)), id+1, 1024)
	dense := make([]uint32, size)
	copy(dense, x.dense)
	x.dense = dense
	for k, v := range x.sparse {
		if 0 <= k && k < size {
			dense[k] = v + 1
			delete(x.sparse, k)
		}
	}
}
