package query

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// fixtureLines returns the lines of the fixture files matching pattern
// (a glob under the store's runs/), in name order.
func fixtureLines(t testing.TB, pattern string) [][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(telemetryFixture, "runs", pattern))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixture %s: %v", pattern, err)
	}
	var out [][]byte
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			out = append(out, append([]byte(nil), sc.Bytes()...))
		}
		f.Close()
	}
	return out
}

// jsonComparable tells whether the loader and encoding/json must agree on
// line: it is JSON (the scanner also takes NaN, Infinity and trailing
// commas) that the scanner reads (encoding/json also takes invalid UTF-8
// and lone surrogate escapes).
func jsonComparable(line []byte) bool {
	var s jsonScanner
	s.reset(line)
	s.ws()
	return json.Valid(line) && s.skip(0) == nil && s.end() == nil
}

// gpuFromBatch turns the decoder's row into the reference's shape.
func gpuFromBatch(b *gpuBatch, r *gpuRow) refGPURow {
	out := refGPURow{TimestampNS: r.timestampNS, Strs: map[string]*string{}, Fields: map[string]*float64{}}
	if r.null&(1<<gpuColIndex) == 0 {
		v := r.index
		out.Index = &v
	}
	for i, col := range gpuStrColumns {
		name := gpuTableColumnNames[col]
		if r.null&(1<<col) == 0 {
			s := string(b.str(r, i))
			out.Strs[name] = &s
		}
	}
	for i, f := range GPUFields {
		if r.null&(1<<(gpuColField+i)) == 0 {
			v := r.fields[i]
			out.Fields[f.Column] = &v
		}
	}
	return out
}

// normalizeRef drops the reference's explicit nulls, which the decoder's
// rows hold as absent.
func normalizeRef(r refGPURow) refGPURow {
	for k, v := range r.Strs {
		if v == nil {
			delete(r.Strs, k)
		}
	}
	for k, v := range r.Fields {
		if v == nil {
			delete(r.Fields, k)
		}
	}
	return r
}

// blank reports a line of JSON whitespace only, which decodes to no row.
func blank(line []byte) bool { return len(bytes.Trim(line, " \t\r\n")) == 0 }

func FuzzGPULine(f *testing.F) {
	for _, l := range fixtureLines(f, "*/gpu_telemetry_export.jsonl") {
		f.Add(l)
	}
	f.Add([]byte(`{"timestamp_ns":1,"gpu_index":2.5,"dcgm_url":"u","telemetry_data":{"nvidia_power_usage":1e400,"mem_utilization":null}}`))
	f.Add([]byte(`{"timestamp_ns":1,"telemetry_data":{"gpu_power_usage":1},"telemetry_data":{"energy_consumption":NaN}}`))
	f.Add([]byte(`{"timestamp_ns":null}`))
	f.Add([]byte(" \t\r"))
	f.Fuzz(func(t *testing.T, line []byte) {
		var d gpuDecoder
		var b gpuBatch
		err := d.decodeLine(&b, line)
		if blank(line) {
			if err != nil || len(b.rows) != 0 {
				t.Fatalf("blank %q: %d rows, %v", line, len(b.rows), err)
			}
			return
		}
		if err == nil && len(b.rows) != 1 {
			t.Fatalf("%q: %d rows", line, len(b.rows))
		}
		if !jsonComparable(line) {
			return
		}
		want, werr := refGPULine(line)
		if (err == nil) != (werr == nil) {
			t.Fatalf("%q: decoder %v, encoding/json %v", line, err, werr)
		}
		if err != nil {
			return
		}
		if got, want := gpuFromBatch(&b, &b.rows[0]), normalizeRef(want); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %s\nwant %s", line, dump(got), dump(want))
		}
	})
}

