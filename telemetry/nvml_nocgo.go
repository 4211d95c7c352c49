//go:build !cgo

package telemetry

// NewNVML reports that this binary was built without cgo, which go-nvml
// needs to load libnvidia-ml; the error wraps ErrNoData, so the run goes
// on without GPU telemetry. DCGM exporter URLs work in every build.
func NewNVML() (Collector, error) {
	return nil, noDataError("nvml: this aiperf was built without cgo, which NVML needs")
}
