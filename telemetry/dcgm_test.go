package telemetry

import (
	"context"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// serveBodies serves the bodies in turn (the last one repeats) as a DCGM
// exporter would.
func serveBodies(t *testing.T, bodies ...string) *httptest.Server {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		i := min(int(n.Add(1))-1, len(bodies)-1)
		w.Header().Set("Content-Type", "text/plain; version=0.0.4")
		_, _ = w.Write([]byte(bodies[i]))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/dcgm/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDCGMCollectTwoH100 scrapes a recorded dcgm-exporter exposition (two
// GPUs, the exporter's default and profiling fields) over HTTP. The
// expected values are worked out by hand from the exposition and AIPerf's
// unit factors (mJ×1e-9, MiB×1.048576e-3, ratio×100, ns×1e-3), and agree
// with what AIPerf 0.13's DCGMTelemetryCollector parses from the same text
// (its nvidia_* names aside).
func TestDCGMCollectTwoH100(t *testing.T) {
	srv := serveBodies(t, readTestdata(t, "two_h100.prom"))
	url := srv.URL + "/metrics"
	d := NewDCGM(url, srv.Client())
	if d.Source() != url || d.Kind() != KindGPU {
		t.Fatalf("source %q kind %q", d.Source(), d.Kind())
	}
	s, err := d.Collect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	identity := func(i int, uuid, bus string) GPUReading {
		return GPUReading{GPUIndex: i, GPUUUID: uuid, GPUModelName: "NVIDIA H100 80GB HBM3",
			PCIBusID: bus, Device: "nvidia" + string(rune('0'+i)), Hostname: "dgx-node-07", SourceURL: url}
	}
	want := []GPUReading{
		identity(0, "GPU-5a1b2c3d-0e1f-4a5b-8c9d-0e1f2a3b4c5d", "00000000:18:00.0"),
		identity(1, "GPU-9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a", "00000000:2A:00.0"),
	}
	want[0].Data = Fields{
		{"gpu_power_usage", 312.456},
		{"energy_consumption", 123.456789012}, // 123456789012 mJ
		{"gpu_utilization", 87},
		{"gpu_memory_used", 42.94967296}, // 40960 MiB = 40960 × 1,048,576 B
		{"gpu_temperature", 45},
		{"mem_utilization", 34},
		{"sm_utilization", 73.4}, // ratio 0.734
		{"decoder_utilization", 0},
		{"encoder_utilization", 0},
		{"xid_errors", 0},
		{"power_violation", 1523}, // 1,523,000 ns
	}
	want[1].Data = Fields{
		{"gpu_power_usage", 68.921},
		{"energy_consumption", 98.7654321},
		{"gpu_utilization", 0},
		{"gpu_memory_used", 0.536870912},
		{"gpu_temperature", 33},
		{"mem_utilization", 0},
		{"sm_utilization", 0},
		{"decoder_utilization", 0},
		{"encoder_utilization", 0},
		{"xid_errors", 43},
		{"power_violation", 0},
	}
	if len(s.GPUs) != len(want) {
		t.Fatalf("got %d readings, want %d: %+v", len(s.GPUs), len(want), s.GPUs)
	}
	for i, got := range s.GPUs {
		if got.TimestampNS == 0 {
			t.Errorf("gpu %d: no timestamp", i)
		}
		got.TimestampNS = 0
		gotData, wantData := got.Data, want[i].Data
		got.Data, want[i].Data = nil, nil
		if !reflect.DeepEqual(got, want[i]) {
			t.Errorf("gpu %d identity:\n got %+v\nwant %+v", i, got, want[i])
		}
		if len(gotData) != len(wantData) {
			t.Fatalf("gpu %d fields:\n got %v\nwant %v", i, gotData, wantData)
		}
		for j, f := range gotData {
			w := wantData[j]
			if f.Name != w.Name || math.Abs(f.Value-w.Value) > 1e-12*math.Max(1, math.Abs(w.Value)) {
				t.Errorf("gpu %d field %d: got %s=%v, want %s=%v", i, j, f.Name, f.Value, w.Name, w.Value)
			}
		}
	}
	// The line as AIPerf writes it (0.13 writes the same values, bit for
	// bit, under its nvidia_* names).
	line := string(func() GPUReading { r := s.GPUs[1]; r.TimestampNS = 7; return r }().AppendJSON(nil))
	wantLine := `{"timestamp_ns":7,"gpu_index":1,"gpu_uuid":"GPU-9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a",` +
		`"gpu_model_name":"NVIDIA H100 80GB HBM3","pci_bus_id":"00000000:2A:00.0","device":"nvidia1",` +
		`"hostname":"dgx-node-07","telemetry_data":{"gpu_power_usage":68.921,` +
		`"energy_consumption":98.76543210000001,"gpu_utilization":0.0,"gpu_memory_used":0.536870912,` +
		`"gpu_temperature":33.0,"mem_utilization":0.0,"sm_utilization":0.0,"decoder_utilization":0.0,` +
		`"encoder_utilization":0.0,"xid_errors":43.0,"power_violation":0.0},` +
		`"telemetry_source_url":"` + url + `"}`
	if line != wantLine {
		t.Errorf("line:\n got %s\nwant %s", line, wantLine)
	}
}

// TestDCGMSkipsRepeatedScrapes: a scrape equal to the last delivered one
// gives no readings (after the first two), a changed one does.
func TestDCGMSkipsRepeatedScrapes(t *testing.T) {
	a := readTestdata(t, "two_h100.prom")
	b := strings.Replace(a, "312.456000", "313.000000", 1)
	srv := serveBodies(t, a, a, a, b, b)
	d := NewDCGM(srv.URL+"/metrics", srv.Client())
	var got []int
	for range 5 {
		s, err := d.Collect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, len(s.GPUs))
	}
	if want := []int{2, 2, 0, 2, 0}; !reflect.DeepEqual(got, want) {
		t.Errorf("readings per scrape %v, want %v", got, want)
	}
}

func TestDCGMCollectFailures(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	for _, tc := range []struct {
		name   string
		url    string
		noData bool
	}{
		{"refused", down.URL + "/metrics", false},
		{"http 500", httpStatusServer(t, http.StatusInternalServerError).URL + "/metrics", false},
		{"garbage", serveBodies(t, "{not an exposition\n").URL + "/metrics", false},
		{"not dcgm", serveBodies(t, "# TYPE node_load1 gauge\nnode_load1 0.5\n").URL + "/metrics", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewDCGM(tc.url, nil).Collect(context.Background())
			if err == nil {
				t.Fatal("no error")
			}
			if errors.Is(err, ErrNoData) != tc.noData {
				t.Errorf("ErrNoData %v, want %v: %v", errors.Is(err, ErrNoData), tc.noData, err)
			}
		})
	}
}

func httpStatusServer(t *testing.T, code int) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(code)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestDCGMReadingsMapping covers the label and field mapping's edges.
func TestDCGMReadingsMapping(t *testing.T) {
	const id0 = `gpu="0",UUID="GPU-a",modelName="M",Hostname="h"`
	for _, tc := range []struct {
		name string
		text string
		want []string // "index uuid field=value ..." per reading
		err  string
	}{
		{
			name: "openmetrics counter with _total",
			text: "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n" +
				"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION_total{" + id0 + "} 2000000000\n# EOF\n",
			want: []string{"0 GPU-a energy_consumption=2"},
		},
		{
			name: "untyped, non-finite skipped",
			text: "DCGM_FI_DEV_GPU_UTIL{" + id0 + "} 55\n" +
				"DCGM_FI_DEV_GPU_TEMP{" + id0 + "} NaN\n" +
				"DCGM_FI_DEV_POWER_USAGE{" + id0 + "} +Inf\n",
			want: []string{"0 GPU-a gpu_utilization=55"},
		},
		{
			name: "no or bad gpu label ignored, index order",
			text: "DCGM_FI_DEV_GPU_UTIL{UUID=\"GPU-x\"} 1\n" +
				"DCGM_FI_DEV_GPU_UTIL{gpu=\"two\",UUID=\"GPU-y\"} 2\n" +
				"DCGM_FI_DEV_GPU_UTIL{gpu=\"10\",UUID=\"GPU-c\"} 10\n" +
				"DCGM_FI_DEV_GPU_UTIL{gpu=\"9\",UUID=\"GPU-b\"} 9\n",
			want: []string{"9 GPU-b gpu_utilization=9", "10 GPU-c gpu_utilization=10"},
		},
		{
			name: "identity from a sample with a UUID; MIG rows: the last wins",
			text: "DCGM_FI_DEV_FB_USED{gpu=\"0\",GPU_I_ID=\"1\"} 1000\n" +
				"DCGM_FI_DEV_FB_USED{gpu=\"0\",GPU_I_ID=\"2\",UUID=\"GPU-m\"} 2000\n" +
				"DCGM_FI_DEV_GPU_UTIL{gpu=\"1\"} 3\n",
			want: []string{"0 GPU-m gpu_memory_used=2.0971520000000003"}, // Python: 2000*1.048576e-3,
		},
		{
			name: "no UUID anywhere",
			text: "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 3\n",
			err:  "no GPU in the DCGM exposition has a UUID label",
		},
		{
			name: "no DCGM field",
			text: "DCGM_FI_DEV_SM_CLOCK{" + id0 + "} 1980\n",
			err:  "no DCGM GPU fields",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fams, err := ParseExposition([]byte(tc.text))
			if err != nil {
				t.Fatal(err)
			}
			rs, err := dcgmReadings(fams, "src", 1)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range rs {
				s := strings.Join([]string{strconv.Itoa(r.GPUIndex), r.GPUUUID}, " ")
				for _, f := range r.Data {
					s += " " + f.Name + "=" + strconv.FormatFloat(f.Value, 'g', -1, 64)
				}
				got = append(got, s)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}