// serverFromBatch turns the decoder's rows into the reference's shape.
func serverFromBatch(b *serverBatch) []refServerRow {
	var out []refServerRow
	num := func(r *serverRow, col int, v float64) *float64 {
		if r.null&(1<<col) != 0 {
			return nil
		}
		return &v
	}
	pairs := func(r *serverRow, col int, sp span) ([][2]float64, bool) {
		if r.null&(1<<col) != 0 {
			return nil, false
		}
		p := [][2]float64{}
		for i := range int(sp.n) {
			p = append(p, [2]float64{b.pairs[int(sp.off)+2*i], b.pairs[int(sp.off)+2*i+1]})
		}
		return p, true
	}
	for i := range b.rows {
		r := &b.rows[i]
		row := refServerRow{TimestampNS: r.timestampNS, Metric: string(b.str(r.metric)), Labels: string(b.str(r.labels)),
			Value: num(r, srvColValue, r.value), Sum: num(r, srvColSum, r.sum), Count: num(r, srvColCount, r.count)}
		if r.null&(1<<srvColEndpoint) == 0 {
			s := string(b.str(r.endpoint))
			row.Endpoint = &s
		}
		if r.null&(1<<srvColLatency) == 0 {
			v := r.latencyNS
			row.LatencyNS = &v
		}
		row.Buckets, row.HasBuckets = pairs(r, srvColBuckets, r.buckets)
		row.Quantiles, row.HasQuan = pairs(r, srvColQuantiles, r.quantiles)
		out = append(out, row)
	}
	return out
}

// expectedType is the type of a reference row in a run whose export
// names types.
func expectedType(r refServerRow, types map[string]uint8) uint8 {
	if r.FamilyType != "" {
		return parseMetricType(r.FamilyType)
	}
	if t, ok := types[r.Metric]; ok {
		return t
	}
	switch {
	case r.HasBuckets:
		return typeHistogram
	case r.HasQuan:
		return typeSummary
	case len(r.Metric) >= 6 && r.Metric[len(r.Metric)-6:] == "_total":
		return typeCounter
	}
	return typeGauge
}

func FuzzServerLine(f *testing.F) {
	for _, l := range fixtureLines(f, "*/server_metrics_export.jsonl") {
		f.Add(l)
	}
	for _, l := range fixtureLines(f, "*/telemetry/server/*.jsonl") {
		f.Add(l)
	}
	f.Add([]byte(`{"timestamp_ns":5,"metrics":{"a":[{"labels":{"x":"1","x":"2","y":"\n"},"buckets":{"1":1,"1.0":2,"+Inf":null}}],"b":{"samples":null,"type":"Counter"}},"metrics":{"c":[null,{}]}}`))
	f.Add([]byte(`{"timestamp_ns":5,"metrics":{"a":[{"summary":{"NaN":1}}]}}`))
	f.Add([]byte(""))
	types := map[string]uint8{"a": typeCounter}
	f.Fuzz(func(t *testing.T, line []byte) {
		d := serverDecoder{types: types}
		var b serverBatch
		err := d.decodeLine(&b, line)
		if blank(line) {
			if err != nil || len(b.rows) != 0 {
				t.Fatalf("blank %q: %d rows, %v", line, len(b.rows), err)
			}
			return
		}
		if err == nil {
			for _, r := range b.rows {
				if int(r.typ) >= len(ServerMetricTypes) {
					t.Fatalf("%q: type %d", line, r.typ)
				}
				var labels map[string]string
				if json.Unmarshal(b.str(r.labels), &labels) != nil {
					t.Fatalf("%q: labels %q are not a JSON object of strings", line, b.str(r.labels))
				}
			}
		}
		if !jsonComparable(line) {
			return
		}
		want, werr := refServerLine(line)
		if (err == nil) != (werr == nil) {
			t.Fatalf("%q: decoder %v, encoding/json %v", line, err, werr)
		}
		if err != nil {
			return
		}
		got := serverFromBatch(&b)
		for i := range want {
			if i < len(got) {
				if typ := expectedType(want[i], types); b.rows[i].typ != typ {
					t.Errorf("%q: row %d type %s, want %s", line, i, ServerMetricTypes[b.rows[i].typ], ServerMetricTypes[typ])
				}
			}
			want[i].FamilyType = ""
		}
		if !equalRows(got, want) {
			t.Fatalf("%q:\n got %s\nwant %s", line, dump(got), dump(want))
		}
	})
}

// equalRows compares rows, NaN equal to NaN.
func equalRows(a, b []refServerRow) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if !pairsEqual(x.Buckets, y.Buckets) || !pairsEqual(x.Quantiles, y.Quantiles) {
			return false
		}
		x.Buckets, y.Buckets, x.Quantiles, y.Quantiles = nil, nil, nil, nil
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

func pairsEqual(a, b [][2]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		for j := range 2 {
			if a[i][j] != b[i][j] && !(math.IsNaN(a[i][j]) && math.IsNaN(b[i][j])) {
				return false
			}
		}
	}
	return true
}

// dump formats a value for failure messages.
func dump(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}
