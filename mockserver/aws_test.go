package mockserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

var testCreds = &SigV4Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "secret-example"}

// awsPost sends body to path, signed with key and secret for service at
// signedAt (no signature when key is ""), and returns the response.
func awsPost(t *testing.T, s *Server, path, body, key, secret, service string, signedAt time.Time, tamper bool) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.URL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Request-ID", "r1")
	if key != "" {
		sum := sha256.Sum256([]byte(body))
		err := v4.NewSigner().SignHTTP(context.Background(), aws.Credentials{AccessKeyID: key, SecretAccessKey: secret},
			req, hex.EncodeToString(sum[:]), service, "us-east-1", signedAt)
		if err != nil {
			t.Fatal(err)
		}
	}
	if tamper {
		req.Body = io.NopCloser(strings.NewReader(strings.Replace(body, "hi", "ho", 1)))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

func TestSigV4Verify(t *testing.T) {
	s := startServer(t, Config{OutputTokens: 3, SigV4: testCreds})
	const body = `{"messages":[{"role":"user","content":[{"text":"hi"}]}]}`
	const path = "/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse"
	now := time.Now()
	tests := []struct {
		name, key, secret string
		at                time.Time
		tamper            bool
		status            int
		errType           string
	}{
		{"signed", testCreds.AccessKeyID, testCreds.SecretAccessKey, now, false, 200, ""},
		{"wrong secret", testCreds.AccessKeyID, "other", now, false, 403, "InvalidSignatureException"},
		{"unknown key", "AKIDOTHER", testCreds.SecretAccessKey, now, false, 403, "UnrecognizedClientException"},
		{"unsigned", "", "", now, false, 403, "MissingAuthenticationTokenException"},
		{"expired", testCreds.AccessKeyID, testCreds.SecretAccessKey, now.Add(-time.Hour), false, 403, "InvalidSignatureException"},
		{"body changed", testCreds.AccessKeyID, testCreds.SecretAccessKey, now, true, 403, "InvalidSignatureException"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := awsPost(t, s, path, body, tt.key, tt.secret, "bedrock", tt.at, tt.tamper)
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status || resp.Header.Get("X-Amzn-Errortype") != tt.errType {
				t.Fatalf("status %d type %q, want %d %q: %s", resp.StatusCode, resp.Header.Get("X-Amzn-Errortype"), tt.status, tt.errType, b)
			}
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatalf("body %s: %v", b, err)
			}
			if tt.status != 200 && m["message"] == nil {
				t.Errorf("error body %s has no message", b)
			}
			if bytes.Contains(b, []byte(testCreds.SecretAccessKey)) {
				t.Error("the secret reached a response")
			}
		})
	}
}

// frames decodes every frame of an event stream body.
func frames(t *testing.T, r io.Reader) []eventstream.Message {
	t.Helper()
	dec := eventstream.NewDecoder()
	var out []eventstream.Message
	for {
		m, err := dec.Decode(r, nil)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m.Clone())
	}
}

func eventType(m eventstream.Message) string {
	if v := m.Headers.Get(":event-type"); v != nil {
		return v.String()
	}
	return ""
}

// TestAWSStreams checks the framing of each AWS stream route: the event
// types in order, the token count and the usage.
func TestAWSStreams(t *testing.T) {
	s := startServer(t, Config{OutputTokens: 4, TokensPerChunk: 1})
	post := func(path, body string) []eventstream.Message {
		resp := awsPost(t, s, path, body, "", "", "", time.Time{}, false)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != eventStreamType {
			b, _ := io.ReadAll(resp.Body)
			t.Fatalf("%s: status %d %s: %s", path, resp.StatusCode, resp.Header.Get("Content-Type"), b)
		}
		return frames(t, resp.Body)
	}
	t.Run("sagemaker", func(t *testing.T) {
		ms := post("/endpoints/ep/invocations-response-stream",
			`{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true}`)
		var sse bytes.Buffer
		for _, m := range ms {
			if eventType(m) != "PayloadPart" {
				t.Fatalf("event %q", eventType(m))
			}
			sse.Write(m.Payload)
		}
		events := strings.Split(strings.TrimSpace(sse.String()), "\n\n")
		// role chunk, 4 tokens, [DONE]; every write is split over two frames.
		if len(events) != 6 || len(ms) != 12 || events[5] != "data: [DONE]" {
			t.Fatalf("%d frames, events %q", len(ms), events)
		}
	})
	t.Run("converse", func(t *testing.T) {
		ms := post("/model/m/converse-stream", `{"messages":[{"role":"user","content":[{"text":"hi"}]}],"inferenceConfig":{"maxTokens":4}}`)
		var types []string
		for _, m := range ms {
			types = append(types, eventType(m))
		}
		want := "messageStart contentBlockDelta contentBlockDelta contentBlockDelta contentBlockDelta contentBlockStop messageStop metadata"
		if strings.Join(types, " ") != want {
			t.Fatalf("events %v", types)
		}
		var meta struct {
			Usage struct{ InputTokens, OutputTokens, TotalTokens int }
		}
		if err := json.Unmarshal(ms[len(ms)-1].Payload, &meta); err != nil || meta.Usage.OutputTokens != 4 ||
			meta.Usage.InputTokens < 1 || meta.Usage.TotalTokens != meta.Usage.InputTokens+4 {
			t.Fatalf("metadata %s: %v", ms[len(ms)-1].Payload, err)
		}
	})
	t.Run("invoke", func(t *testing.T) {
		ms := post("/model/m/invoke-with-response-stream",
			`{"anthropic_version":"bedrock-2023-05-31","max_tokens":4,"messages":[{"role":"user","content":"hi"}]}`)
		deltas := 0
		for _, m := range ms {
			var c struct{ Bytes string }
			if err := json.Unmarshal(m.Payload, &c); err != nil || eventType(m) != "chunk" {
				t.Fatalf("frame %q %s", eventType(m), m.Payload)
			}
			inner, err := base64.StdEncoding.DecodeString(c.Bytes)
			if err != nil || !json.Valid(inner) {
				t.Fatalf("chunk bytes %q: %v", inner, err)
			}
			if bytes.Contains(inner, []byte(`"content_block_delta"`)) {
				deltas++
			}
		}
		if deltas != 4 {
			t.Fatalf("%d deltas, want 4", deltas)
		}
	})
	t.Run("converse body", func(t *testing.T) {
		resp := awsPost(t, s, "/model/m/converse", `{"messages":[{"role":"user","content":[{"text":"hi"}]}],"inferenceConfig":{"maxTokens":4}}`, "", "", "", time.Time{}, false)
		var out struct {
			Output struct {
				Message struct{ Content []struct{ Text string } }
			}
			Usage struct{ OutputTokens int }
		}
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Usage.OutputTokens != 4 ||
			len(strings.Fields(out.Output.Message.Content[0].Text)) != 4 {
			t.Fatalf("body %+v: %v", out, err)
		}
	})
	t.Run("bad bodies", func(t *testing.T) {
		for path, body := range map[string]string{
			"/model/m/converse":         `{"messages":[]}`,
			"/model/m/invoke":           `{"messages":[{"role":"user","content":"hi"}],"max_tokens":1}`,
			"/endpoints/ep/invocations": `{"unknown":1}`,
		} {
			resp := awsPost(t, s, path, body, "", "", "", time.Time{}, false)
			if resp.StatusCode != 400 || resp.Header.Get("X-Amzn-Errortype") != "ValidationException" {
				t.Errorf("%s: status %d", path, resp.StatusCode)
			}
		}
	})
}
