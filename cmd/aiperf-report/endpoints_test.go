package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/endpoint"
	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
	"github.com/aiperf-go/aiperf/runner"
)

// endpointRunConfig adjusts a run's config for endpoint types that need
// more than --endpoint-type (a custom path and template, a backend).
var endpointRunConfig = map[string]func(*runner.Config){
	"bedrock_converse": func(c *runner.Config) { c.AWSRegion = "us-east-1" },
	"bedrock_messages": func(c *runner.Config) { c.AWSRegion = "us-east-1" },
	"template": func(c *runner.Config) {
		c.EndpointPath = "/v1/chat/completions"
		c.EndpointTemplate = `{"model": {{ model|tojson }}, "messages": [{"role": "user", "content": {{ text|tojson }}}], "stream": {{ stream|tojson }}}`
	},
}

// TestEveryEndpointTypeIngests runs every endpoint type the mock server
// serves (streaming where the type supports it) into one directory store
// and ingests it with aiperf-report: each run is in the runs table with
// its endpoint type, and all its requests are valid rows of the requests
// table.
func TestEveryEndpointTypeIngests(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{TTFT: time.Millisecond, ITL: time.Millisecond, OutputTokens: 4})
	dir := t.TempDir()
	const n = 3
	// The Bedrock types sign their requests (the mock does not check).
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
	type run struct {
		name string // an endpoint type, or a transport over one
		typ  string
		mod  func(*runner.Config)
	}
	var runs []run
	for _, typ := range endpoint.Names() {
		runs = append(runs, run{typ, typ, endpointRunConfig[typ]})
	}
	runs = append(runs, run{"chat over sagemaker", "chat", func(c *runner.Config) { c.AWSService, c.AWSRegion = "sagemaker", "us-east-1" }})
	for _, r := range runs {
		cfg := runner.Defaults()
		cfg.Models, cfg.URL, cfg.UIType = []string{"mock-model"}, srv.URL(), "none"
		cfg.ArtifactDir, cfg.ArtifactDirSet = dir, true
		cfg.EndpointType, cfg.Streaming, cfg.RequestCount, cfg.ISLMean, cfg.OSLMean = r.typ, true, n, 16, 4
		cfg.RandomSeed, cfg.RandomSeedSet = 1, true
		cfg.NoServerMetrics = true
		if r.mod != nil {
			r.mod(&cfg)
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		var stdout bytes.Buffer
		res, err := runner.Run(context.Background(), &cfg, runner.Options{Version: "test", Stdout: &stdout})
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		if res.Summary.Valid != n {
			t.Fatalf("%s: %d valid of %d, errors %+v", r.name, res.Summary.Valid, n, res.Summary.Errors)
		}
	}
	db := dir + ".duckdb"
	if code, out, errs := reportCLI(t, "--db", db, "ingest", dir); code != 0 {
		t.Fatalf("ingest: %d %s %s", code, out, errs)
	}
	code, out, errs := reportCLI(t, "--db", db, "--format", "csv", "sql",
		"SELECT endpoint_type, count(*) FILTER (WHERE r.valid) AS valid FROM runs JOIN requests r USING (run_id) GROUP BY run_id, endpoint_type ORDER BY endpoint_type")
	if code != 0 {
		t.Fatalf("sql: %d %s %s", code, out, errs)
	}
	for _, r := range runs {
		line := "\n" + r.typ + ",3\n"
		if !strings.Contains(out, line) {
			t.Errorf("%s: not a run of 3 valid requests in the report:\n%s", r.name, out)
		}
		out = strings.Replace(out, line, "\n", 1)
	}
}
