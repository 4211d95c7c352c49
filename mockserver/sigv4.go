package mockserver

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/aiperf-go/aiperf/internal/pyjson"
)

// SigV4Credentials are the AWS credentials the mock's AWS routes accept
// (Config.SigV4). The secret never leaves the server: it is used only to
// recompute signatures.
type SigV4Credentials struct {
	AccessKeyID     string
	SecretAccessKey string
}

// String hides the secret, so a logged Config does not show it.
func (c *SigV4Credentials) String() string {
	if c == nil {
		return "<nil>"
	}
	return "SigV4Credentials{AccessKeyID:" + c.AccessKeyID + ", SecretAccessKey:[redacted]}"
}

// maxSkew is how far a request's X-Amz-Date may be from the server's
// clock, as AWS allows.
const maxSkew = 15 * time.Minute

// sigv4Error is a rejected signature: the HTTP status, AWS's error type
// (the x-amzn-ErrorType header) and its message.
type sigv4Error struct {
	status int
	typ    string
	msg    string
}

func (e *sigv4Error) Error() string { return e.typ + ": " + e.msg }

// verifySigV4 checks r's SigV4 Authorization header against creds by
// recomputing the signature with aws-sdk-go-v2's signer over the same
// method, host, path, query, signed headers, date and the SHA-256 of
// body. It returns a *sigv4Error when the request is not signed, signed by
// another key, too old, or signed differently.
func verifySigV4(r *http.Request, body []byte, creds *SigV4Credentials) error {
	auth := r.Header.Get("Authorization")
	rest, ok := strings.CutPrefix(auth, "AWS4-HMAC-SHA256 ")
	if !ok {
		return &sigv4Error{http.StatusForbidden, "MissingAuthenticationTokenException", "Missing Authentication Token"}
	}
	fields := map[string]string{}
	for _, kv := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
		fields[k] = v
	}
	scope := strings.Split(fields["Credential"], "/")
	if len(scope) != 5 || scope[4] != "aws4_request" || fields["SignedHeaders"] == "" || fields["Signature"] == "" {
		return &sigv4Error{http.StatusForbidden, "IncompleteSignatureException", "Authorization header requires Credential, SignedHeaders and Signature"}
	}
	if scope[0] != creds.AccessKeyID {
		return &sigv4Error{http.StatusForbidden, "UnrecognizedClientException", "The security token included in the request is invalid."}
	}
	at, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	if err != nil {
		return &sigv4Error{http.StatusForbidden, "IncompleteSignatureException", "X-Amz-Date is missing or malformed"}
	}
	if d := time.Since(at); d > maxSkew || d < -maxSkew {
		return &sigv4Error{http.StatusForbidden, "InvalidSignatureException", "Signature expired: " + at.Format(time.RFC3339) + " is not within 15 minutes of the server's time"}
	}
	// The request as the client signed it: only the signed headers.
	u := &url.URL{Scheme: "http", Host: r.Host, Path: r.URL.Path, RawPath: r.URL.RawPath, RawQuery: r.URL.RawQuery}
	re, err := http.NewRequestWithContext(context.Background(), r.Method, u.String(), nil)
	if err != nil {
		return &sigv4Error{http.StatusBadRequest, "ValidationException", err.Error()}
	}
	re.URL.RawPath = r.URL.RawPath
	re.Host = r.Host
	re.ContentLength = int64(len(body))
	for _, name := range strings.Split(fields["SignedHeaders"], ";") {
		if name == "host" || name == "content-length" {
			continue
		}
		if vs := r.Header.Values(name); len(vs) > 0 {
			re.Header[http.CanonicalHeaderKey(name)] = vs
		}
	}
	sum := sha256.Sum256(body)
	c := aws.Credentials{AccessKeyID: creds.AccessKeyID, SecretAccessKey: creds.SecretAccessKey,
		SessionToken: r.Header.Get("X-Amz-Security-Token")}
	if err := v4.NewSigner().SignHTTP(r.Context(), c, re, hex.EncodeToString(sum[:]), scope[3], scope[2], at); err != nil {
		return &sigv4Error{http.StatusInternalServerError, "InternalServerException", err.Error()}
	}
	_, want, _ := strings.Cut(re.Header.Get("Authorization"), "Signature=")
	if subtle.ConstantTimeCompare([]byte(want), []byte(fields["Signature"])) != 1 {
		return &sigv4Error{http.StatusForbidden, "InvalidSignatureException",
			"The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details."}
	}
	return nil
}

// writeAWSError writes AWS's JSON error shape: {"message": …} with the
// x-amzn-ErrorType header naming the error.
func writeAWSError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("X-Amzn-Errortype", typ)
	b := append(pyjson.AppendString(append([]byte(nil), `{"message":`...), msg), '}')
	writeJSON(w, status, b)
}

// readAWSRequest reads r's body and, with Config.SigV4, checks its
// signature; the body is put back for the generation route. When ok is
// false it has already answered (403 with AWS's error shape, or 400).
func (s *Server) readAWSRequest(w http.ResponseWriter, r *http.Request) (body []byte, ok bool) {
	buf, err := readBody(w, r)
	if err != nil {
		writeAWSError(w, http.StatusBadRequest, "ValidationException", err.Error())
		return nil, false
	}
	body = append([]byte(nil), buf.Bytes()...)
	bufPool.Put(buf)
	if s.cfg.SigV4 != nil {
		if err := verifySigV4(r, body, s.cfg.SigV4); err != nil {
			var se *sigv4Error
			if errors.As(err, &se) {
				writeAWSError(w, se.status, se.typ, se.msg)
			}
			return nil, false
		}
	}
	return body, true
}
