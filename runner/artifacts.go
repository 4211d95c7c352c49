package runner

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/export"
	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/record"
)

// Artifacts are the paths of the files a run wrote ("" when not written).
type Artifacts struct {
	Records, Raw, JSON, CSV, Inputs, Log string
}

// artifacts owns the artifact files of one run.
type artifacts struct {
	dir     string
	paths   Artifacts
	records *os.File
	recBuf  *bufio.Writer
	recW    *export.RecordWriter
	raw     *os.File
	rawBuf  *bufio.Writer
	rawEnc  *json.Encoder
	logFile *os.File
}

// ArtifactDir returns the directory a run writes to: --artifact-dir itself
// when given, else AIPerf's default artifacts/<model>-openai-<type>-<stimulus>.
func ArtifactDir(cfg *Config) string {
	if cfg.ArtifactDirSet {
		return cfg.ArtifactDir
	}
	model := "model"
	if len(cfg.Models) > 0 {
		model = strings.ReplaceAll(cfg.Models[0], "/", "_")
		if len(cfg.Models) > 1 {
			model += "_multi"
		}
	}
	name := fmt.Sprintf("%s-openai-%s-%s", model, cfg.EndpointType, cfg.Stimulus())
	return filepath.Join(cfg.ArtifactDir, name)
}

// exportNames returns the base names of the record, summary JSON and CSV
// files: AIPerf's defaults, or PREFIX.jsonl, PREFIX.json, PREFIX.csv.
func exportNames(prefix string) (records, raw, json, csv string) {
	if prefix == "" {
		return "profile_export.jsonl", "profile_export_raw.jsonl", "profile_export_aiperf.json", "profile_export_aiperf.csv"
	}
	prefix = strings.TrimSuffix(prefix, filepath.Ext(prefix))
	return prefix + ".jsonl", prefix + "_raw.jsonl", prefix + ".json", prefix + ".csv"
}

// openArtifacts creates the directory and opens the streaming record files.
func openArtifacts(cfg *Config, clock *record.Clock) (*artifacts, error) {
	dir := ArtifactDir(cfg)
	if err := os.MkdirAll(filepath.Join(dir, "logs"), 0o755); err != nil {
		return nil, fmt.Errorf("artifact dir: %w", err)
	}
	recName, rawName, jsonName, csvName := exportNames(cfg.ProfileExportPrefix)
	a := &artifacts{dir: dir, paths: Artifacts{
		JSON:   filepath.Join(dir, jsonName),
		CSV:    filepath.Join(dir, csvName),
		Inputs: filepath.Join(dir, "inputs.json"),
		Log:    filepath.Join(dir, "logs", "aiperf.log"),
	}}
	if cfg.ExportLevel != "summary" {
		a.paths.Records = filepath.Join(dir, recName)
		f, err := os.Create(a.paths.Records)
		if err != nil {
			return nil, fmt.Errorf("records file: %w", err)
		}
		a.records, a.recBuf = f, bufio.NewWriterSize(f, 256<<10)
		a.recW = export.NewRecordWriter(a.recBuf, clock)
	}
	if cfg.ExportLevel == "raw" {
		a.paths.Raw = filepath.Join(dir, rawName)
		f, err := os.Create(a.paths.Raw)
		if err != nil {
			a.closeFiles()
			return nil, fmt.Errorf("raw records file: %w", err)
		}
		a.raw, a.rawBuf = f, bufio.NewWriterSize(f, 256<<10)
		a.rawEnc = json.NewEncoder(a.rawBuf)
		a.rawEnc.SetEscapeHTML(false)
	}
	return a, nil
}

// logHandler returns a handler writing the run's log to logs/aiperf.log.
// Writes are unbuffered so a crash keeps the log.
func (a *artifacts) logHandler(level slog.Level) slog.Handler {
	f, err := os.Create(a.paths.Log)
	if err != nil {
		return slog.DiscardHandler
	}
	a.logFile = f
	return slog.NewTextHandler(f, &slog.HandlerOptions{Level: level})
}

// writeInputs writes inputs.json: the exact payload of every dataset turn.
func (a *artifacts) writeInputs(convs []dataset.Conversation, payloads [][]byte) error {
	sessions := make([]export.SessionPayloads, len(convs))
	for i := range convs {
		sessions[i] = export.SessionPayloads{SessionID: convs[i].SessionID, Payloads: []json.RawMessage{payloads[i]}}
	}
	return writeFile(a.paths.Inputs, func(w io.Writer) error { return export.WriteInputs(w, sessions) })
}

// rawRecord is one line of profile_export_raw.jsonl.
type rawRecord struct {
	RequestNum int           `json:"request_num"`
	XRequestID string        `json:"x_request_id"`
	StartNS    int64         `json:"request_start_ns"`
	Responses  []rawResponse `json:"responses"`
	Error      *record.Error `json:"error"`
}

type rawResponse struct {
	PerfNS    int64         `json:"perf_ns"`
	Text      string        `json:"text,omitempty"`
	Reasoning string        `json:"reasoning,omitempty"`
	Usage     *record.Usage `json:"usage,omitempty"`
}

// writeRecord appends one profiling record to the record files.
func (a *artifacts) writeRecord(rec *record.Record, vals []metrics.RecordValue) error {
	if a.recW != nil {
		if err := a.recW.Write(rec, vals); err != nil {
			return fmt.Errorf("write record: %w", err)
		}
	}
	if a.rawEnc != nil {
		rr := rawRecord{RequestNum: rec.RequestNum, XRequestID: rec.XRequestID, StartNS: rec.StartNS, Error: rec.Error}
		for _, r := range rec.Responses {
			rr.Responses = append(rr.Responses, rawResponse{PerfNS: r.PerfNS, Text: r.Text, Reasoning: r.Reasoning, Usage: r.Usage})
		}
		if err := a.rawEnc.Encode(&rr); err != nil {
			return fmt.Errorf("write raw record: %w", err)
		}
	}
	return nil
}

// finish flushes the record files, writes the summary JSON and CSV, and
// prints the console report to stdout.
func (a *artifacts) finish(s *metrics.Summary, info *export.RunInfo, stdout io.Writer) (Artifacts, error) {
	err := a.closeFiles()
	info.CSVPath, info.JSONPath, info.LogPath = a.paths.CSV, a.paths.JSON, a.paths.Log
	err = errors.Join(err,
		writeFile(a.paths.JSON, func(w io.Writer) error { return export.WriteSummaryJSON(w, s, info) }),
		writeFile(a.paths.CSV, func(w io.Writer) error { return export.WriteSummaryCSV(w, s) }),
	)
	if stdout != nil {
		err = errors.Join(err, export.WriteConsole(stdout, s, info))
	}
	return a.paths, err
}

// closeFiles flushes and closes the streaming files; it may be called twice.
func (a *artifacts) closeFiles() error {
	var err error
	if a.records != nil {
		err = errors.Join(a.recBuf.Flush(), a.records.Close())
		a.records = nil
	}
	if a.raw != nil {
		err = errors.Join(err, a.rawBuf.Flush(), a.raw.Close())
		a.raw = nil
	}
	return err
}

// closeLog closes the log file; it may be called twice.
func (a *artifacts) closeLog() {
	if a.logFile != nil {
		a.logFile.Close()
		a.logFile = nil
	}
}

// writeFile creates path and fills it with write, checking every step.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	if err := write(bw); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
