// Package s3url opens s3:// store URLs the way gocloud.dev's s3blob does,
// with one difference: over plain HTTP (an S3-compatible store such as MinIO
// on a private network), requests carry UNSIGNED-PAYLOAD instead of a SigV4
// SHA-256 of every body, and add checksums only where an operation requires
// them (request_checksum_calculation=when_required, unless the URL says). The AWS SDK hashes payloads only when TLS does not
// protect them; for a benchmark streaming records that hash was half the
// cost of storing them (BENCHMARKS.md). HTTPS endpoints are opened as s3blob
// opens them. Neither logs the SDK's warning that a response carries no
// checksum it can validate (see quietChecksums), nor its "falling back to
// IMDSv1" line on machines that are not EC2 instances; the SDK's other log
// lines go to slog, and a missing credential says what to set
// (credentials.go).
package s3url

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	gcaws "gocloud.dev/aws"
	"gocloud.dev/blob"
	"gocloud.dev/blob/s3blob"
)

// Opener is a blob.BucketURLOpener for the s3 scheme.
type Opener struct {
	// Options are passed to s3blob.OpenBucket.
	Options s3blob.Options
}

var _ blob.BucketURLOpener = (*Opener)(nil)

// OpenBucketURL opens u, accepting s3blob's URL parameters. Every client it
// builds leaves out the SDK's "Response has no supported checksum" warning
// (quietChecksums); over plain HTTP it also signs no payload and computes
// checksums only where required.
func (o *Opener) OpenBucketURL(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	plain := PlainHTTP(u)
	q := u.Query()
	opts := o.Options
	clientOpts := []func(*s3.Options){quietChecksums}
	if v := q.Get("ssetype"); v != "" {
		q.Del("ssetype")
		i := slices.IndexFunc(types.ServerSideEncryptionAes256.Values(), func(t types.ServerSideEncryption) bool {
			return strings.EqualFold(string(t), v)
		})
		if i < 0 {
			return nil, fmt.Errorf("%q is not a valid value for %q", v, "ssetype")
		}
		opts.EncryptionType = types.ServerSideEncryptionAes256.Values()[i]
	}
	if v := q.Get("kmskeyid"); v != "" {
		q.Del("kmskeyid")
		opts.KMSEncryptionID = v
	}
	for _, key := range []string{"accelerate", "disable_https", "use_path_style", "s3ForcePathStyle"} {
		v := q.Get(key)
		if v == "" {
			continue
		}
		q.Del(key)
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("invalid value for %q: %w", key, err)
		}
		switch key {
		case "accelerate":
			clientOpts = append(clientOpts, func(o *s3.Options) { o.UseAccelerate = b })
		case "disable_https":
			clientOpts = append(clientOpts, func(o *s3.Options) { o.EndpointOptions.DisableHTTPS = b })
		default:
			clientOpts = append(clientOpts, func(o *s3.Options) { o.UsePathStyle = b })
		}
	}
	if plain && q.Get("request_checksum_calculation") == "" {
		// The SDK's flexible checksums hash each body again (SHA-256 and
		// CRC32 in one pass) when it cannot send them as a trailer; PutObject
		// does not require one.
		q.Set("request_checksum_calculation", "when_required")
	}
	cfg, err := gcaws.V2ConfigFromURLParams(ctx, q)
	if err == nil {
		cfg, err = withCredentials(ctx, cfg, q)
	}
	if err != nil {
		return nil, fmt.Errorf("open bucket %v: %w", u, err)
	}
	if plain {
		clientOpts = append(clientOpts, func(o *s3.Options) {
			o.APIOptions = append(o.APIOptions, v4.SwapComputePayloadSHA256ForUnsignedPayloadMiddleware)
		})
	}
	client := s3.NewFromConfig(cfg, clientOpts...)
	// The upload manager takes the checksum setting from the options, not
	// the client (as in s3blob).
	opts.RequestChecksumCalculation = cfg.RequestChecksumCalculation
	return s3blob.OpenBucket(ctx, client, u.Host, &opts)
}

// quietChecksums turns off the SDK's warning that a response carries no
// checksum it supports ("Response has no supported checksum. Not validating
// response payload."), which it writes through the config's logger, to
// stderr, on every GET of an object stored without one: every object of an
// S3-compatible store such as MinIO, and every object written with
// request_checksum_calculation=when_required. It is not an error: the read
// succeeds, and TLS (or the private network) protects the body. Only that
// message is left out; every other log line and every error still reaches
// the caller.
func quietChecksums(o *s3.Options) { o.DisableLogOutputChecksumValidationSkipped = true }

// PlainHTTP reports whether an s3 URL reaches its store without TLS: an
// http:// endpoint, or disable_https=true.
func PlainHTTP(u *url.URL) bool {
	q := u.Query()
	if b, _ := strconv.ParseBool(q.Get("disable_https")); b {
		return true
	}
	return strings.HasPrefix(strings.ToLower(q.Get("endpoint")), "http://")
}
