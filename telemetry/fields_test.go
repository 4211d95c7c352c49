package telemetry

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestFieldsJSON(t *testing.T) {
	fs := Fields{{"gpu_power_usage", 30.257}, {"gpu_utilization", 2}, {"gpu_memory_used", 49.659510784000005},
		{"power_violation", 1965252006528}, {"tiny", 1.5e-05}, {"huge", 1e16 * 10}, {"bad", math.NaN()}}
	want := `{"gpu_power_usage":30.257,"gpu_utilization":2.0,"gpu_memory_used":49.659510784000005,` +
		`"power_violation":1965252006528.0,"tiny":1.5e-05,"huge":1e+17,"bad":null}`
	b, err := json.Marshal(fs)
	if err != nil || string(b) != want {
		t.Fatalf("Marshal = %s, %v\nwant %s", b, err, want)
	}
	if v, ok := fs.Get("gpu_utilization"); !ok || v != 2 {
		t.Errorf("Get = %v, %v", v, ok)
	}
	if _, ok := fs.Get("absent"); ok {
		t.Error("Get found an absent field")
	}
	if string(Fields(nil).AppendJSON(nil)) != "{}" {
		t.Error("empty fields")
	}

	for _, tc := range []struct {
		in   string
		want Fields
		err  string
	}{
		{`{"b":2,"a":1.5,"b":3,"n":null,"i":7}`, Fields{{"b", 3}, {"a", 1.5}, {"i", 7}}, ""},
		{`{}`, Fields{}, ""},
		{`null`, nil, ""},
		{`{"a":"1"}`, nil, `"a" is not a number`},
		{`{"a":{"b":1}}`, nil, `"a" is not a number`},
		{`{"a":true}`, nil, `"a" is not a number`},
		{`[1]`, nil, "not a JSON object"},
		{`{"a":1e999}`, nil, "out of range"},
	} {
		var got Fields
		err := json.Unmarshal([]byte(tc.in), &got)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestGPUReadingJSON(t *testing.T) {
	// AIPerf 0.8–0.11 named the source dcgm_url, and leaves out what it
	// did not get (exclude_none); later keys it adds are ignored.
	in := `{"gpu_index":1,"gpu_uuid":"GPU-x","gpu_model_name":"M","namespace":"ns","platform":"nvidia",` +
		`"timestamp_ns":5,"dcgm_url":"http://h:9401/metrics","telemetry_data":{"gpu_power_usage":1.0}}`
	var r GPUReading
	if err := json.Unmarshal([]byte(in), &r); err != nil {
		t.Fatal(err)
	}
	want := GPUReading{TimestampNS: 5, GPUIndex: 1, GPUUUID: "GPU-x", GPUModelName: "M",
		Data: Fields{{"gpu_power_usage", 1}}, SourceURL: "http://h:9401/metrics"}
	if !reflect.DeepEqual(r, want) {
		t.Fatalf("got %+v\nwant %+v", r, want)
	}
	out, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if w := `{"timestamp_ns":5,"gpu_index":1,"gpu_uuid":"GPU-x","gpu_model_name":"M",` +
		`"telemetry_data":{"gpu_power_usage":1.0},"telemetry_source_url":"http://h:9401/metrics"}`; string(out) != w {
		t.Errorf("Marshal = %s\nwant %s", out, w)
	}
	if err := json.Unmarshal([]byte(`{"telemetry_data":{"a":"x"}}`), &r); err == nil {
		t.Error("bad telemetry_data accepted")
	}
}

// FuzzFieldsJSON: whatever Fields accepts, it writes back in a form it
// reads as the same fields (NaN and infinities cannot come from JSON).
func FuzzFieldsJSON(f *testing.F) {
	f.Add([]byte(`{"gpu_power_usage":30.257,"energy_consumption":32.62748095,"x":null}`))
	f.Add([]byte(`{"a":1,"a":-0.0,"\u00e9\ud83d\ude00":1e-7}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var fs Fields
		if err := json.Unmarshal(data, &fs); err != nil {
			return
		}
		out := fs.AppendJSON(nil)
		var back Fields
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("re-read %s: %v", out, err)
		}
		if len(back) != len(fs) {
			t.Fatalf("%v became %v", fs, back)
		}
		for i := range fs {
			if back[i].Value != fs[i].Value || (back[i].Name != fs[i].Name && !strings.ContainsRune(fs[i].Name, '\ufffd')) {
				t.Fatalf("%v became %v", fs, back)
			}
		}
	})
}
