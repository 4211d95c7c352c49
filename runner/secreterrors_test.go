package runner

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestErrorRecordsHideURLCredentials: a request that fails names its URL
// in the error, as net/http does, but without the credentials the URL
// carries (net/http masks only a password; a query parameter such as
// api_key would otherwise reach the records and the error summary).
func TestErrorRecordsHideURLCredentials(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		c, _, _ := w.(http.Hijacker).Hijack()
		c.Close() // a reset before any response
	}))
	defer srv.Close()
	const secret = "hunter2-query-secret"
	cfg := testConfig(t, strings.Replace(srv.URL, "http://", "http://bob:pw-"+secret+"@", 1)+"/?api_key="+secret)
	cfg.RequestCount = 3
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), cfg, Options{Version: "test"})
	if err == nil {
		t.Fatal("every request failed, yet the run succeeded")
	}
	recs := readRecords(t, cfg.ArtifactDir)
	if len(recs) != 3 || recs[0].Error == nil || !strings.Contains(recs[0].Error.Message, "127.0.0.1") {
		t.Fatalf("records: %+v", recs)
	}
	for _, name := range []string{"profile_export.jsonl", "profile_export_aiperf.json", "profile_export_aiperf.csv"} {
		b, err := os.ReadFile(filepath.Join(cfg.ArtifactDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), secret) {
			t.Errorf("%s holds the URL's secret", name)
		}
	}
}
