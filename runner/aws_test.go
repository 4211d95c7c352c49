package runner

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/endpoint"
	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
)

// Test credentials (AWS's documented example key).
const (
	testAWSKeyID  = "AKIAIOSFODNN7EXAMPLE"
	testAWSSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
)

// setAWSEnv makes the SDK's default chain find exactly these credentials
// and region, and nothing of the developer's own (no shared files, no
// instance metadata). It rules out t.Parallel.
func setAWSEnv(t testing.TB, keyID, secret, region string) {
	dir := t.TempDir()
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": keyID, "AWS_SECRET_ACCESS_KEY": secret, "AWS_SESSION_TOKEN": "",
		"AWS_REGION": region, "AWS_DEFAULT_REGION": "", "AWS_PROFILE": "",
		"AWS_CONFIG_FILE": filepath.Join(dir, "config"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "credentials"),
		"AWS_EC2_METADATA_DISABLED": "true",
	} {
		t.Setenv(k, v)
	}
}

// awsCases are the AWS transports and endpoint types the mock serves.
var awsCases = []struct {
	name, service, typ, model string
	serverUsage               bool // usage comes back (Bedrock's always does)
}{
	{"sagemaker/chat", AWSSageMaker, "chat", "my-endpoint", false},
	{"sagemaker/completions", AWSSageMaker, "completions", "my-endpoint", false},
	{"sagemaker/huggingface_generate", AWSSageMaker, "huggingface_generate", "my-endpoint", false},
	{"bedrock/converse", "", "bedrock_converse", "anthropic.claude-3-haiku-20240307-v1:0", true},
	{"bedrock/messages", AWSBedrock, "bedrock_messages", "anthropic.claude-3-haiku-20240307-v1:0", true},
}

// TestAWSSignedRequestsAccepted runs every AWS case, streaming or not,
// against the mock checking SigV4 signatures: every request must pass,
// with exact token counts (Bedrock: the server's usage too).
func TestAWSSignedRequestsAccepted(t *testing.T) {
	setAWSEnv(t, testAWSKeyID, testAWSSecret, "us-east-1")
	srv := mocktest.Start(t, mockserver.Config{TokensPerChunk: 3, OutputTokens: 20, ITL: time.Millisecond,
		SigV4: &mockserver.SigV4Credentials{AccessKeyID: testAWSKeyID, SecretAccessKey: testAWSSecret}})
	for _, tc := range awsCases {
		for _, streaming := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/streaming=%v", tc.name, streaming), func(t *testing.T) {
				cfg := testConfig(t, srv.URL())
				cfg.AWSService, cfg.EndpointType, cfg.Models, cfg.Tokenizer = tc.service, tc.typ, []string{tc.model}, "builtin"
				cfg.Streaming, cfg.UseServerTokenCount = streaming, tc.serverUsage
				cfg.Concurrency, cfg.RequestCount, cfg.OSLMean = 2, 4, 20
				res := runOK(t, cfg)
				if res.Summary.Valid != 4 {
					t.Fatalf("%d valid, errors %+v", res.Summary.Valid, res.Summary.Errors)
				}
				for _, r := range readRecords(t, cfg.ArtifactDir) {
					if osl, _ := r.num("output_sequence_length"); osl != 20 {
						t.Fatalf("osl %v, want 20", osl)
					}
					if _, ok := r.num("time_to_first_token"); ok != streaming {
						t.Fatalf("time_to_first_token present %v, streaming %v", ok, streaming)
					}
					if !tc.serverUsage {
						continue
					}
					out, _ := r.num("usage_completion_tokens")
					prompt, _ := r.num("usage_prompt_tokens")
					isl, _ := r.num("input_sequence_length")
					if out != 20 || prompt != 32 || isl != 32 {
						t.Fatalf("usage completion %v prompt %v, isl %v; want 20, 32, 32", out, prompt, isl)
					}
				}
			})
		}
	}
}

// TestAWSSageMakerEmbeddings: a non-generating type goes through
// SageMaker's invocations as well.
func TestAWSSageMakerEmbeddings(t *testing.T) {
	setAWSEnv(t, testAWSKeyID, testAWSSecret, "us-east-1")
	srv := mocktest.Start(t, mockserver.Config{
		SigV4: &mockserver.SigV4Credentials{AccessKeyID: testAWSKeyID, SecretAccessKey: testAWSSecret}})
	cfg := testConfig(t, srv.URL())
	cfg.AWSService, cfg.EndpointType, cfg.Models, cfg.Tokenizer = AWSSageMaker, "embeddings", []string{"embed-ep"}, "builtin"
	cfg.Concurrency, cfg.RequestCount = 2, 4
	if res := runOK(t, cfg); res.Summary.Valid != 4 {
		t.Fatalf("%d valid, errors %+v", res.Summary.Valid, res.Summary.Errors)
	}
}

