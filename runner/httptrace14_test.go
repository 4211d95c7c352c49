package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
	"github.com/aiperf-go/aiperf/record"
)

// httpReqUnits are the 14 http_req_* metrics AIPerf 0.13 writes by default,
// with the units its profile_export_aiperf.json gives them.
var httpReqUnits = map[string]string{
	"http_req_blocked": "ms", "http_req_dns_lookup": "ms", "http_req_connecting": "ms",
	"http_req_sending": "ms", "http_req_waiting": "ms", "http_req_receiving": "ms",
	"http_req_duration": "ms", "http_req_total": "ms", "http_req_connection_overhead": "ms",
	"http_req_connection_reused": "ratio", "http_req_chunks_sent": "count",
	"http_req_chunks_received": "count", "http_req_data_sent": "KB", "http_req_data_received": "KB",
}

// TestHTTPTraceSchema14 checks that an --output-schema 1.4 run computes the
// http_req_* metrics without --show-trace-timing, as AIPerf 0.13 does: the
// summary has all 14 with 0.13's units, one value per valid request; each
// record's phases add up (sending + waiting + receiving = duration ≤
// total, overhead + duration = total); a reused connection spent nothing
// connecting; and the console shows no trace table (0.13 prints it only
// with --show-trace-timing). A 1.0 run has none of them.
func TestHTTPTraceSchema14(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{TTFT: 2 * time.Millisecond, ITL: 200 * time.Microsecond, OutputTokens: 8})
	var stdout bytes.Buffer
	run := func(schema string) (*Result, string) {
		cfg := testConfig(t, srv.URL())
		cfg.OutputSchema = schema
		cfg.Streaming = true
		cfg.Concurrency, cfg.RequestCount = 2, 8
		cfg.NoServerMetrics, cfg.NoGPUTelemetry = true, true
		if err := cfg.Validate(); err != nil {
			t.Fatal(err)
		}
		stdout.Reset()
		res, err := Run(context.Background(), cfg, Options{Version: "test", Stdout: &stdout})
		if err != nil {
			t.Fatal(err)
		}
		return res, cfg.ArtifactDir
	}

	res, dir := run("1.4")
	data, err := os.ReadFile(filepath.Join(dir, "profile_export_aiperf.json"))
	if err != nil {
		t.Fatal(err)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		t.Fatal(err)
	}
	type stat struct {
		Unit  string  `json:"unit"`
		Avg   float64 `json:"avg"`
		Max   float64 `json:"max"`
		Count int     `json:"count"`
	}
	summary := map[string]stat{}
	for tag, unit := range httpReqUnits {
		var m stat
		raw, ok := members[tag]
		if ok {
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatal(err)
			}
			summary[tag] = m
		}
		switch {
		case !ok:
			t.Errorf("1.4 summary has no %s", tag)
		case m.Unit != unit || m.Count != 8:
			t.Errorf("%s: unit %q count %d, want %q and 8", tag, m.Unit, m.Count, unit)
		}
	}
	if s := summary; s["http_req_total"].Avg < s["http_req_waiting"].Avg || s["http_req_total"].Avg < s["http_req_duration"].Avg ||
		s["http_req_connection_reused"].Max != 1 || s["http_req_data_received"].Avg <= 0 {
		t.Errorf("summary: total %v, waiting %v, duration %v, reused max %v, received %v KB", s["http_req_total"].Avg,
			s["http_req_waiting"].Avg, s["http_req_duration"].Avg, s["http_req_connection_reused"].Max, s["http_req_data_received"].Avg)
	}

	const eps = 1e-6 // ms; the record's values are rounded nanoseconds
	reused := 0
	for _, r := range readRecords(t, dir) {
		v := map[string]float64{}
		for tag := range httpReqUnits {
			n, ok := r.num(tag)
			if !ok {
				t.Fatalf("record %s has no %s", r.Metadata.XRequestID, tag)
			}
			v[tag] = n
		}
		exchange := v["http_req_sending"] + v["http_req_waiting"] + v["http_req_receiving"]
		if abs(exchange-v["http_req_duration"]) > eps || exchange > v["http_req_total"]+eps ||
			abs(v["http_req_connection_overhead"]+v["http_req_duration"]-v["http_req_total"]) > eps ||
			v["http_req_total"] < v["http_req_waiting"] {
			t.Errorf("record %s: phases do not add up: %v", r.Metadata.XRequestID, v)
		}
		if v["http_req_connection_reused"] == 1 {
			reused++
			if v["http_req_connecting"] != 0 || v["http_req_dns_lookup"] != 0 {
				t.Errorf("record %s reused its connection but spent %v ms connecting, %v ms in DNS",
					r.Metadata.XRequestID, v["http_req_connecting"], v["http_req_dns_lookup"])
			}
		} else if v["http_req_connecting"] <= 0 {
			t.Errorf("record %s dialed but spent no time connecting: %v", r.Metadata.XRequestID, v)
		}
	}
	if reused < 8-2 { // two senders, each dials once
		t.Errorf("%d of 8 requests reused a connection; want at least 6", reused)
	}
	if res.Summary.Get("http_req_waiting") == nil {
		t.Error("Result.Summary has no http_req_waiting")
	}
	if out := stdout.String(); !strings.Contains(out, "NVIDIA AIPerf | LLM Metrics") || strings.Contains(out, "HTTP Trace Timing") || strings.Contains(out, "HTTP Waiting") {
		t.Errorf("the 1.4 console shows HTTP trace rows without --show-trace-timing:\n%s", out)
	}

	_, dir = run("1.0")
	data, err = os.ReadFile(filepath.Join(dir, "profile_export_aiperf.json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "http_req_") {
		t.Error("a 1.0 run's summary has http_req_* metrics")
	}
	for _, r := range readRecords(t, dir) {
		if _, ok := r.num("http_req_waiting"); ok {
			t.Fatalf("a 1.0 run's record has http_req_waiting")
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestHTTPTraceRecycled checks the reuse of tracers (tracer.finish): a
// request on a kept-alive connection gives its tracer back, and the
// record keeps a trace of its own that later requests do not change; a
// request that dialed keeps the tracer's trace.
func TestHTTPTraceRecycled(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{})
	s := newTraceSender(t, srv.URL(), true)
	recs := make([]*record.Record, 4)
	snaps := make([]record.HTTPTrace, len(recs))
	for i := range recs {
		recs[i] = sendChat(s, "r"+strconv.Itoa(i), true)
		if recs[i].Error != nil || recs[i].HTTPTrace == nil {
			t.Fatalf("request %d: error %v, trace %v", i, recs[i].Error, recs[i].HTTPTrace)
		}
		snaps[i] = *recs[i].HTTPTrace
	}
	if recs[0].HTTPTrace.Reused || !recs[1].HTTPTrace.Reused {
		t.Fatalf("reused: first %v, second %v; want a dial, then a kept-alive connection",
			recs[0].HTTPTrace.Reused, recs[1].HTTPTrace.Reused)
	}
	for i, rec := range recs {
		checkExchange(t, rec)
		if *rec.HTTPTrace != snaps[i] {
			t.Errorf("request %d's trace changed after later requests:\n was %+v\n now %+v", i, snaps[i], *rec.HTTPTrace)
		}
		for j := range i {
			if rec.HTTPTrace == recs[j].HTTPTrace {
				t.Errorf("requests %d and %d share a trace", j, i)
			}
		}
	}
}
