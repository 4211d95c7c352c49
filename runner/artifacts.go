package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"gocloud.dev/blob"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/export"
	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/record"
	"github.com/aiperf-go/aiperf/sink"
)

// Artifacts are where a run's files ended up ("" when not written): local
// paths for a directory destination, store locations otherwise.
type Artifacts struct {
	Records, Raw, JSON, CSV, Inputs, Log string
	// RunID and Location identify the run in its store.
	RunID, Location string
}

// fileNames are the base names of a run's files.
type fileNames struct {
	records, raw, json, csv string
}

const (
	inputsName = "inputs.json"
	logName    = "logs/aiperf.log"
)

// exportNames returns AIPerf's file names, or PREFIX.jsonl, PREFIX.json and
// PREFIX.csv with --profile-export-prefix.
func exportNames(prefix string) fileNames {
	if prefix == "" {
		return fileNames{"profile_export.jsonl", "profile_export_raw.jsonl", "profile_export_aiperf.json", "profile_export_aiperf.csv"}
	}
	prefix = strings.TrimSuffix(prefix, filepath.Ext(prefix))
	return fileNames{prefix + ".jsonl", prefix + "_raw.jsonl", prefix + ".json", prefix + ".csv"}
}

// ArtifactDir returns the run's destination: --artifact-dir itself when
// given (a directory or a store URL), else AIPerf's default directory
// artifacts/<model>-openai-<type>-<stimulus>.
func ArtifactDir(cfg *Config) string {
	if cfg.ArtifactDirSet || sink.IsURL(cfg.ArtifactDir) {
		return cfg.ArtifactDir
	}
	model := "model"
	if len(cfg.Models) > 0 {
		model = strings.ReplaceAll(cfg.Models[0], "/", "_")
		if len(cfg.Models) > 1 {
			model += "_multi"
		}
	}
	return filepath.Join(cfg.ArtifactDir, fmt.Sprintf("%s-openai-%s-%s", model, cfg.EndpointType, cfg.Stimulus()))
}

// artifacts owns a run's storage: the store, the streamed record files and
// the local spool and log.
type artifacts struct {
	cfg   *Config
	clock *record.Clock
	store *sink.Store
	run   *sink.Run
	names fileNames
	spool string

	records, raw *recordStream
	// extra are the telemetry streams, composed like the records.
	extra        []*recordStream
	rawEnc       *json.Encoder
	recW         *export.RecordWriter
	logFile      *os.File
	inputsSHA256 string
	// spoolRemoved is set once the spool is gone (see finish and close).
	spoolRemoved bool
	// manifestLost is set when finish could not store the manifest: the
	// spool is then kept, so that `aiperf recover` writes it.
	manifestLost bool
}

// recordStream is a sink stream of JSONL records and the name of the file
// its segments compose into. Records are handed to the stream one by one, as
// they are written, so that the interval bounds what a crash can lose.
type recordStream struct {
	name   string
	stream *sink.Stream
	// closed is set once finish (or close) has closed the stream.
	closed bool
}

// openArtifacts opens the destination, checks that it can be written (a
// read-only or unreachable store fails here, before any request), and
// starts the record streams.
func openArtifacts(ctx context.Context, cfg *Config, clock *record.Clock, stores *blob.URLMux) (*artifacts, error) {
	store, err := sink.Open(ctx, ArtifactDir(cfg), stores)
	if err != nil {
		return nil, err
	}
	a := &artifacts{cfg: cfg, clock: clock, store: store, names: exportNames(cfg.ProfileExportPrefix)}
	a.run = store.NewRun(sink.NewRunID(clock.Origin()))
	if cfg.Sharded() {
		a.run = store.NewShardRun(cfg.RunGroup, cfg.ShardIndex)
	}
	if err := a.run.CheckWritable(ctx); err != nil {
		store.Close()
		return nil, err
	}
	spoolRoot := cfg.SpoolDir
	if spoolRoot == "" {
		spoolRoot = sink.DefaultSpoolRoot()
	}
	a.spool = filepath.Join(spoolRoot, sink.SpoolName(a.run.ID))
	// The descriptor is written now, not with the first stream, so that a
	// summary-only run that dies leaves a spool Recover can finish.
	if err := a.run.OpenSpool(a.spool); err != nil {
		_ = sink.RemoveSpool(a.spool)
		store.Close()
		return nil, err
	}
	open := func(name, dir string) (*recordStream, error) {
		st, err := a.run.NewStream(dir, a.streamOptions(name))
		if err != nil {
			return nil, err
		}
		return &recordStream{name: name, stream: st}, nil
	}
	if cfg.ExportLevel != "summary" {
		if a.records, err = open(a.names.records, "records"); err != nil {
			_ = sink.RemoveSpool(a.spool)
			store.Close()
			return nil, err
		}
		a.recW = export.NewRecordWriter(a.records.stream, clock)
		// --export-http-trace adds the raw trace to the JSONL (§2.3).
		a.recW.TraceData = cfg.ExportHTTPTrace
		a.recW.URLIndex = len(cfg.BaseURLs()) > 1
		a.recW.Schema = cfg.OutputSchema
		a.recW.WarmupPhase = cfg.WarmupEnabled()
	}
	if cfg.ExportLevel == "raw" {
		if a.raw, err = open(a.names.raw, "raw"); err != nil {
			if a.records != nil {
				_, _, _ = a.records.stream.Close(ctx)
			}
			_ = sink.RemoveSpool(a.spool)
			store.Close()
			return nil, err
		}
		a.rawEnc = json.NewEncoder(a.raw.stream)
		a.rawEnc.SetEscapeHTML(false)
	}
	return a, nil
}

