package trace

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// SynthesisSummary describes one synthesized trace.
type SynthesisSummary struct {
	// Rows is the number of rows read and written.
	Rows int
	// TreeNodes and TreeDepth describe the input's prefix tree (the radix
	// tree of hash_ids paths AIPerf builds): its nodes, the root included,
	// and its longest path in blocks.
	TreeNodes, TreeDepth int
}

// member is one key and value of a trace line, both as written.
type member struct {
	key, raw []byte // raw JSON: the quoted key and the value
	name     string // the decoded key
}

// synthRow is one parsed trace line: its members in order and the fields
// that synthesis rewrites.
type synthRow struct {
	members []member
	req     Request
}

// parseSynthRow parses line, one JSON object, keeping every member as
// written. Known fields are checked: input_length and output_length are
// non-negative integers, hash_ids a list of integers, timestamp a number;
// null means absent. As in a Python dict, a repeated key keeps its first
// position and its last value.
func parseSynthRow(line []byte) (*synthRow, error) {
	p := parser{b: line}
	p.ws()
	if !p.eat('{') {
		return nil, p.errorf("want an object")
	}
	row := &synthRow{}
	p.ws()
	if p.eat('}') {
		return row, p.end()
	}
	for {
		start := p.i
		name, err := p.key()
		if err != nil {
			return nil, err
		}
		key := line[start:p.i]
		p.ws()
		if !p.eat(':') {
			return nil, p.errorf("want ':' after object key")
		}
		p.ws()
		vstart := p.i
		if err := p.skip(); err != nil {
			return nil, err
		}
		m := member{key: key, raw: line[vstart:p.i], name: string(name)}
		if k := slices.IndexFunc(row.members, func(o member) bool { return o.name == m.name }); k >= 0 {
			row.members[k].raw = m.raw
		} else {
			row.members = append(row.members, m)
		}
		p.ws()
		if p.eat('}') {
			break
		}
		if !p.eat(',') {
			return nil, p.errorf("want ',' or '}' after object value")
		}
		p.ws()
	}
	if err := p.end(); err != nil {
		return nil, err
	}
	return row, row.decode()
}

