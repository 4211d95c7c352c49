package telemetry

// NVMLSource is the NVML collector's Source, the name AIPerf gives its
// pynvml readings' telemetry_source_url.
const NVMLSource = "pynvml://localhost"

// noDataError is a reason there is nothing to collect: it is ErrNoData to
// errors.Is, and reads as its own message alone.
type noDataError string

func (e noDataError) Error() string { return string(e) }
func (e noDataError) Unwrap() error { return ErrNoData }
