package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/smithy-go/logging"

	"github.com/aiperf-go/aiperf/endpoint"
)

// AWS services a run can target (--aws-service). AIPerf 0.13 has no AWS
// transport; the names are the SigV4 signing names of the runtime APIs.
const (
	AWSSageMaker = "sagemaker" // SageMaker runtime: InvokeEndpoint(WithResponseStream)
	AWSBedrock   = "bedrock"   // Bedrock runtime: Converse(Stream), InvokeModel(WithResponseStream)
)

// SageMaker runtime paths; endpoint.ModelPathParam stands for the endpoint
// name, which is the request's --model.
const (
	sageMakerPath       = "/endpoints/" + endpoint.ModelPathParam + "/invocations"
	sageMakerStreamPath = "/endpoints/" + endpoint.ModelPathParam + "/invocations-response-stream"
)

// eventStreamType is the Content-Type of an AWS event stream response.
const eventStreamType = "application/vnd.amazon.eventstream"

// bedrockTypes are the endpoint types that speak only to Bedrock.
var bedrockTypes = []string{"bedrock_converse", "bedrock_messages"}

// AWSServiceOf returns the AWS service of a run: c.AWSService, or bedrock
// for a Bedrock endpoint type; "" when the run targets no AWS service.
func (c *Config) AWSServiceOf() string {
	s := strings.ToLower(strings.TrimSpace(c.AWSService))
	if s == "" && slices.Contains(bedrockTypes, strings.ToLower(strings.TrimSpace(c.EndpointType))) {
		return AWSBedrock
	}
	return s
}

// awsProblems checks --aws-service against --endpoint-type.
func (c *Config) awsProblems() []string {
	s := c.AWSServiceOf()
	bedrockType := slices.Contains(bedrockTypes, strings.ToLower(strings.TrimSpace(c.EndpointType)))
	switch {
	case s == "":
		if c.AWSRegion != "" {
			return []string{"--aws-region needs an AWS service: add --aws-service sagemaker, or use --endpoint-type bedrock_converse or bedrock_messages"}
		}
	case s != AWSSageMaker && s != AWSBedrock:
		return []string{fmt.Sprintf("--aws-service %q is not valid: use sagemaker or bedrock", c.AWSService)}
	case s == AWSBedrock && !bedrockType:
		return []string{fmt.Sprintf("--aws-service bedrock needs --endpoint-type bedrock_converse or bedrock_messages, not %q", c.EndpointType)}
	case s == AWSSageMaker && bedrockType:
		return []string{fmt.Sprintf("--endpoint-type %s is Bedrock's: drop --aws-service sagemaker", c.EndpointType)}
	}
	return nil
}

// awsURLGiven reports whether the run names its server (--url): without
// it, an AWS run goes to the service's regional endpoint. A config built
// by the CLI lists the flags set (FlagsSet); one built in code gives its
// URL.
func (c *Config) awsURLGiven() bool {
	if c.URL == "" && len(c.URLs) == 0 {
		return false
	}
	return c.FlagsSet == nil || slices.Contains(c.FlagsSet, "url")
}

// awsSigner signs the requests of a run that targets an AWS service with
// SigV4, and holds what the sender does differently for it. Its methods
// are safe for concurrent use.
type awsSigner struct {
	service   string // AWSSageMaker or AWSBedrock; also the signing name
	region    string
	creds     aws.CredentialsProvider // cached
	signer    *v4.Signer
	sign      bool // false with a Bedrock API key (--api-key: bearer)
	streaming bool
	// accept is the header that carries the container's Accept on a
	// streamed request (X-Amzn-SageMaker-Accept, X-Amzn-Bedrock-Accept);
	// "" for Converse, whose body is fixed.
	accept string
}

