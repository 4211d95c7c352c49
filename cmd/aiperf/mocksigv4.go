package main

import (
	"errors"
	"os"

	"github.com/peterbourgon/ff/v4"

	"github.com/aiperf-go/aiperf/internal/command"
	"github.com/aiperf-go/aiperf/mockserver"
)

// mockSigV4 holds the mock-server's SigV4 flags: --sigv4-verify makes the
// AWS routes (SageMaker's /endpoints/…, Bedrock's /model/…) check every
// request's signature against --aws-access-key-id and
// --aws-secret-access-key, which default to AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY (the variables aiperf profile's default credential
// chain reads first).
type mockSigV4 struct {
	verify        bool
	keyID, secret string
}

// register adds the flags to fs.
func (m *mockSigV4) register(fs *ff.FlagSet) {
	fs.BoolVar(&m.verify, 0, "sigv4-verify", "check the AWS SigV4 signature of every SageMaker and Bedrock request; a mismatch is answered 403 with AWS's error shape")
	fs.StringVar(&m.keyID, 0, "aws-access-key-id", "", "access key `ID` that --sigv4-verify accepts (default: AWS_ACCESS_KEY_ID)")
	fs.StringVar(&m.secret, 0, "aws-secret-access-key", "", "secret `KEY` that --sigv4-verify checks signatures with (default: AWS_SECRET_ACCESS_KEY; never printed)")
}

// credentials returns the mock's SigV4 credentials: nil without
// --sigv4-verify, a usage error when the key or secret is missing.
func (m *mockSigV4) credentials() (*mockserver.SigV4Credentials, error) {
	if !m.verify {
		return nil, nil
	}
	c := &mockserver.SigV4Credentials{AccessKeyID: m.keyID, SecretAccessKey: m.secret}
	if c.AccessKeyID == "" {
		c.AccessKeyID = os.Getenv("AWS_ACCESS_KEY_ID")
	}
	if c.SecretAccessKey == "" {
		c.SecretAccessKey = os.Getenv("AWS_SECRET_ACCESS_KEY")
	}
	if c.AccessKeyID == "" || c.SecretAccessKey == "" {
		return nil, command.Usage(errors.New("--sigv4-verify needs --aws-access-key-id and --aws-secret-access-key (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)"))
	}
	return c, nil
}
