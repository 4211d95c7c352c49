package trace

import (
	"bytes"
	"testing"
)

// BenchmarkAnalyze100k analyses a generated 100,000-row mooncake trace
// (about 14 MB, 1.3 million blocks).
func BenchmarkAnalyze100k(b *testing.B) {
	data := genTrace(100_000, 7, genOpts{quirks: true})
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Analyze(bytes.NewReader(data), DefaultBlockSize); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAnalyze100kScattered is BenchmarkAnalyze100k with ids spread
// over the int64 range, which go through the idIndex map.
func BenchmarkAnalyze100kScattered(b *testing.B) {
	data := genTrace(100_000, 7, genOpts{quirks: true, scatter: true})
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Analyze(bytes.NewReader(data), DefaultBlockSize); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseRow parses one typical line.
func BenchmarkParseRow(b *testing.B) {
	line := []byte(`{"timestamp": 27482, "input_length": 6955, "output_length": 52, "hash_ids": [46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 2353, 2354]}`)
	b.SetBytes(int64(len(line)))
	var r row
	for b.Loop() {
		if err := parseRow(line, &r); err != nil {
			b.Fatal(err)
		}
	}
}
