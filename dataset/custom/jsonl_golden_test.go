package custom

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestJSONLGolden loads the reference documentation's examples (copied from
// spec/fixtures/docs-examples) and compares the datasets with
// testdata/*.golden; -update rewrites them. Token counts, model choice and
// output-length draws are checked independently in the other tests; these
// files pin the whole shape.
func TestJSONLGolden(t *testing.T) {
	tests := []struct {
		file, typ, golden string
		osl               float64
	}{
		{"prompts.jsonl", "", "single_turn_prompts.golden", 100},
		{"conversations.jsonl", "", "multi_turn_conversations.golden", 0},
		{"pool.jsonl", "random_pool", "random_pool_pool.golden", 0},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			o := jsonlOptions(t, filepath.Join("testdata", "docs-examples", tt.file), tt.typ)
			o.Models, o.Seed, o.NumConversations = []string{"model-a", "model-b"}, 42, 6
			o.OSLMean, o.OSLStddev = tt.osl, tt.osl/10
			d, err := Load(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			got := datasetJSON(t, d)
			path := filepath.Join("testdata", tt.golden)
			if jsonlUpdate() {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the golden file:\n%s", tt.file, got)
			}
		})
	}
}

// TestDetect checks auto-detection on the examples and on edge cases.
func TestDetect(t *testing.T) {
	ex := func(name string) string { return filepath.Join("testdata", "docs-examples", name) }
	tests := []struct {
		name, path          string
		single, multi, pool bool
	}{
		{"prompts", ex("prompts.jsonl"), true, false, false},
		{"conversations", ex("conversations.jsonl"), false, true, false},
		{"directory", "testdata/docs-examples", false, false, true},
		{"typed single", writeJSONL(t, "a.jsonl", `{"type": "single_turn", "turns": []}`), true, false, false},
		{"typed multi", writeJSONL(t, "a.jsonl", `{"type": "multi_turn", "text": "a"}`), false, true, false},
		{"typed pool", writeJSONL(t, "a.jsonl", "\n"+`{"type": "random_pool", "text": "a"}`), false, false, true},
		{"blank first lines", writeJSONL(t, "a.jsonl", "\n\n"+`{"image": "x.png"}`), true, false, false},
		{"trace row", writeJSONL(t, "a.jsonl", `{"input_length": 5, "hash_ids": [1]}`), false, false, false},
		{"not json", writeJSONL(t, "a.jsonl", "text,x\n"), false, false, false},
		{"empty", writeJSONL(t, "a.jsonl", ""), false, false, false},
		{"missing", "no/such/file", false, false, false},
		{"empty directory", t.TempDir(), false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := detectSingleTurn(tt.path); got != tt.single {
				t.Errorf("single_turn: %v", got)
			}
			if got := detectMultiTurn(tt.path); got != tt.multi {
				t.Errorf("multi_turn: %v", got)
			}
			if got := detectRandomPool(tt.path); got != tt.pool {
				t.Errorf("random_pool: %v", got)
			}
		})
	}
}
