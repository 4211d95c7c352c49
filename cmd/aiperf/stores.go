package main

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

// storeMux opens --artifact-dir URLs: s3:// through sink/s3url (unsigned
// payloads over plain HTTP), every other scheme through gocloud's own
// drivers, which importing them registers.
func storeMux() *blob.URLMux {
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
