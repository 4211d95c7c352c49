package telemetry

import (
	"math"
	"strings"
	"testing"
)

// TestAppendServerRecord: AIPerf's slim record, byte for byte as orjson
// writes it: families sorted by AIPerf's name (counters without _total),
// labels sorted, _info, summary and _created families left out, NaN
// samples dropped, bucket keys as prometheus_client writes le.
func TestAppendServerRecord(t *testing.T) {
	body := `# HELP vllm:prompt_tokens_total Prompt tokens.
# TYPE vllm:prompt_tokens_total counter
vllm:prompt_tokens_total{model_name="m",engine="0"} 1234
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="m"} 2
vllm:num_requests_running{model_name="x"} NaN
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{model_name="m",le="0.001"} 0
vllm:time_to_first_token_seconds_bucket{model_name="m",le="1.0"} 3
vllm:time_to_first_token_seconds_bucket{model_name="m",le="2500000.0"} 4
vllm:time_to_first_token_seconds_bucket{model_name="m",le="+Inf"} 4
vllm:time_to_first_token_seconds_sum{model_name="m"} 0.00001
vllm:time_to_first_token_seconds_count{model_name="m"} 4
# TYPE vllm:cache_config_info gauge
vllm:cache_config_info{block_size="16"} 1
# TYPE s summary
s_sum 1
s_count 1
`
	fams, err := ParseExposition([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	s := Sample{Kind: KindServer, Source: "http://user:pw@localhost:8000/metrics", TimeNS: 1700000000123456789, LatencyNS: 1500000, Server: fams}
	got := string(AppendServerRecord([]byte("x"), s))
	want := `x{"endpoint_url":"http://<redacted>@localhost:8000/metrics","timestamp_ns":1700000000123456789,"endpoint_latency_ns":1500000,"metrics":{` +
		`"vllm:num_requests_running":[{"labels":{"model_name":"m"},"value":2.0}],` +
		`"vllm:prompt_tokens":[{"labels":{"engine":"0","model_name":"m"},"value":1234.0}],` +
		`"vllm:time_to_first_token_seconds":[{"labels":{"model_name":"m"},"buckets":{"0.001":0.0,"1.0":3.0,"2.5e+06":4.0,"+Inf":4.0},"sum":0.00001,"count":4.0}]}}`
	if got != want {
		t.Errorf("record\n got %s\nwant %s", got, want)
	}
	empty := Sample{Kind: KindServer, Source: ep1, Server: fams}
	delete(empty.Server, "vllm:prompt_tokens_total")
	delete(empty.Server, "vllm:num_requests_running")
	delete(empty.Server, "vllm:time_to_first_token_seconds")
	if got := AppendServerRecord([]byte("x"), empty); string(got) != "x" {
		t.Errorf("a sample without usable families appended %q", got)
	}
}

// TestServerDedup: A A A B B C D D D D gives A A B B C D D by default (the
// last D at Flush), A B C D with FirstOnly; endpoints are independent.
func TestServerDedup(t *testing.T) {
	seq := "AAABBCDDDD"
	sample := func(i int, src string) Sample {
		return serverSample(src, t0+int64(i)*sec, gaugeFam("g", float64(seq[i])))
	}
	run := func(d *ServerDedup, src string) string {
		var out []byte
		for i := range seq {
			out = d.Append(out, sample(i, src))
		}
		out = d.Flush(out)
		var got []string
		for _, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
			i := strings.Index(line, `"value":`)
			v := line[i+8 : i+10]
			got = append(got, map[string]string{"65": "A", "66": "B", "67": "C", "68": "D"}[v])
			if !strings.Contains(line, src) {
				t.Errorf("line %s is not from %s", line, src)
			}
		}
		return strings.Join(got, "")
	}
	if got := run(NewServerDedup(), ep1); got != "AABBCDD" {
		t.Errorf("first and last: %s, want AABBCDD", got)
	}
	if got := run(&ServerDedup{FirstOnly: true}, ep1); got != "ABCD" {
		t.Errorf("first only: %s, want ABCD", got)
	}
	// Two endpoints interleaved, one of them constant.
	d := NewServerDedup()
	var out []byte
	for i := range seq {
		out = d.Append(out, sample(i, ep1))
		out = d.Append(out, serverSample(ep2, t0+int64(i)*sec, gaugeFam("g", 1)))
	}
	out = d.Flush(out)
	if n1, n2 := strings.Count(string(out), ep1), strings.Count(string(out), ep2); n1 != 7 || n2 != 2 {
		t.Errorf("lines per endpoint %d, %d; want 7, 2", n1, n2)
	}
	// The retained last record is the latest duplicate's (its timestamp).
	if !strings.Contains(string(out), `"timestamp_ns":1700000009000000000,"endpoint_latency_ns":2000000,"metrics":{"g":[{"value":68.0}]}}`) {
		t.Errorf("the flushed record is not the last duplicate:\n%s", out)
	}
}

// TestAppendJSONFloat checks orjson's float spelling, taken from orjson
// 3.11 itself.
func TestAppendJSONFloat(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{
		{3, "3.0"}, {0.1, "0.1"}, {1e-5, "0.00001"}, {1.234e-5, "0.00001234"}, {1.5e-6, "1.5e-6"},
		{1e-9, "1e-9"}, {1.23e-8, "1.23e-8"}, {1e15, "1000000000000000.0"}, {1e16, "1e+16"},
		{1.2345678901234568e+16, "1.2345678901234568e+16"}, {123.456, "123.456"}, {math.Copysign(0, -1), "-0.0"},
		{-2.5e-7, "-2.5e-7"}, {1e300, "1e+300"}, {5e-324, "5e-324"}, {0.3, "0.3"}, {0, "0.0"},
		{123456789.123, "123456789.123"}, {math.NaN(), "null"}, {math.Inf(1), "null"},
	} {
		if got := string(AppendJSONFloat(nil, c.f)); got != c.want {
			t.Errorf("AppendJSONFloat(%v) = %s, want %s", c.f, got, c.want)
		}
	}
}

// TestAppendLE checks prometheus_client's floatToGoString, taken from
// prometheus_client itself.
func TestAppendLE(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{
		{0.1, "0.1"}, {1, "1.0"}, {1e6, "1e+06"}, {2.5e7, "2.5e+07"}, {1e10, "1e+010"},
		{1234567, "1.234567e+06"}, {12345678.9, "1.23456789e+07"}, {1e-5, "1e-05"},
		{0.005, "0.005"}, {2560, "2560.0"}, {999999, "999999.0"}, {1e16, "1e+16"},
		{1e22, "1e+22"}, {math.Inf(1), "+Inf"}, {-1, "-1.0"}, {0, "0.0"},
	} {
		if got := string(AppendLE(nil, c.f)); got != c.want {
			t.Errorf("AppendLE(%v) = %s, want %s", c.f, got, c.want)
		}
	}
}
