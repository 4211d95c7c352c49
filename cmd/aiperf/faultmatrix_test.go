//go:build integration

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"gocloud.dev/blob"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/sink"
)

// The fault matrix (docs/storage.md, "The fault matrix"): the real `aiperf
// profile` against a real `aiperf mock-server`, for every store fault ×
// every way a run ends × every kind of store. After each, the records in
// the store (after `aiperf recover` where something was left in the spool)
// are exactly the requests the server completed, by X-Request-ID.
const (
	fmRate     = 75  // requests per second (open loop)
	fmRequests = 450 // 6 s of sending
	fmGrace    = 2 * time.Second
	// fmWindow: a kill -9 (or a second signal) loses only the records not
	// yet on local disk: the few a request's answer takes to become a
	// record and reach the spool's write-ahead file (about a millisecond),
	// never a --segment-interval (1 s) of them. Every request the server
	// completed fmWindow before the kill is stored; the window is slack for
	// a busy machine, half the interval, so an open segment lost with the
	// process would show.
	fmWindow = 500 * time.Millisecond
)

var (
	fmFaults = []string{"up", "down", "flapping"}
	fmStops  = []string{"end", "SIGTERM", "SIGINT twice", "kill -9"}
)

func TestFaultMatrix(t *testing.T) {
	bin := buildAiperf(t)
	stores := []fmStore{newDirStore(t), nil}
	for _, st := range stores {
		if st == nil {
			st = newMinIO(t)
		}
		for _, fault := range fmFaults {
			for _, stop := range fmStops {
				cell := strings.NewReplacer(" ", "", "-", "").Replace(st.name() + "-" + fault + "-" + stop)
				t.Run(st.name()+"/store "+fault+"/"+stop, func(t *testing.T) {
					if d, ok := st.(*fmDirStore); ok {
						d.prepare(t, cell)
					}
					runFaultCell(t, bin, st, cell, fault, stop)
				})
			}
		}
	}
}

// fmMock is a running `aiperf mock-server --record-timelines`.
type fmMock struct{ url string }

func startFaultMock(t *testing.T, bin string) *fmMock {
	t.Helper()
	// About 100 ms per streamed answer: a handful in flight at 75/s.
	return &fmMock{url: startMockServer(t, bin, "--ttft", "20", "--itl", "10", "--output-tokens", "8", "--record-timelines")}
}

// fmCounts are the mock server's own counters.
type fmCounts struct {
	received, completed, inFlight int
}

var (
	fmRequestsRe = regexp.MustCompile(`(?m)^mock_requests_total\{[^}]*\} (\d+)`)
	fmSuccessRe  = regexp.MustCompile(`(?m)^vllm:request_success_total\{([^}]*)\} (\d+)`)
	fmInFlightRe = regexp.MustCompile(`(?m)^mock_requests_in_flight (\d+)`)
)

