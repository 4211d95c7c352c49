//go:build integration

package runner

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	_ "gocloud.dev/blob/s3blob"

	"github.com/aiperf-go/aiperf/internal/minioproc"
	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
	"github.com/aiperf-go/aiperf/sink"
)

// TestMinIOOutageEveryRecordArrives stops the store for 30 s in the middle
// of a run and restarts it: the run keeps measuring, spills to the spool,
// and every record arrives.
func TestMinIOOutageEveryRecordArrives(t *testing.T) {
	m := minioproc.Start(t)
	srv := mocktest.Start(t, mockserver.Config{TTFT: 20 * time.Millisecond})
	cfg := testConfig(t, srv.URL())
	cfg.ArtifactDir = m.URL("outage")
	cfg.Concurrency = 4
	cfg.BenchmarkDuration = 38 * time.Second
	cfg.SegmentInterval = time.Second
	cfg.SegmentRecords = 200
	cfg.SpoolDir = t.TempDir()

	go func() {
		time.Sleep(3 * time.Second)
		m.Down()
		time.Sleep(30 * time.Second)
		m.Up(t)
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
	m := minioproc.Start(t)
	srv := mocktest.Start(t, mockserver.Config{TTFT: 40 * time.Millisecond, RecordTimelines: true})
	cfg := testConfig(t, srv.URL())
	cfg.ArtifactDir = m.URL("killed")
	cfg.Concurrency = 1
	cfg.RequestCount = 1000000
	cfg.SegmentInterval = 250 * time.Millisecond
	killedRunContract(t, cfg, openStore(t, cfg.ArtifactDir), srv)
}

// TestMinIOReadOnlyBucketFailsBeforeAnyRequest: a bucket that allows reads
// only is a clear error before the first request.
func TestMinIOReadOnlyBucketFailsBeforeAnyRequest(t *testing.T) {
	m := minioproc.Start(t)
	client := s3.New(s3.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(m.Endpoint()), UsePathStyle: true,
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
	cfg.ArtifactDir = m.URL("readonly", "anonymous=true")
	_, err := Run(context.Background(), cfg, Options{})
	if err == nil || !strings.Contains(err.Error(), "cannot write to the artifact store") || !strings.Contains(err.Error(), "AccessDenied") {
		t.Fatalf("err %v", err)
	}
	if n := len(srv.Timelines()); n != 0 || srv.MaxInFlight() != 0 {
		t.Fatalf("%d requests sent to a benchmark that cannot store its results", n)
	}
}
