package trace

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// writeGenerated names a directory to write the generated traces of
// TestAnalyzeMatchesAIPerf to (NAME.jsonl), so that AIPerf itself can
// analyse them; with AIPerf installed (pip install aiperf):
//
//	go test ./trace -run TestAnalyzeMatchesAIPerf -write-generated /tmp/gen
//	for n in generated scattered; do python -c 'import sys
//	from aiperf.dataset.synthesis.prefix_analyzer import PrefixAnalyzer
//	print(PrefixAnalyzer(512).analyze_file(sys.argv[1]).model_dump_json(indent=2), end="")' \
//	  /tmp/gen/$n.jsonl > trace/testdata/$n.aiperf.json; done
var writeGenerated = flag.String("write-generated", "", "write the generated traces of TestAnalyzeMatchesAIPerf into this directory")

// splitmix is SplitMix64: a tiny generator whose output is fixed forever,
// so a generated trace and the expectations recorded for it stay in step.
type splitmix struct{ s uint64 }

func (r *splitmix) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (r *splitmix) intn(n int) int { return int(r.next() % uint64(n)) }

// genOpts selects what genTrace puts in a trace besides plain rows.
type genOpts struct {
	// quirks adds what real files hold: rows without hash_ids (absent,
	// null, []), repeated rows, integral floats (1200.0), unknown fields,
	// blank lines and \r\n.
	quirks bool
	// scatter writes ids as spread-out 63-bit values (half negative)
	// instead of 0..N, and makes one row in 30 of earlier ids in random
	// order, so that ids recur under other prefixes and at other positions.
	scatter bool
}

// genTrace returns a mooncake-like trace: rows drawn from rows/50 prefix
// groups (skewed towards the first ones), each row a random-length share of
// its group's block path plus a few blocks of its own, input_length
// consistent with the blocks at block size 512.
func genTrace(rows int, seed uint64, opt genOpts) []byte {
	quirks := opt.quirks
	r := &splitmix{s: seed}
	groups := make([][]int64, max(rows/50, 1))
	var next int64
	for g := range groups {
		path := make([]int64, 1+r.intn(24))
		for i := range path {
			path[i] = next
			next++
		}
		groups[g] = path
	}
	var b bytes.Buffer
	var prev []int64
	var ids []int64
	for i := range rows {
		nl := "\n"
		if quirks && r.intn(10) == 0 {
			nl = "\r\n"
		}
		if quirks && r.intn(50) == 0 {
			b.WriteString(nl)
		}
		b.WriteString(`{"timestamp": ` + strconv.Itoa(i*37))
		if quirks && r.intn(20) == 0 {
			// No hash_ids: a plain synthetic prompt.
			b.WriteString(`, "input_length": ` + strconv.Itoa(1+r.intn(4000)) + `, "output_length": ` + strconv.Itoa(1+r.intn(600)))
			switch r.intn(3) {
			case 1:
				b.WriteString(`, "hash_ids": null`)
			case 2:
				b.WriteString(`, "hash_ids": []`)
			}
			b.WriteString("}" + nl)
			continue
		}
		ids = ids[:0]
		switch {
		case quirks && prev != nil && r.intn(15) == 0:
			ids = append(ids, prev...) // the same request again
		case opt.scatter && next > 0 && r.intn(30) == 0:
			for range 1 + r.intn(6) {
				ids = append(ids, int64(r.intn(int(next))))
			}
		default:
			g := r.intn(r.intn(len(groups)) + 1)
			path := groups[g]
			ids = append(ids, path[:r.intn(len(path)+1)]...)
			for range r.intn(8) {
				ids = append(ids, next)
				next++
			}
			if len(ids) == 0 {
				ids = append(ids, next)
				next++
			}
		}
		prev = append(prev[:0], ids...)
		isl := len(ids)*512 - r.intn(512)
		islText := strconv.Itoa(isl)
		if quirks && r.intn(25) == 0 {
			islText += ".0"
		}
		b.WriteString(`, "input_length": ` + islText + `, "output_length": ` + strconv.Itoa(1+r.intn(600)) + `, "hash_ids": [`)
		for j, id := range ids {
			if j > 0 {
				b.WriteString(", ")
			}
			if opt.scatter {
				id = int64(uint64(id+1) * 0x9e3779b97f4a7c15) // a bijection: distinct stay distinct
			}
			b.WriteString(strconv.FormatInt(id, 10))
		}
		b.WriteString("]")
		if quirks && r.intn(10) == 0 {
			b.WriteString(`, "session_id": "s` + strconv.Itoa(r.intn(100)) + `", "extra": {"priority": [1, {"x": null}]}`)
		}
		b.WriteString("}" + nl)
	}
	return b.Bytes()
}

// dumpGenerated writes data to the -write-generated directory, if asked.
func dumpGenerated(t *testing.T, name string, data []byte) {
	if *writeGenerated == "" {
		return
	}
	if err := os.MkdirAll(*writeGenerated, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*writeGenerated, name+".jsonl"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}