// TestAWSWrongSecretRejected: requests signed with another secret get the
// verifying mock's 403, recorded as errors with AWS's message.
func TestAWSWrongSecretRejected(t *testing.T) {
	setAWSEnv(t, testAWSKeyID, "not-the-secret", "us-east-1")
	srv := mocktest.Start(t, mockserver.Config{
		SigV4: &mockserver.SigV4Credentials{AccessKeyID: testAWSKeyID, SecretAccessKey: testAWSSecret}})
	for _, tc := range awsCases[:4:4] {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(t, srv.URL())
			cfg.AWSService, cfg.EndpointType, cfg.Models, cfg.Tokenizer = tc.service, tc.typ, []string{tc.model}, "builtin"
			cfg.Streaming, cfg.Concurrency, cfg.RequestCount = true, 1, 2
			res, err := Run(context.Background(), cfg, Options{})
			if !errors.Is(err, ErrAllFailed) {
				t.Fatalf("err = %v, want ErrAllFailed", err)
			}
			if res.Summary.Valid != 0 {
				t.Fatalf("%d valid", res.Summary.Valid)
			}
			for _, r := range readRecords(t, cfg.ArtifactDir) {
				if r.Error == nil || r.Error.Code == nil || *r.Error.Code != http.StatusForbidden ||
					!strings.Contains(r.Error.Message, "signature we calculated does not match") {
					t.Fatalf("record error %+v, want 403 InvalidSignatureException", r.Error)
				}
				if strings.Contains(r.Error.Message, "not-the-secret") {
					t.Fatal("the secret reached a record")
				}
			}
		})
	}
}

func TestAWSConfigProblems(t *testing.T) {
	tests := []struct {
		service, typ, region string
		want                 string // a substring of the problem, "" for none
	}{
		{"", "chat", "", ""},
		{"sagemaker", "chat", "us-east-1", ""},
		{"SageMaker", "huggingface_generate", "", ""},
		{"", "bedrock_converse", "", ""},
		{"bedrock", "bedrock_messages", "eu-west-1", ""},
		{"", "chat", "us-east-1", "--aws-region needs an AWS service"},
		{"s3", "chat", "", `--aws-service "s3" is not valid`},
		{"bedrock", "chat", "", "needs --endpoint-type bedrock_converse"},
		{"sagemaker", "bedrock_converse", "", "is Bedrock's"},
	}
	for _, tt := range tests {
		t.Run(tt.service+"/"+tt.typ+"/"+tt.region, func(t *testing.T) {
			c := Config{AWSService: tt.service, EndpointType: tt.typ, AWSRegion: tt.region}
			p := strings.Join(c.awsProblems(), "; ")
			if tt.want == "" && p != "" || !strings.Contains(p, tt.want) {
				t.Errorf("problems %q, want %q", p, tt.want)
			}
		})
	}
}

// TestAWSTargets checks the regional endpoint used without --url, the
// SageMaker paths, and the model label's escaping.
func TestAWSTargets(t *testing.T) {
	setAWSEnv(t, testAWSKeyID, testAWSSecret, "us-east-1")
	tests := []struct {
		name      string
		cfg       Config
		wantURL   string
		wantPath  string
		model     string
		wantLabel string
	}{
		{"bedrock regional", Config{EndpointType: "bedrock_converse", AWSRegion: "us-west-2", URL: "localhost:8000", FlagsSet: []string{"model"}},
			"https://bedrock-runtime.us-west-2.amazonaws.com", "/model/{model}/converse", "arn:aws:bedrock:us-west-2:1:inference-profile/x", "/model/arn%3Aaws%3Abedrock%3Aus-west-2%3A1%3Ainference-profile%2Fx/converse"},
		{"sagemaker env region", Config{AWSService: "sagemaker", EndpointType: "chat", Streaming: true},
			"https://runtime.sagemaker.us-east-1.amazonaws.com", sageMakerStreamPath, "ep-1", "/endpoints/ep-1/invocations-response-stream"},
		{"sagemaker --url kept", Config{AWSService: "sagemaker", EndpointType: "embeddings", Streaming: true, URL: "http://127.0.0.1:9"},
			"http://127.0.0.1:9", sageMakerPath, "ep-1", "/endpoints/ep-1/invocations"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.cfg
			ep, err := endpoint.Lookup(c.EndpointType)
			if err != nil {
				t.Fatal(err)
			}
			s, err := newAWS(context.Background(), &c, ep)
			if err != nil || s == nil {
				t.Fatalf("newAWS: %v, %v", s, err)
			}
			if c.URL != tt.wantURL || c.EndpointPath != tt.wantPath {
				t.Errorf("url %q path %q, want %q %q", c.URL, c.EndpointPath, tt.wantURL, tt.wantPath)
			}
			_, targets, err := c.targets(c.EndpointPath)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.target(targets[0], tt.model); got != tt.wantURL+tt.wantLabel {
				t.Errorf("target %q, want %q", got, tt.wantURL+tt.wantLabel)
			}
		})
	}
}

// TestAWSNoRegion: a run with no region anywhere stops before sending.
func TestAWSNoRegion(t *testing.T) {
	setAWSEnv(t, testAWSKeyID, testAWSSecret, "")
	c := Config{AWSService: "sagemaker", EndpointType: "chat"}
	ep, _ := endpoint.Lookup("chat")
	if _, err := newAWS(context.Background(), &c, ep); err == nil || !strings.Contains(err.Error(), "--aws-region") {
		t.Fatalf("err = %v, want a missing region", err)
	}
}
