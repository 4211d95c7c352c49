//go:build timing && !race

package runner

import (
	"testing"

	"github.com/aiperf-go/aiperf/mockserver"
)

// TestAWSEventStreamTimingMatchesServerTruth is
// TestFramedTypesTimingMatchesServerTruth over AWS event streams (a
// SageMaker PayloadPart stream of chat SSE split across frames, Bedrock
// ConverseStream, Bedrock InvokeModelWithResponseStream), every request
// SigV4-signed and checked by the mock (in its own process): TTFT, TTST,
// inter-chunk latency, ITL and request latency against when the mock wrote
// each token event. Median deviation within 0.2 ms, p99 within 1 ms; five
// attempts each (shared 2-core VM).
func TestAWSEventStreamTimingMatchesServerTruth(t *testing.T) {
	setAWSEnv(t, testAWSKeyID, testAWSSecret, "us-east-1")
	mcfg := truthMock()
	mcfg.NoRoleChunk = true
	mcfg.SigV4 = &mockserver.SigV4Credentials{AccessKeyID: testAWSKeyID, SecretAccessKey: testAWSSecret}
	for _, tc := range []struct{ service, typ string }{
		{AWSSageMaker, "chat"}, {"", "bedrock_converse"}, {"", "bedrock_messages"},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			checkServerTruth(t, tc.typ, mcfg, func(c *Config) { c.AWSService, c.EndpointType = tc.service, tc.typ })
		})
	}
}
