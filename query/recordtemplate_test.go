package query

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"testing"
)

// decodedRow is a decoded row with its strings and list resolved, floats
// as bits, for comparisons.
type decodedRow struct {
	Null      uint64
	Ints      [numIntFields]int64
	Metrics   [numMetrics]uint64
	Strs      [numStrFields]string
	ICL       []string
	Cancelled bool
	Valid     bool
}

func viewRow(b *requestBatch, r *requestRow) decodedRow {
	v := decodedRow{Null: r.null, Cancelled: r.cancelled, Valid: r.valid}
	for i := range r.ints {
		if !r.isNull(fieldInt + i) {
			v.Ints[i] = r.ints[i]
		}
	}
	for i := range r.metrics {
		if !r.isNull(fieldMetric + i) {
			v.Metrics[i] = math.Float64bits(r.metrics[i])
		}
	}
	for i := range r.strs {
		if !r.isNull(fieldStr + i) {
			v.Strs[i] = string(b.str(r, i))
		}
	}
	if !r.isNull(fieldICL) {
		v.ICL = []string{}
		for _, e := range b.list(r) {
			v.ICL = append(v.ICL, fmt.Sprint(floatBits(e)))
		}
	}
	if r.isNull(fieldCancelled) {
		v.Cancelled = false
	}
	return v
}

// decodeFresh decodes line with a decoder that has seen no other line:
// the full parser.
func decodeFresh(line []byte) ([]decodedRow, error) {
	var d recordDecoder
	var b requestBatch
	err := d.decodeLine(&b, line)
	var rows []decodedRow
	for i := range b.rows {
		rows = append(rows, viewRow(&b, &b.rows[i]))
	}
	return rows, err
}

// TestTemplateReplayMatchesFullParse: lines decoded by replaying the
// shape of earlier lines give the rows the full parser gives, and most
// lines of a run are replayed.
func TestTemplateReplayMatchesFullParse(t *testing.T) {
	var buf bytes.Buffer
	for _, o := range []genOptions{
		{Records: 500, OSL: 20, ISL: 50, ErrorEvery: 7, Seed: 21},
		{Records: 500, Streaming: true, OSL: 24, ISL: 50, ErrorEvery: 9, Seed: 22},
	} {
		if err := writeRecords(&buf, o); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range append(edgeLines, castLines...) {
		buf.WriteString(l + "\n")
		buf.WriteString(l + "\n") // the same shape twice: replayed
	}
	var d recordDecoder
	var b requestBatch
	lines := bytes.Split(buf.Bytes(), []byte("\n"))
	for n, line := range lines {
		before := len(b.rows)
		if err := d.decodeLine(&b, line); err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		want, _ := decodeFresh(line)
		var got []decodedRow
		for i := before; i < len(b.rows); i++ {
			got = append(got, viewRow(&b, &b.rows[i]))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("line %d %s:\n replayed %+v\n full     %+v", n+1, line, got, want)
		}
	}
	if d.replayed < len(lines)*3/4 {
		t.Errorf("%d of %d lines replayed", d.replayed, len(lines))
	}
}

// FuzzRecordDecoder: any line decodes without panicking, and the same as
// the full parser gives whether the decoder replays a template of the
// line's own shape, or of another record's.
func FuzzRecordDecoder(f *testing.F) {
	var buf bytes.Buffer
	if err := writeRecords(&buf, genOptions{Records: 3, Streaming: true, OSL: 4, ISL: 10, ErrorEvery: 2, Seed: 1}); err != nil {
		f.Fatal(err)
	}
	typical := bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n"))
	for _, l := range typical {
		f.Add(string(l))
	}
	for _, l := range append(append(edgeLines, castLines...), castRejects...) {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line string) {
		want, wantErr := decodeFresh([]byte(line))
		for _, prime := range [][]byte{[]byte(line), typical[0], typical[1]} {
			var d recordDecoder
			var b requestBatch
			_ = d.decodeLine(&b, prime) // learns prime's shape, when valid
			b.reset()
			err := d.decodeLine(&b, []byte(line))
			if (err == nil) != (wantErr == nil) {
				t.Fatalf("primed with %s: error %v, full parse %v", prime, err, wantErr)
			}
			if err != nil {
				continue
			}
			var got []decodedRow
			for i := range b.rows {
				got = append(got, viewRow(&b, &b.rows[i]))
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("primed with %s:\n got  %+v\n want %+v", prime, got, want)
			}
		}
	})
}
