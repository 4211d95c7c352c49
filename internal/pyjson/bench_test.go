package pyjson

// Long prompts (inputs.json, request bodies) are where escaping costs.

import (
	"strings"
	"testing"
)

func BenchmarkCanonicalLong(b *testing.B) {
	lit := AppendString(nil, strings.Repeat("to be or not to be, that is the question\n", 300))
	b.SetBytes(int64(len(lit)))
	for b.Loop() {
		if !Canonical(lit) {
			b.Fatal("not canonical")
		}
	}
}

func BenchmarkAppendStringLong(b *testing.B) {
	s := strings.Repeat("to be or not to be, that is the question\n", 300)
	b.SetBytes(int64(len(s)))
	dst := make([]byte, 0, 2*len(s))
	for b.Loop() {
		dst = AppendString(dst[:0], s)
	}
}