func (m *fmMock) counts(t *testing.T) fmCounts {
	t.Helper()
	resp, err := http.Get(m.url + "/metrics")
	if err != nil {
		t.Fatalf("mock server metrics: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var c fmCounts
	for _, s := range fmRequestsRe.FindAllSubmatch(b, -1) {
		n, _ := strconv.Atoi(string(s[1]))
		c.received += n
	}
	for _, s := range fmSuccessRe.FindAllSubmatch(b, -1) {
		if !strings.Contains(string(s[1]), `finished_reason="abort"`) {
			n, _ := strconv.Atoi(string(s[2]))
			c.completed += n
		}
	}
	if s := fmInFlightRe.FindSubmatch(b); s != nil {
		c.inFlight, _ = strconv.Atoi(string(s[1]))
	}
	return c
}

// waitReceived waits until the server has received n requests.
func (m *fmMock) waitReceived(t *testing.T, n int, stderr *syncBuffer) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); m.counts(t).received < n; {
		if time.Now().After(deadline) {
			t.Fatalf("the server never received %d requests; stderr:\n%s", n, stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// done reports whether the server received the request with this
// X-Request-ID (ok) and sent it its last event ([DONE]).
func (m *fmMock) done(t *testing.T, id string) (done, ok bool) {
	t.Helper()
	tl, err := mockserver.FetchTimeline(context.Background(), http.DefaultClient, m.url, id)
	if err != nil {
		if strings.Contains(err.Error(), "404") {
			return false, false
		}
		t.Fatalf("timeline %s: %v", id, err)
	}
	for _, e := range tl.Events {
		if e.Kind == mockserver.EventDone {
			return true, true
		}
	}
	return false, true
}

// fmRecord is the part of a stored record the matrix checks.
type fmRecord struct {
	Metadata struct {
		XRequestID   string `json:"x_request_id"`
		WasCancelled bool   `json:"was_cancelled"`
	} `json:"metadata"`
	Error *struct {
		Type string `json:"type"`
	} `json:"error"`
}

func runFaultCell(t *testing.T, bin string, st fmStore, cell, fault, stop string) {
	mock := startFaultMock(t, bin)
	dest, spool := st.url(cell), t.TempDir()
	cmd := exec.Command(bin, "profile", "-m", "mock-model", "--url", mock.url, "--streaming",
		"--request-rate", strconv.Itoa(fmRate), "--request-count", strconv.Itoa(fmRequests),
		"--ui-type", "none", "--no-server-metrics", "--no-gpu-telemetry", "--tokenizer", "builtin",
		"--artifact-dir", dest, "--spool-dir", spool, "--segment-interval", "1",
		"--shutdown-grace", strconv.Itoa(int(fmGrace.Seconds())), "--upload-grace-period", "3")
	cmd.Env = append(os.Environ(), "HF_HUB_OFFLINE=1")
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() { _ = cmd.Process.Kill() }()

	// The fault, once the run is sending.
	mock.waitReceived(t, 15, &stderr)
	stopFault := make(chan struct{})
	var faultDone sync.WaitGroup
	switch fault {
	case "down":
		st.down(t)
	case "flapping":
		faultDone.Add(1)
		go func() {
			defer faultDone.Done()
			for {
				st.down(t)
				select {
				case <-stopFault:
					return
				case <-time.After(600 * time.Millisecond):
				}
				st.up(t)
				select {
				case <-stopFault:
					return
				case <-time.After(600 * time.Millisecond):
				}
			}
		}()
	}
	storeUp := func() {
		select {
		case <-stopFault:
		default:
			close(stopFault)
		}
		faultDone.Wait()
		st.up(t)
	}
	defer storeUp()

	// The stop. For the stops that may lose the last records, completedBefore
	// is what the server had completed fmWindow before: all of it must be
	// kept.
	var signalled time.Time
	completedBefore := -1
	switch stop {
	case "end":
		if fault == "flapping" {
			// The store is up again before the run ends.
			mock.waitReceived(t, fmRequests*3/4, &stderr)
			storeUp()
		}
	case "SIGTERM":
		mock.waitReceived(t, fmRequests/3, &stderr)
		signalled = time.Now()
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
	case "SIGINT twice", "kill -9":
		mock.waitReceived(t, fmRequests/3, &stderr)
		time.Sleep(time.Second) // into an open segment
		completedBefore = mock.counts(t).completed
		time.Sleep(fmWindow)
		if stop == "kill -9" {
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			break
		}
		signalled = time.Now()
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(30 * time.Second); !strings.Contains(stderr.String(), "stopping"); {
			if time.Now().After(deadline) {
				t.Fatalf("the first SIGINT was not taken; stderr:\n%s", stderr.String())
			}
			time.Sleep(5 * time.Millisecond)
		}
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
	}
	var err error
	select {
	case err = <-exited:
	case <-time.After(90 * time.Second):
		t.Fatalf("aiperf profile still running 90 s after the %s; stderr:\n%s", stop, stderr.String())
	}
	took := time.Since(signalled)
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	storeUp()
	want := map[string]int{"end": 0, "SIGTERM": 143, "SIGINT twice": 130, "kill -9": -1}[stop]
	if stop == "end" && fault == "down" {
		want = 1 // the store never came back within --upload-grace-period
	}
	if code != want {
		t.Errorf("exit status %d, want %d; stderr:\n%s", code, want, stderr.String())
	}
	if stop == "SIGTERM" && took >= fmGrace+time.Second {
		t.Errorf("exited %v after SIGTERM, want < --shutdown-grace %v + 1 s", took, fmGrace)
	}

	// The server settles: every request it had is answered or aborted.
	var sc fmCounts
	for deadline := time.Now().Add(30 * time.Second); ; {
		if sc = mock.counts(t); sc.inFlight == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the mock server still has %d requests in flight", sc.inFlight)
		}
		time.Sleep(20 * time.Millisecond)
	}

	// What the run left in the spool is stored by `aiperf recover`.
	// A spool left behind (even without records: the second SIGINT exits
	// before the manifest is written) is a run to complete.
	recovered := false
	if left := spoolRecords(t, spool); len(left) > 0 || spoolRuns(spool) > 0 || stop == "kill -9" {
		rc := exec.Command(bin, "recover", "--spool-dir", spool, "--timeout", "60s")
		rc.Env = cmd.Env
		out, err := rc.CombinedOutput()
		if err != nil {
			t.Fatalf("aiperf recover: %v\n%s\nprofile stderr:\n%s", err, out, stderr.String())
		}
		recovered = len(left) > 0
		if left := spoolRecords(t, spool); len(left) > 0 || spoolRuns(spool) > 0 {
			t.Errorf("left in the spool after aiperf recover: %d runs, records %v", spoolRuns(spool), left)
		}
	}

	status, retries, records := readFaultStore(t, dest)
	wantStatus := "interrupted"
	if stop == "end" && fault != "down" {
		wantStatus = "complete"
	}
	if status != wantStatus {
		t.Errorf("manifest status %q, want %q; stderr:\n%s", status, wantStatus, stderr.String())
	}

	// Exact accounting by X-Request-ID.
	seen := map[string]bool{}
	var ok, cancelled, cancelledDone, cancelledUnseen int
	for _, r := range records {
		id := r.Metadata.XRequestID
		if seen[id] {
			t.Errorf("request %s stored twice", id)
			continue
		}
		seen[id] = true
		done, received := mock.done(t, id)
		cancel := r.Error != nil && r.Error.Type == "CancelledError" && r.Metadata.WasCancelled
		switch {
		case !received && cancel && (stop == "SIGTERM" || stop == "SIGINT twice"):
			// Sent as the signal came, before the server's handler started:
			// the client cannot tell it from a request the server has.
			cancelled++
			cancelledUnseen++
		case !received:
			t.Errorf("record %s: the server never received this request", id)
		case r.Error == nil:
			ok++
			if !done {
				t.Errorf("record %s is a success, but the server did not complete it", id)
			}
		case cancel:
			if stop != "SIGTERM" && stop != "SIGINT twice" {
				t.Errorf("record %s cancelled without a signal", id)
			}
			cancelled++
			if done {
				// The server sent [DONE] but the signal came before the
				// client read it: completed, recorded as cancelled.
				cancelledDone++
			}
		default:
			t.Errorf("record %s: unexpected error %+v", id, *r.Error)
		}
	}
	after := ""
	if !signalled.IsZero() {
		after = " " + took.Round(time.Millisecond).String() + " after the signal"
	}
	if completedBefore >= 0 {
		after += fmt.Sprintf(" (the server had completed %d requests %v before)", completedBefore, fmWindow)
	}
	t.Logf("exit %d%s; server: %d received, %d completed; store: %d records (%d ok, %d cancelled: %d completed by the server, %d never received), %d retries; spooled records recovered: %v",
		code, after, sc.received, sc.completed, len(records), ok, cancelled, cancelledDone, cancelledUnseen, retries, recovered)
	if fault == "down" && !recovered {
		t.Errorf("the store was down, yet the spool held no records: the fault did not bite")
	}
	switch stop {
	case "end", "SIGTERM":
		// Nothing lost: every completed request is stored, and (SIGTERM)
		// every other request the server received is a cancelled record.
		if ok+cancelledDone != sc.completed {
			t.Errorf("%d completed requests stored, the server completed %d", ok+cancelledDone, sc.completed)
		}
		if stop == "end" && (sc.received != fmRequests || ok != fmRequests) {
			t.Errorf("the server received %d requests, %d stored as successes, want %d", sc.received, ok, fmRequests)
		}
		if stop == "SIGTERM" && len(records)-cancelledUnseen != sc.received {
			t.Errorf("%d records stored, the server received %d requests", len(records), sc.received)
		}
	default:
		// At most the last records are lost: all that the server
		// completed fmWindow before the kill (or the second signal) are kept.
		if ok+cancelledDone > sc.completed || ok < completedBefore {
			t.Errorf("%d completed requests stored; the server completed %d, %d of them %v before the %s",
				ok+cancelledDone, sc.completed, completedBefore, fmWindow, stop)
		}
	}
}

// spoolRecords lists the record segments left in a spool directory.
func spoolRecords(t *testing.T, dir string) []string {
	var out []string
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".jsonl") || strings.HasSuffix(path, ".jsonl.open")) && strings.Contains(filepath.ToSlash(path), "/objects/") {
			out = append(out, path)
		}
		return nil
	})
	return out
}

