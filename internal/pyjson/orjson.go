package pyjson

import "strconv"

// AppendFloatOrjson appends f the way orjson writes it (AIPerf 0.13's
// artifacts): as AppendFloat (Python's repr) does, except for small
// magnitudes, where orjson keeps the decimal form down to 1e-5
// ("0.00004650800000005617", where repr writes "4.650800000005617e-05")
// and writes a negative exponent without zero padding ("1e-6", not
// "1e-06"). NaN and infinities are written as null.
func AppendFloatOrjson(b []byte, f float64) []byte {
	start := len(b)
	b = AppendFloat(b, f)
	s := b[start:]
	e := -1
	for i, c := range s {
		if c == 'e' {
			e = i
			break
		}
	}
	if e < 0 || s[e+1] != '-' {
		return b
	}
	exp, err := strconv.Atoi(string(s[e+2:]))
	if err != nil {
		return b
	}
	mant := string(s[:e])
	b = b[:start]
	if exp > 5 {
		b = append(b, mant...)
		b = append(b, "e-"...)
		return strconv.AppendInt(b, int64(exp), 10)
	}
	// exp is 5 (repr's exponent form starts at 1e-5, orjson's below it):
	// 0.0000 and the digits.
	if mant[0] == '-' {
		b = append(b, '-')
		mant = mant[1:]
	}
	b = append(b, "0.0000"...)
	for i := 0; i < len(mant); i++ {
		if mant[i] != '.' {
			b = append(b, mant[i])
		}
	}
	return b
}
