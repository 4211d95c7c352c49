// Package opener opens artifact store URLs for the commands: s3:// through
// sink/s3url, every other scheme through gocloud's own drivers, which
// importing this package registers. Only commands import it, so that
// libraries and their tests do not link every cloud SDK.
package opener

import (
	"context"
	"net/url"

	"gocloud.dev/blob"
	"gocloud.dev/blob/azureblob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/gcsblob"
	"gocloud.dev/blob/memblob"
	"gocloud.dev/blob/s3blob"

	"github.com/aiperf-go/aiperf/sink/s3url"
)

// Mux returns a URL mux for store URLs: s3:// through sink/s3url (unsigned
// payloads over plain HTTP), file://, mem://, gs:// and azblob:// through
// gocloud's drivers.
func Mux() *blob.URLMux {
	mux := new(blob.URLMux)
	mux.RegisterBucket(s3blob.Scheme, &s3url.Opener{})
	for _, scheme := range []string{azureblob.Scheme, fileblob.Scheme, gcsblob.Scheme, memblob.Scheme} {
		mux.RegisterBucket(scheme, gocloudOpener{})
	}
	return mux
}

// gocloudOpener hands a URL to gocloud's default mux.
type gocloudOpener struct{}

func (gocloudOpener) OpenBucketURL(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	return blob.DefaultURLMux().OpenBucketURL(ctx, u)
}
