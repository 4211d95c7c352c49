package sink

import (
	"context"
	"slices"
	"syscall"
	"testing"
	"time"
)

// record is a typical profile_export.jsonl line (~1 KiB).
var benchRecord = []byte(`{"metadata":{"session_num":1,"request_num":1,"x_request_id":"915694a7-a385-4344-8949-1eaef9529909","x_correlation_id":"85468582-1f94-482f-b6a7-0ece9882fdb7","conversation_id":"session_000085","turn_index":0,"credit_issued_ns":1795318034974581358,"request_start_ns":1795318034974640749,"request_ack_ns":1795318034975918225,"request_end_ns":1795318035016708813,"worker_id":"worker_00000000","record_processor_id":"record_processor_f5bb0653","benchmark_phase":"profiling","was_cancelled":false,"cancellation_time_ns":null},"metrics":{"input_sequence_length":{"value":550,"unit":"tokens"},"time_to_first_token":{"value":21.616954999999997,"unit":"ms"},"request_latency":{"value":42.068064,"unit":"ms"},"output_token_count":{"value":5,"unit":"tokens"},"inter_chunk_latency":{"value":[5.131653,5.115402,5.088912,5.115142],"unit":"ms"},"output_sequence_length":{"value":5,"unit":"tokens"},"inter_token_latency":{"value":5.11277725,"unit":"ms"},"output_token_throughput_per_user":{"value":195.58841527860417,"unit":"tokens/sec/user"}},"error":null}` + "\n")

// benchStream writes b.N records through a stream and delivers them,
// reporting records/s end to end (Write, segmenting, upload, Close).
func benchStream(b *testing.B, s *Store) {
	r := s.NewRun(NewRunID(time.Now()))
	st, err := r.NewStream("records", StreamOptions{SpoolDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(benchRecord)))
	cpu0 := processCPU()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if _, err := st.Write(benchRecord); err != nil {
			b.Fatal(err)
		}
	}
	if _, _, err := st.Close(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "records/s")
	// This process's CPU only: the store's server runs in another process.
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N)/1e3, "cpu-µs/record")
}

func BenchmarkStreamMem(b *testing.B) {
	s, err := Open(context.Background(), "mem://", nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	benchStream(b, s)
}

func BenchmarkStreamDir(b *testing.B) {
	s, err := Open(context.Background(), b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	benchStream(b, s)
}

// processCPU returns this process's user+system CPU time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkStreamPacedDir writes records at 20,000/s to a directory store,
// as a run at that rate does, and reports how long Write took: p99 and max
// (it must not wait on the store, nor on the spool's writes and fsyncs);
// how long after its Write each record was on local disk (the records a
// kill -9 can take: p50, p99, max). Its CPU cost is BenchmarkStreamDir's.
func BenchmarkStreamPacedDir(b *testing.B) {
	s, err := Open(context.Background(), b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	st, err := s.NewRun(NewRunID(time.Now())).NewStream("records", StreamOptions{Interval: time.Second, SpoolDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	type mark struct {
		bytes int64
		at    time.Duration
	}
	var marks []mark // the spooler's progress; read after Close
	start := time.Now()
	st.onSpooled = func(n int64) { marks = append(marks, mark{n, time.Since(start)}) }
	const every = 50 * time.Microsecond // 20,000 records/s
	took := make([]time.Duration, 0, b.N)
	written := make([]time.Duration, 0, b.N)
	for i := 0; i < b.N; i++ {
		for time.Since(start) < time.Duration(i)*every {
		}
		t0 := time.Since(start)
		if _, err := st.Write(benchRecord); err != nil {
			b.Fatal(err)
		}
		t1 := time.Since(start)
		took = append(took, t1-t0)
		written = append(written, t1)
	}
	if _, _, err := st.Close(context.Background()); err != nil {
		b.Fatal(err)
	}
	// Record i is on disk at the first mark that covers its last byte.
	exposed := make([]time.Duration, 0, b.N)
	m := 0
	for i, at := range written {
		end := int64(i+1) * int64(len(benchRecord))
		for m < len(marks) && marks[m].bytes < end {
			m++
		}
		if m == len(marks) {
			b.Fatalf("record %d never reached the spool", i)
		}
		exposed = append(exposed, marks[m].at-at)
	}
	q := func(d []time.Duration, p int) float64 {
		slices.Sort(d)
		return float64(d[min(len(d)-1, len(d)*p/100)].Nanoseconds()) / 1e3
	}
	b.ReportMetric(q(took, 99), "write-p99-µs")
	b.ReportMetric(q(took, 100), "write-max-µs")
	b.ReportMetric(q(exposed, 50), "to-disk-p50-µs")
	b.ReportMetric(q(exposed, 99), "to-disk-p99-µs")
	b.ReportMetric(q(exposed, 100), "to-disk-max-µs")
}