// newAWS returns the signer of a run that targets an AWS service, or nil
// for any other run. It loads the region and credentials from the SDK's
// default chain (env, shared config and credentials files, SSO, web
// identity, container and instance roles; --aws-region overrides the
// region) and fails when either is missing. It sets c.URL to the regional
// endpoint when the run names no --url, and c.EndpointPath, when the run
// has none, to the service's path with its model placeholder left for
// target; c must be the run's own copy.
func newAWS(ctx context.Context, c *Config, ep *endpoint.Endpoint) (*awsSigner, error) {
	service := c.AWSServiceOf()
	if service == "" {
		return nil, nil
	}
	s := &awsSigner{service: service, streaming: c.Streaming, signer: v4.NewSigner(),
		sign: !(service == AWSBedrock && c.APIKey != "")}
	opts := []func(*awsconfig.LoadOptions) error{awsconfig.WithLogger(logging.Nop{})}
	if c.AWSRegion != "" {
		opts = append(opts, awsconfig.WithRegion(c.AWSRegion))
	}
	ac, err := awsconfig.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("aws config: %w", err)
	}
	s.region = ac.Region
	if s.region == "" {
		return nil, fmt.Errorf("aws: no region: set --aws-region or AWS_REGION")
	}
	if s.sign {
		s.creds = ac.Credentials
		if s.creds == nil {
			return nil, fmt.Errorf("aws: no credentials provider")
		}
		if _, err := s.creds.Retrieve(ctx); err != nil {
			return nil, fmt.Errorf("aws credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, or run with a role: %w", err)
		}
	}
	switch service {
	case AWSSageMaker:
		if c.EndpointPath == "" {
			c.EndpointPath = sageMakerPath
			if c.Streaming && ep.SupportsStreaming {
				c.EndpointPath = sageMakerStreamPath
			}
		}
		s.accept = "X-Amzn-Sagemaker-Accept"
	case AWSBedrock:
		// The model is in the path, replaced per request (target), not
		// once for the run as URLPath does.
		if c.EndpointPath == "" {
			c.EndpointPath = ep.Path
			if c.Streaming && ep.StreamPath != "" {
				c.EndpointPath = ep.StreamPath
			}
		}
		if ep.Name == "bedrock_messages" {
			s.accept = "X-Amzn-Bedrock-Accept"
		}
	}
	if !c.awsURLGiven() {
		host := "runtime.sagemaker." + s.region + ".amazonaws.com"
		if service == AWSBedrock {
			host = "bedrock-runtime." + s.region + ".amazonaws.com"
		}
		c.URL, c.URLs = "https://"+host, nil
	}
	return s, nil
}

// escapedModelParam is endpoint.ModelPathParam as it appears in a URL
// built by url.URL.String (JoinPath escapes the braces).
var escapedModelParam = (&url.URL{Path: endpoint.ModelPathParam}).EscapedPath()

// target returns the request URL u with the model placeholder replaced by
// model, path-escaped as the AWS SDKs escape a URI label (':' and '/' of
// a Bedrock model ID or ARN included).
func (s *awsSigner) target(u, model string) string {
	if !strings.Contains(u, escapedModelParam) {
		return u
	}
	label := strings.ReplaceAll(url.PathEscape(model), ":", "%3A")
	return strings.Replace(u, escapedModelParam, label, 1)
}

// prepare sets the AWS headers of req and signs it with SigV4 over the
// SHA-256 of payload (its body), unless the run uses a Bedrock API key.
// It runs before the send timestamp is taken, so signing never moves it.
func (s *awsSigner) prepare(ctx context.Context, req *http.Request, payload []byte) error {
	if s.streaming {
		if s.accept != "" {
			req.Header.Set(s.accept, req.Header.Get("Accept"))
		}
		req.Header.Set("Accept", eventStreamType)
	}
	if !s.sign {
		return nil
	}
	creds, err := s.creds.Retrieve(ctx)
	if err != nil {
		return fmt.Errorf("aws credentials: %w", err)
	}
	sum := sha256.Sum256(payload)
	if err := s.signer.SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), s.service, s.region, time.Now()); err != nil {
		return fmt.Errorf("sigv4 sign: %w", err)
	}
	return nil
}

// isAWSEventStream reports whether contentType is an AWS event stream.
func isAWSEventStream(contentType string) bool {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.EqualFold(strings.TrimSpace(mt), eventStreamType)
}
