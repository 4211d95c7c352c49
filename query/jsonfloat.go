package query

import (
	"math"
	"math/big"
	"math/bits"
)

// The Eisel-Lemire conversion of a decimal mantissa and exponent to the
// nearest float64, as Go's strconv does it (same algorithm and table
// construction; see https://nigeltao.github.io/blog/2020/eisel-lemire.html),
// over the powers of ten that profile_export.jsonl values need. It spares
// parsing a number's text a second time.

const (
	pow10Lo = -64
	pow10Hi = 64
)

// pow10Mant holds, for 10^e with e in [pow10Lo, pow10Hi], the 128-bit
// mantissa floor(10^e * 2^k) in [2^127, 2^128), high word first.
var pow10Mant = func() (t [pow10Hi - pow10Lo + 1][2]uint64) {
	one, ten := big.NewInt(1), big.NewInt(10)
	b1p64 := new(big.Int).Lsh(one, 64)
	r1p128 := new(big.Rat).SetInt(new(big.Int).Lsh(one, 128))
	r2 := big.NewRat(2, 1)
	for e := pow10Lo; e <= pow10Hi; e++ {
		var r *big.Rat
		if e >= 0 {
			r = new(big.Rat).SetInt(new(big.Int).Exp(ten, big.NewInt(int64(e)), nil))
		} else {
			r = new(big.Rat).SetFrac(one, new(big.Int).Exp(ten, big.NewInt(int64(-e)), nil))
		}
		for r.Cmp(r1p128) < 0 {
			r.Mul(r, r2)
		}
		for r.Cmp(r1p128) >= 0 {
			r.Quo(r, r2)
		}
		d := new(big.Int).Div(r.Num(), r.Denom())
		hi, lo := new(big.Int).DivMod(d, b1p64, new(big.Int))
		t[e-pow10Lo] = [2]uint64{hi.Uint64(), lo.Uint64()}
	}
	return t
}()

// eiselLemire returns man * 10^exp10 rounded to the nearest float64, or
// ok false when the algorithm cannot decide (the caller then parses the
// text): exp10 outside the table, a halfway case, or a result that is
// subnormal, infinite or NaN.
func eiselLemire(man uint64, exp10 int, neg bool) (f float64, ok bool) {
	if man == 0 {
		if neg {
			f = math.Copysign(0, -1)
		}
		return f, true
	}
	if exp10 < pow10Lo || exp10 > pow10Hi {
		return 0, false
	}
	pow := &pow10Mant[exp10-pow10Lo]
	exp2 := 1 + (exp10*108853)>>15 // floor(exp10 * log2(10))

	clz := bits.LeadingZeros64(man)
	man <<= uint(clz)
	const bias = -1023
	retExp2 := uint64(exp2+63-bias) - uint64(clz)

	xHi, xLo := bits.Mul64(man, pow[0])
	if xHi&0x1FF == 0x1FF && xLo+man < man {
		yHi, yLo := bits.Mul64(man, pow[1])
		mergedHi, mergedLo := xHi, xLo+yHi
		if mergedLo < xLo {
			mergedHi++
		}
		if mergedHi&0x1FF == 0x1FF && mergedLo+1 == 0 && yLo+man < man {
			return 0, false
		}
		xHi, xLo = mergedHi, mergedLo
	}

	msb := xHi >> 63
	retMantissa := xHi >> (msb + 9)
	retExp2 -= 1 ^ msb
	if xLo == 0 && xHi&0x1FF == 0 && retMantissa&3 == 1 {
		return 0, false
	}
	retMantissa += retMantissa & 1
	retMantissa >>= 1
	if retMantissa>>53 > 0 {
		retMantissa >>= 1
		retExp2++
	}
	if retExp2-1 >= 0x7FF-1 {
		return 0, false
	}
	retBits := retExp2<<52 | retMantissa&(1<<52-1)
	if neg {
		retBits |= 1 << 63
	}
	return math.Float64frombits(retBits), true
}
