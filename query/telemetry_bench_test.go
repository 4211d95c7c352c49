package query

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/aiperf-go/aiperf/sink"
)

// writeServerScrapes writes n vLLM-like scrapes (AIPerf's raw records)
// of 60 series each: 30 gauges and counters with two labels, 20 of them
// per engine, and 10 histograms of 20 buckets, 0.1 s apart.
func writeServerScrapes(path string, n int) (rows int, err error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	t0 := int64(1795318034974640749)
	for i := range n {
		fmt.Fprintf(w, `{"endpoint_url":"http://127.0.0.1:8000/metrics","timestamp_ns":%d,"endpoint_latency_ns":812345,"metrics":{`, t0+int64(i)*100_000_000)
		for m := range 30 {
			if m > 0 {
				w.WriteString(",")
			}
			fmt.Fprintf(w, `"vllm:metric_%d":[`, m)
			for e := range 2 {
				if e > 0 {
					w.WriteString(",")
				}
				fmt.Fprintf(w, `{"labels":{"engine":"%d","model_name":"Qwen/Qwen3-0.6B"},"value":%s}`, e, strconv.FormatFloat(float64(i*m)*0.37, 'f', -1, 64))
				rows++
			}
			w.WriteString("]")
		}
		for h := range 10 {
			fmt.Fprintf(w, `,"vllm:histogram_%d_seconds":[{"labels":{"engine":"0","model_name":"Qwen/Qwen3-0.6B"},"buckets":{`, h)
			for b := range 20 {
				if b > 0 {
					w.WriteString(",")
				}
				fmt.Fprintf(w, `"%s":%d.0`, strconv.FormatFloat(0.001*float64(int(1)<<b), 'f', -1, 64), i*b)
			}
			fmt.Fprintf(w, `,"+Inf":%d.0},"sum":%s,"count":%d.0}]`, i*20, strconv.FormatFloat(float64(i)*1.234, 'f', -1, 64), i*20)
			rows++
		}
		w.WriteString("}}\n")
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, err
	}
	return rows, f.Close()
}

// BenchmarkIngestServerMetrics ingests a killed run whose server metrics
// are one hour of 0.1 s scrapes of a vLLM-like endpoint (36,000 scrapes,
// 2.5 M rows; -short: a tenth), into a fresh in-memory database per
// iteration, and reports rows/s and MB/s of JSONL.
func BenchmarkIngestServerMetrics(b *testing.B) {
	scrapes := 36000
	if testing.Short() {
		scrapes = 3600
	}
	dir := b.TempDir()
	segs := filepath.Join(dir, "runs", benchRunID, "telemetry", "server")
	if err := os.MkdirAll(segs, 0o755); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(segs, "000001.jsonl")
	rows, err := writeServerScrapes(path, scrapes)
	if err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		db, err := Open(ctx, "")
		if err != nil {
			b.Fatal(err)
		}
		store := openStoreB(b, dir)
		b.StartTimer()
		if _, err := db.Ingest(ctx, "", store); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		var n int
		if err := db.SQL().QueryRow(`SELECT count(*) FROM server_metrics`).Scan(&n); err != nil || n != rows {
			b.Fatalf("%d rows, want %d: %v", n, rows, err)
		}
		store.Close()
		db.Close()
		b.StartTimer()
	}
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(float64(rows)/sec, "rows/s")
	b.ReportMetric(float64(fi.Size())/1e6/sec, "MB/s")
}

// openStoreB opens a directory store for a benchmark; the caller closes it.
func openStoreB(b *testing.B, dir string) *sink.Store {
	b.Helper()
	s, err := sink.Open(context.Background(), dir, nil)
	if err != nil {
		b.Fatal(err)
	}
	return s
}
