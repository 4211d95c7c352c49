package query

import (
	"errors"
	"fmt"
)

// Columns of the GPU rows the telemetry table function yields (see
// gpuTableColumns); a row's null bit for column c is 1<<c.
const (
	gpuColTimestamp = iota
	gpuColSource
	gpuColIndex
	gpuColUUID
	gpuColModel
	gpuColPCIBus
	gpuColDevice
	gpuColHostname
	gpuColField // the first of GPUFields
)

// numGPUStrs counts the text columns, gpuColSource and gpuColUUID to
// gpuColHostname.
const numGPUStrs = 6

// numGPUFields is len(GPUFields) (checked by a test).
const numGPUFields = 19

// gpuAllNull has the null bit of every GPU row column set.
const gpuAllNull = uint64(1)<<(gpuColField+numGPUFields) - 1

// gpuStrColumns maps a text column to its index in gpuRow.strs.
var gpuStrColumns = [numGPUStrs]int{gpuColSource, gpuColUUID, gpuColModel, gpuColPCIBus, gpuColDevice, gpuColHostname}

// gpuKeys maps the keys of a gpu_telemetry_export.jsonl line to columns.
// dcgm_url is AIPerf's name of telemetry_source_url before 0.12.
var gpuKeys = map[string]int{
	"timestamp_ns":         gpuColTimestamp,
	"telemetry_source_url": gpuColSource,
	"dcgm_url":             gpuColSource,
	"gpu_index":            gpuColIndex,
	"gpu_uuid":             gpuColUUID,
	"gpu_model_name":       gpuColModel,
	"pci_bus_id":           gpuColPCIBus,
	"device":               gpuColDevice,
	"hostname":             gpuColHostname,
}

// gpuFieldKeys maps the keys of telemetry_data, aliases included, to the
// index of their field in GPUFields.
var gpuFieldKeys = func() map[string]int {
	m := map[string]int{}
	for i, f := range GPUFields {
		m[f.Column] = i
		for _, a := range f.Aliases {
			m[a] = i
		}
	}
	return m
}()

// gpuRow is one GPU reading.
type gpuRow struct {
	timestampNS int64
	index       int64
	strs        [numGPUStrs]span // by gpuStrColumns, in gpuBatch.text
	fields      [numGPUFields]float64
	null        uint64
}

// gpuBatch holds decoded GPU readings; their text is in text.
type gpuBatch struct {
	rows []gpuRow
	text []byte
}

func (b *gpuBatch) str(r *gpuRow, i int) []byte {
	sp := r.strs[i]
	return b.text[sp.off : sp.off+sp.n]
}

// gpuDecoder decodes gpu_telemetry_export.jsonl lines, AIPerf's GPU
// telemetry line schema: {"timestamp_ns", "gpu_index", "gpu_uuid",
// "gpu_model_name", "pci_bus_id", "device", "hostname",
// "telemetry_data": {field: number, …}, "telemetry_source_url"}. Every
// line is one row; timestamp_ns is required (an integer), every other
// key may be missing or null (NULL). Text keys take strings, gpu_index an
// integer (a number with a fraction rounds half to even, as DuckDB casts),
// telemetry_data's fields numbers: NaN and infinities are NULL. Unknown
// keys and fields are skipped; of a key given twice, the last value
// counts. The credentials of telemetry_source_url are hidden
// (secret.URL). A decoder is not safe for concurrent use.
type gpuDecoder struct {
	s jsonScanner
	// urls hides the credentials of telemetry_source_url.
	urls urlRedactor
}

// errNoTimestamp reports a telemetry line without timestamp_ns.
var errNoTimestamp = errors.New("no timestamp_ns")

// decodeLine implements lineDecoder.
func (d *gpuDecoder) decodeLine(b *gpuBatch, line []byte) error {
	s := &d.s
	if blank, err := s.objectLine(line); blank || err != nil {
		return err
	}
	r := gpuRow{null: gpuAllNull}
	err := members(s, func(key []byte) error {
		if string(key) == "telemetry_data" {
			return d.fields(&r)
		}
		if col, known := gpuKeys[string(key)]; known {
			return d.column(b, &r, col)
		}
		return s.skip(0)
	})
	if err != nil {
		return err
	}
	if err := s.end(); err != nil {
		return err
	}
	if r.null&(1<<gpuColTimestamp) != 0 {
		return errNoTimestamp
	}
	b.rows = append(b.rows, r)
	return nil
}

// column reads the value of a top-level key into column col of r.
func (d *gpuDecoder) column(b *gpuBatch, r *gpuRow, col int) error {
	switch col {
	case gpuColTimestamp, gpuColIndex:
		bits := 64
		if col == gpuColIndex {
			bits = 32
		}
		v, null, err := d.s.intValue(bits)
		if err != nil {
			return fmt.Errorf("%s: %w", gpuTableColumnNames[col], err)
		}
		if col == gpuColTimestamp {
			r.timestampNS = v
		} else {
			r.index = v
		}
		setNull(&r.null, col, null)
		return nil
	}
	v, null, err := d.s.textValue()
	if err != nil {
		return fmt.Errorf("%s: %w", gpuTableColumnNames[col], err)
	}
	if col == gpuColSource {
		v = d.urls.redact(v)
	}
	for i, c := range gpuStrColumns {
		if c == col {
			r.strs[i] = addSpan(&b.text, v)
		}
	}
	setNull(&r.null, col, null)
	return nil
}

// fields reads the telemetry_data object into r.
func (d *gpuDecoder) fields(r *gpuRow) error {
	s := &d.s
	const fieldBits = gpuAllNull &^ (1<<gpuColField - 1)
	r.null |= fieldBits // the last telemetry_data counts
	return members(s, func(key []byte) error {
		i, known := gpuFieldKeys[string(key)]
		if !known {
			return s.skip(0)
		}
		v, null, err := s.floatValue()
		if err != nil {
			return fmt.Errorf("telemetry_data.%s: %w", GPUFields[i].Column, err)
		}
		r.fields[i] = v
		setNull(&r.null, gpuColField+i, null)
		return nil
	})
}

// setNull sets or clears the null bit of column col.
func setNull(mask *uint64, col int, null bool) {
	if null {
		*mask |= 1 << col
	} else {
		*mask &^= 1 << col
	}
}