// decode fills req from the known members.
func (row *synthRow) decode() error {
	r := &row.req
	for _, m := range row.members {
		if string(m.raw) == "null" {
			continue
		}
		v := parser{b: m.raw}
		var err error
		switch m.name {
		case "input_length":
			r.InputLength, err = v.length(m.name)
			r.HasInputLength = true
		case "output_length":
			r.OutputLength, err = v.length(m.name)
			r.HasOutputLength = true
		case "hash_ids":
			r.HashIDs, err = v.hashIDs(nil)
		case "timestamp":
			lit, _, nerr := v.number()
			if nerr != nil {
				return &fieldError{m.name, "not a number"}
			}
			r.Timestamp, err = strconv.ParseFloat(string(lit), 64)
			if err != nil {
				return &fieldError{m.name, "out of range"}
			}
			r.HasTimestamp = true
		case "text_input", "messages", "payload":
			r.Literal = true
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// appendJSON appends the row as one JSON object, orig being its request
// before synthesis: members keep their order and bytes, except the fields
// synthesis changed (all four when transformed, as AIPerf rewrites them).
// A row whose hash_ids synthesis emptied loses the key, and a row that
// gained an input_length gets it last, as in AIPerf's dict.
func (row *synthRow) appendJSON(dst []byte, orig *Request, transformed bool) []byte {
	r := &row.req
	dst = append(dst, '{')
	sep := func() {
		if len(dst) > 1 {
			dst = append(dst, ", "...)
		}
	}
	hasInput := false
	for _, m := range row.members {
		raw := m.raw
		isNull := string(raw) == "null"
		switch m.name {
		case "input_length":
			hasInput = true
			if !isNull && (transformed || r.InputLength != orig.InputLength) {
				raw = strconv.AppendInt(nil, r.InputLength, 10)
			}
		case "output_length":
			if !isNull && (transformed || r.OutputLength != orig.OutputLength) {
				raw = strconv.AppendInt(nil, r.OutputLength, 10)
			}
		case "timestamp":
			if !isNull && transformed {
				raw = strconv.AppendFloat(nil, r.Timestamp, 'f', -1, 64)
			}
		case "hash_ids":
			if transformed && len(r.HashIDs) == 0 {
				continue
			}
			if transformed || !slices.Equal(r.HashIDs, orig.HashIDs) {
				raw = appendIDs(nil, r.HashIDs)
			}
		}
		sep()
		dst = append(dst, m.key...)
		dst = append(dst, ": "...)
		dst = append(dst, raw...)
	}
	if !hasInput && r.HasInputLength {
		sep()
		dst = append(dst, `"input_length": `...)
		dst = strconv.AppendInt(dst, r.InputLength, 10)
	}
	return append(dst, '}')
}

// appendIDs appends ids as a JSON list.
func appendIDs(dst []byte, ids []int64) []byte {
	dst = append(dst, '[')
	for i, h := range ids {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dst = strconv.AppendInt(dst, h, 10)
	}
	return append(dst, ']')
}

// Synthesize reads a mooncake trace (JSONL) from r, applies s (with rng
// for the prefix-root draws; nil when s.PrefixRootMultiplier is 1) and
// writes the rows to w, one JSON object a line, in input order. Every
// field is passed through: only input_length, output_length, hash_ids and
// timestamp are rewritten. Blank lines are dropped. A malformed line stops
// it before anything is written, with a *LineError naming the line and
// field.
func Synthesize(r io.Reader, w io.Writer, s Synthesis, rng *rand.Rand) (*SynthesisSummary, error) {
	if s.BlockSize < 1 {
		return nil, fmt.Errorf("block size %d: must be >= 1", s.BlockSize)
	}
	if err := s.Check(""); err != nil {
		return nil, err
	}
	rows, err := readSynthRows(r)
	if err != nil {
		return nil, err
	}
	reqs := make([]Request, len(rows))
	for i, row := range rows {
		reqs[i] = row.req
	}
	sum := &SynthesisSummary{Rows: len(rows)}
	sum.TreeNodes, sum.TreeDepth = prefixTree(reqs)
	if err := s.Apply(reqs, rng); err != nil {
		return nil, err
	}
	bw := bufio.NewWriter(w)
	var line []byte
	for i, row := range rows {
		orig := row.req
		row.req = reqs[i]
		line = append(row.appendJSON(line[:0], &orig, s.Transforms()), '\n')
		if _, err := bw.Write(line); err != nil {
			return nil, err
		}
	}
	return sum, bw.Flush()
}

// readSynthRows parses every non-blank line of r.
func readSynthRows(r io.Reader) ([]*synthRow, error) {
	var rows []*synthRow
	err := eachLine(r, func(b []byte) error {
		row, err := parseSynthRow(bytes.Clone(b))
		if err != nil {
			return err
		}
		rows = append(rows, row)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rows, nil
}

// prefixTree returns the nodes (root included) and depth of the radix tree
// of the rows' hash_ids paths: a node per distinct prefix.
func prefixTree(reqs []Request) (nodes, depth int) {
	type edge struct {
		parent int
		id     int64
	}
	children := make(map[edge]int)
	nodes = 1
	for _, r := range reqs {
		at := 0
		for _, h := range r.HashIDs {
			child, ok := children[edge{at, h}]
			if !ok {
				child = nodes
				nodes++
				children[edge{at, h}] = child
			}
			at = child
		}
		depth = max(depth, len(r.HashIDs))
	}
	return nodes, depth
}

// SynthesizeFile synthesizes the trace at in into out (its parent
// directories are created); errors name the file at fault. Nothing is
// written when in is malformed.
func SynthesizeFile(in, out string, s Synthesis, rng *rand.Rand) (*SynthesisSummary, error) {
	src, err := os.Open(in)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	var b bytes.Buffer
	sum, err := Synthesize(src, &b, s, rng)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in, err)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		return nil, err
	}
	return sum, nil
}
