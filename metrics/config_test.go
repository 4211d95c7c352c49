package metrics

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestParseGoodput(t *testing.T) {
	tests := []struct {
		spec    string
		want    []SLO
		wantErr string
	}{
		{spec: "", want: nil},
		{spec: "   ", want: nil},
		{
			spec: "time_to_first_token:250 inter_token_latency:10",
			want: []SLO{{"time_to_first_token", 250}, {"inter_token_latency", 10}},
		},
		{
			spec: " request_latency:1.5e3\toutput_token_throughput_per_user:300 ",
			want: []SLO{{"request_latency", 1500}, {"output_token_throughput_per_user", 300}},
		},
		{spec: "request_latency:10 request_latency:20", want: []SLO{{"request_latency", 20}}},
		{spec: "ttft:250 itl:10", wantErr: "Unknown metric tag(s) in --goodput: ttft, itl"},
		{spec: "request_latency:5 bogus:1", wantErr: "Unknown metric tag(s) in --goodput: bogus"},
		{spec: "request_latency", wantErr: `invalid --goodput pair "request_latency": want tag:value`},
		{spec: ":5", wantErr: `invalid --goodput pair ":5"`},
		{spec: "request_latency:", wantErr: `invalid --goodput pair "request_latency:"`},
		{spec: "request_latency:fast", wantErr: `"fast" is not a finite number`},
		{spec: "request_latency:NaN", wantErr: "is not a finite number"},
		{spec: "request_latency:1:2", wantErr: `"1:2" is not a finite number`},
		{spec: "request_throughput:5", wantErr: "invalid --goodput metric request_throughput: not a per-request metric"},
		{spec: "inter_chunk_latency:5", wantErr: "not a per-request metric"},
		{spec: "error_isl:5", wantErr: "not a per-request metric"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			got, err := ParseGoodput(tt.spec)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func FuzzParseGoodput(f *testing.F) {
	for _, s := range []string{
		"time_to_first_token:250 inter_token_latency:10", "", "x:1", "request_latency:-1e308",
		"request_latency::", "output_sequence_length:0x1p3", "a b c", "request_latency:1 request_latency:2",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		slos, err := ParseGoodput(spec)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		var b strings.Builder
		for _, s := range slos {
			m, ok := Lookup(s.Tag)
			if !ok || m.Kind != KindRecord {
				t.Fatalf("accepted %q", s.Tag)
			}
			if math.IsNaN(s.Threshold) || math.IsInf(s.Threshold, 0) || seen[s.Tag] {
				t.Fatalf("bad SLO %+v", s)
			}
			seen[s.Tag] = true
			b.WriteString(s.Tag + ":" + strconv.FormatFloat(s.Threshold, 'g', -1, 64) + " ")
		}
		again, err := ParseGoodput(b.String())
		if err != nil || !reflect.DeepEqual(again, slos) {
			t.Fatalf("round trip of %q: %v, %v", b.String(), again, err)
		}
	})
}

func TestConfigValidate(t *testing.T) {
	ok := streamingChat()
	ok.Goodput = []SLO{{"time_to_first_token", 10}}
	if err := ok.Validate(); err != nil {
		t.Errorf("valid config: %v", err)
	}
	bad := plainChat()
	bad.Goodput = []SLO{{"time_to_first_token", 10}, {"nope", 1}}
	bad.Tokenizer = nil
	err := bad.Validate()
	for _, want := range []string{
		"--goodput metric time_to_first_token is not applicable",
		"Unknown metric tag(s) in --goodput: nope",
		"tokenizer is required",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want containing %q", err, want)
		}
	}
	server := &Config{ProducesTokens: true, UseServerTokenCount: true}
	if err := server.Validate(); err != nil {
		t.Errorf("server token counts need no tokenizer: %v", err)
	}
}