// spoolRuns counts the run spools in a spool directory.
func spoolRuns(dir string) int {
	ents, _ := os.ReadDir(dir)
	n := 0
	for _, e := range ents {
		if e.IsDir() {
			n++
		}
	}
	return n
}

// readFaultStore reads the one run in dest: its manifest status and its
// records (profile_export.jsonl, or the segments of an interrupted run).
func readFaultStore(t *testing.T, dest string) (status string, retries int, records []fmRecord) {
	t.Helper()
	ctx := context.Background()
	s, err := sink.Open(ctx, dest, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var runs []string
	it := s.Bucket.List(&blob.ListOptions{Prefix: "runs/", Delimiter: "/"})
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if obj.IsDir {
			runs = append(runs, obj.Key)
		}
	}
	if len(runs) != 1 {
		t.Fatalf("runs in the store: %v, want one", runs)
	}
	run := runs[0]
	m, err := s.Bucket.ReadAll(ctx, run+"manifest.json")
	if err != nil {
		t.Errorf("no manifest: %v", err)
	} else {
		var mf struct {
			Status  string `json:"status"`
			Storage struct {
				Retries int `json:"retries"`
			} `json:"storage"`
		}
		if err := json.Unmarshal(m, &mf); err != nil {
			t.Fatalf("manifest: %v", err)
		}
		status, retries = mf.Status, mf.Storage.Retries
	}
	var data []byte
	if d, err := s.Bucket.ReadAll(ctx, run+"profile_export.jsonl"); err == nil {
		data = d
	} else {
		var keys []string
		it := s.Bucket.List(&blob.ListOptions{Prefix: run + "records/"})
		for {
			obj, err := it.Next(ctx)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			keys = append(keys, obj.Key)
		}
		sort.Strings(keys)
		for _, k := range keys {
			d, err := s.Bucket.ReadAll(ctx, k)
			if err != nil {
				t.Fatal(err)
			}
			data = append(data, d...)
		}
	}
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var r fmRecord
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("bad record line %q: %v", line, err)
		}
		records = append(records, r)
	}
	return status, retries, records
}
