// Package s3url opens s3:// store URLs the way gocloud.dev's s3blob does,
// with one difference: over plain HTTP (an S3-compatible store such as MinIO
// on a private network), requests carry UNSIGNED-PAYLOAD instead of a SigV4
// SHA-256 of every body, and add checksums only where an operation requires
// them (request_checksum_calculation=when_required, unless the URL says). The AWS SDK hashes payloads only when TLS does not
// protect them; for a benchmark streaming records that hash was half the
// cost of storing them (BENCHMARKS.md). HTTPS endpoints are opened by s3blob
// unchanged.
package s3url

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/s3"
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

// OpenBucketURL opens u, accepting s3blob's URL parameters.
func (o *Opener) OpenBucketURL(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	if !PlainHTTP(u) {
		def := s3blob.URLOpener{Options: o.Options}
		return def.OpenBucketURL(ctx, u)
	}
	q := u.Query()
	opts := o.Options
	var clientOpts []func(*s3.Options)
	for _, key := range []string{"use_path_style", "s3ForcePathStyle"} {
		if v := q.Get(key); v != "" {
			q.Del(key)
			b, err := strconv.ParseBool(v)
			if err != nil {
				return nil, fmt.Errorf("invalid value for %q: %w", key, err)
			}
			clientOpts = append(clientOpts, func(o *s3.Options) { o.UsePathStyle = b })
		}
	}
	if q.Get("disable_https") != "" {
		q.Del("disable_https")
		clientOpts = append(clientOpts, func(o *s3.Options) { o.EndpointOptions.DisableHTTPS = true })
	}
	for _, key := range []string{"ssetype", "kmskeyid", "accelerate"} {
		if q.Get(key) != "" {
			// Rare on plain-HTTP stores: let s3blob handle them.
			def := s3blob.URLOpener{Options: o.Options}
			return def.OpenBucketURL(ctx, u)
		}
	}
	if q.Get("request_checksum_calculation") == "" {
		// The SDK's flexible checksums hash each body again (SHA-256 and
		// CRC32 in one pass) when it cannot send them as a trailer; PutObject
		// does not require one.
		q.Set("request_checksum_calculation", "when_required")
	}
	cfg, err := gcaws.V2ConfigFromURLParams(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("open bucket %v: %w", u, err)
	}
	clientOpts = append(clientOpts, func(o *s3.Options) {
		o.APIOptions = append(o.APIOptions, v4.SwapComputePayloadSHA256ForUnsignedPayloadMiddleware)
	})
	client := s3.NewFromConfig(cfg, clientOpts...)
	opts.RequestChecksumCalculation = cfg.RequestChecksumCalculation
	return s3blob.OpenBucket(ctx, client, u.Host, &opts)
}

// PlainHTTP reports whether an s3 URL reaches its store without TLS: an
// http:// endpoint, or disable_https=true.
func PlainHTTP(u *url.URL) bool {
	q := u.Query()
	if b, _ := strconv.ParseBool(q.Get("disable_https")); b {
		return true
	}
	return strings.HasPrefix(strings.ToLower(q.Get("endpoint")), "http://")
}
