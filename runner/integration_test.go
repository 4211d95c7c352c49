//go:build integration

package runner

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	_ "gocloud.dev/blob/s3blob"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
	"github.com/aiperf-go/aiperf/sink"
)

// minio is a MinIO server this test owns, so it can stop and restart it.
type minio struct {
	bin, data string
	port      int
	cmd       *exec.Cmd
}

// startMinIO starts a private MinIO (binary from scripts/emulators.sh) with
// a bucket "aiperf" on a free port.
func startMinIO(t *testing.T) *minio {
	t.Helper()
	bin := os.Getenv("AIPERF_TEST_MINIO_BIN")
	if bin == "" {
		if os.Getenv("AIPERF_TEST_REQUIRE_STORES") != "" {
			t.Fatal("AIPERF_TEST_MINIO_BIN is not set: start the servers with scripts/emulators.sh")
		}
		t.Skip("AIPERF_TEST_MINIO_BIN not set")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	m := &minio{bin: bin, data: t.TempDir(), port: port}
	if err := os.Mkdir(filepath.Join(m.data, "aiperf"), 0o755); err != nil { // the bucket
		t.Fatal(err)
	}
	m.start(t)
	t.Cleanup(m.stop)
	return m
}

func (m *minio) start(t *testing.T) {
	m.cmd = exec.Command(m.bin, "server", m.data, "--address", fmt.Sprintf("127.0.0.1:%d", m.port), "--console-address", "127.0.0.1:0", "--quiet")
	m.cmd.Env = append(os.Environ(), "MINIO_ROOT_USER="+os.Getenv("AWS_ACCESS_KEY_ID"), "MINIO_ROOT_PASSWORD="+os.Getenv("AWS_SECRET_ACCESS_KEY"))
	if err := m.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", m.port)); err == nil {
			c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("minio did not start")
}

func (m *minio) stop() {
	if m.cmd != nil && m.cmd.Process != nil {
		_ = m.cmd.Process.Kill()
		_ = m.cmd.Wait()
		m.cmd = nil
	}
}

func (m *minio) url(prefix string, extra ...string) string {
	u := fmt.Sprintf("s3://aiperf?endpoint=http://127.0.0.1:%d&use_path_style=true&region=us-east-1&prefix=%s/", m.port, prefix)
	for _, e := range extra {
		u += "&" + e
	}
	return u
}

// TestMinIOOutageEveryRecordArrives stops the store for 30 s in the middle
// of a run and restarts it: the run keeps measuring, spills to the spool,
// and every record arrives.
func TestMinIOOutageEveryRecordArrives(t *testing.T) {
	m := startMinIO(t)
	srv := mocktest.Start(t, mockserver.Config{TTFT: 20 * time.Millisecond})
	cfg := testConfig(t, srv.URL())
	cfg.ArtifactDir = m.url("outage")
	cfg.Concurrency = 4
	cfg.BenchmarkDuration = 38 * time.Second
	cfg.SegmentInterval = time.Second
	cfg.SegmentRecords = 200
	cfg.SpoolDir = t.TempDir()

	go func() {
		time.Sleep(3 * time.Second)
		m.stop()
		time.Sleep(30 * time.Second)
		m.start(t)
	}()
	res := runOK(t, cfg)

	store := openStore(t, cfg.ArtifactDir)
	rs, err := store.ReadRun(context.Background(), res.Files.RunID)
	if err != nil || rs.Status != sink.StatusComplete {
		t.Fatalf("run %+v %v", rs, err)
	}
	data, err := store.Bucket.ReadAll(context.Background(), "runs/"+res.Files.RunID+"/profile_export.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	records := strings.Count(string(data), "\n")
	want := res.Summary.Valid + res.Summary.Failed
	st := rs.Manifest.Storage
	if records != want || want < 1000 {
		t.Fatalf("%d records stored, %d measured", records, want)
	}
	if st.Retries == 0 || st.Records.SpilledBytes == 0 {
		t.Fatalf("the outage left no trace: %+v", st)
	}
	t.Logf("30 s outage: %d records, all stored; %d retries, %d bytes spilled, max queue %d", records, st.Retries, st.Records.SpilledBytes, st.Records.MaxQueueDepth)
}

// TestMinIOKilledRunKeepsItsRecords is the kill -9 contract against S3.
func TestMinIOKilledRunKeepsItsRecords(t *testing.T) {
	m := startMinIO(t)
	srv := mocktest.Start(t, mockserver.Config{TTFT: 40 * time.Millisecond, RecordTimelines: true})
	cfg := testConfig(t, srv.URL())
	cfg.ArtifactDir = m.url("killed")
	cfg.Concurrency = 1
	cfg.RequestCount = 1000000
	cfg.SegmentInterval = 250 * time.Millisecond
	killedRunContract(t, cfg, openStore(t, cfg.ArtifactDir), srv)
}

// TestMinIOReadOnlyBucketFailsBeforeAnyRequest: a bucket that allows reads
// only is a clear error before the first request.
func TestMinIOReadOnlyBucketFailsBeforeAnyRequest(t *testing.T) {
	m := startMinIO(t)
	client := s3.New(s3.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(fmt.Sprintf("http://127.0.0.1:%d", m.port)), UsePathStyle: true,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: os.Getenv("AWS_ACCESS_KEY_ID"), SecretAccessKey: os.Getenv("AWS_SECRET_ACCESS_KEY")}, nil
		}),
	})
	policy := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":["*"]},"Action":["s3:GetObject","s3:ListBucket","s3:GetBucketLocation"],"Resource":["arn:aws:s3:::aiperf","arn:aws:s3:::aiperf/*"]}]}`
	if _, err := client.PutBucketPolicy(context.Background(), &s3.PutBucketPolicyInput{Bucket: aws.String("aiperf"), Policy: aws.String(policy)}); err != nil {
		t.Fatal(err)
	}
	srv := mocktest.Start(t, mockserver.Config{RecordTimelines: true})
	cfg := testConfig(t, srv.URL())
	cfg.ArtifactDir = m.url("readonly", "anonymous=true")
	_, err := Run(context.Background(), cfg, Options{})
	if err == nil || !strings.Contains(err.Error(), "cannot write to the artifact store") || !strings.Contains(err.Error(), "AccessDenied") {
		t.Fatalf("err %v", err)
	}
	if n := len(srv.Timelines()); n != 0 || srv.MaxInFlight() != 0 {
		t.Fatalf("%d requests sent to a benchmark that cannot store its results", n)
	}
}