// streamOptions are the segment settings of every stream of the run; name
// is the object its segments compose into, recorded in the spool's
// descriptor for a later recovery.
func (a *artifacts) streamOptions(name string) sink.StreamOptions {
	return sink.StreamOptions{Interval: a.cfg.SegmentInterval, Records: a.cfg.SegmentRecords, SpoolDir: a.spool, Compose: name}
}

// openStream starts one more JSONL stream of the run (telemetry), whose
// segments go under dir/ and are composed into name by finish.
func (a *artifacts) openStream(name, dir string) (*recordStream, error) {
	st, err := a.run.NewStream(dir, a.streamOptions(name))
	if err != nil {
		return nil, err
	}
	rs := &recordStream{name: name, stream: st}
	a.extra = append(a.extra, rs)
	return rs, nil
}

// logHandler returns a handler writing the run's log to a file in the
// spool (uploaded as logs/aiperf.log at the end). Writes are unbuffered so
// a crash keeps the log on local disk.
func (a *artifacts) logHandler(level slog.Level) slog.Handler {
	f, err := os.Create(filepath.Join(a.spool, "aiperf.log"))
	if err != nil {
		return slog.DiscardHandler
	}
	a.logFile = f
	return slog.NewTextHandler(f, &slog.HandlerOptions{Level: level})
}

// writeInputs stores inputs.json: the payload of every dataset turn, as
// payloads(conv) builds them. The file is streamed to the store as it is
// made (and made again if an upload attempt fails), so a long trace's
// inputs.json never has to fit in memory.
func (a *artifacts) writeInputs(ctx context.Context, convs []dataset.Conversation, payloads func(conv int) ([]json.RawMessage, error)) error {
	obj, err := a.run.PutStream(ctx, inputsName, func(w io.Writer) error {
		return export.WriteInputs(w, len(convs), func(i int) (export.SessionPayloads, error) {
			ps, err := payloads(i)
			return export.SessionPayloads{SessionID: convs[i].SessionID, Payloads: ps}, err
		})
	})
	a.inputsSHA256 = obj.SHA256
	return err
}

// rawRecord is one line of profile_export_raw.jsonl.
type rawRecord struct {
	RequestNum int           `json:"request_num"`
	XRequestID string        `json:"x_request_id"`
	StartNS    int64         `json:"request_start_ns"`
	Responses  []rawResponse `json:"responses"`
	// TraceData is export.AppendTraceData's object (--export-http-trace).
	TraceData json.RawMessage `json:"trace_data,omitempty"`
	Error     *record.Error   `json:"error"`
}

type rawResponse struct {
	PerfNS    int64         `json:"perf_ns"`
	Text      string        `json:"text,omitempty"`
	Reasoning string        `json:"reasoning,omitempty"`
	Usage     *record.Usage `json:"usage,omitempty"`
}

// writesResponses reports whether writeRecord writes every response of a
// record (the raw export), which must then keep them (keepLastResponse).
func (a *artifacts) writesResponses() bool { return a.rawEnc != nil }

// writeRecord appends one profiling record to the record streams.
func (a *artifacts) writeRecord(rec *record.Record, vals []metrics.RecordValue) error {
	if a.recW != nil {
		if err := a.recW.Write(rec, vals); err != nil {
			return fmt.Errorf("write record: %w", err)
		}
		if err := a.recW.Flush(); err != nil {
			return fmt.Errorf("write record: %w", err)
		}
	}
	if a.rawEnc != nil {
		rr := rawRecord{RequestNum: rec.RequestNum, XRequestID: rec.XRequestID, StartNS: rec.StartNS, Error: rec.Error}
		for _, r := range rec.Responses {
			rr.Responses = append(rr.Responses, rawResponse{PerfNS: r.PerfNS, Text: r.Text, Reasoning: r.Reasoning, Usage: r.Usage})
		}
		if a.cfg.ExportHTTPTrace {
			rr.TraceData = export.AppendTraceData(nil, rec.HTTPTrace, a.clock)
		}
		if err := a.rawEnc.Encode(&rr); err != nil {
			return fmt.Errorf("write raw record: %w", err)
		}
	}
	return nil
}
