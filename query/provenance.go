package query

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/aiperf-go/aiperf/internal/secret"
)

// provenance is what a run's manifest says it measured: its "server"
// field (the inference server's Server header, software, version, models
// and info metrics) and its "telemetry" field (the sources' health and
// the GPU count). Both are absent in runs of older tools.
type provenance struct {
	URL, Header, Software, Version string
	Models                         []string
	Info                           []byte // JSON; nil: NULL
	Sources                        []byte // JSON; nil: NULL
	GPUCount                       *int
}

// parseProvenance reads the server and telemetry fields of a manifest.
// It returns nil when the manifest has neither; a field of an unexpected
// shape is left out rather than failing the run's load.
func parseProvenance(manifest []byte) *provenance {
	var m struct {
		Telemetry *struct {
			Sources  json.RawMessage `json:"sources"`
			GPUCount json.RawMessage `json:"gpu_count"`
		} `json:"telemetry"`
		Server *struct {
			URL      json.RawMessage   `json:"url"`
			Header   json.RawMessage   `json:"header"`
			Software json.RawMessage   `json:"software"`
			Version  json.RawMessage   `json:"version"`
			Models   []json.RawMessage `json:"models"`
			Info     json.RawMessage   `json:"info"`
		} `json:"server"`
	}
	if json.Unmarshal(manifest, &m) != nil || m.Telemetry == nil && m.Server == nil {
		return nil
	}
	p := &provenance{}
	if t := m.Telemetry; t != nil {
		p.Sources = jsonValue(t.Sources)
		var n int
		if json.Unmarshal(t.GPUCount, &n) == nil && n > 0 {
			p.GPUCount = &n
		}
	}
	if s := m.Server; s != nil {
		p.URL, p.Header, p.Software, p.Version = jsonString(s.URL), jsonString(s.Header), jsonString(s.Software), jsonString(s.Version)
		for _, raw := range s.Models {
			var obj struct{ ID, Name string }
			switch {
			case jsonString(raw) != "":
				p.Models = append(p.Models, jsonString(raw))
			case json.Unmarshal(raw, &obj) == nil && obj.ID != "":
				p.Models = append(p.Models, obj.ID)
			case obj.Name != "":
				p.Models = append(p.Models, obj.Name)
			}
		}
		p.Info = jsonValue(s.Info)
	}
	return p
}

// jsonString returns raw's string, or "" when it is not one.
func jsonString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// jsonValue returns raw compacted, or nil for nothing or null.
func jsonValue(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if len(raw) == 0 || json.Compact(&b, raw) != nil || b.String() == "null" {
		return nil
	}
	return b.Bytes()
}

// updateProvenance writes p into the run's provenance columns (nil
// leaves them NULL), its URL and JSON documents with their secrets
// hidden.
func updateProvenance(ctx context.Context, tx *sql.Tx, runID string, p *provenance) error {
	if p == nil {
		return nil
	}
	var models []byte
	if len(p.Models) > 0 {
		models, _ = json.Marshal(p.Models) // strings always marshal
	}
	_, err := tx.ExecContext(ctx, `UPDATE runs SET server_url = ?, server_header = ?, server_software = ?,
		server_version = ?, server_models = CAST(CAST(? AS JSON) AS VARCHAR[]), server_info = ?,
		telemetry_sources = ?, gpu_count = ? WHERE run_id = ?`,
		str(secret.URL(p.URL)), str(p.Header), str(p.Software), str(p.Version), jsonArg(models), jsonArg(redactDocument(p.Info)),
		jsonArg(redactDocument(p.Sources)), opt(p.GPUCount), runID)
	if err != nil {
		return fmt.Errorf("update run provenance: %w", err)
	}
	return nil
}
