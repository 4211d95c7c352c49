//go:build integration && unix

package s3url

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"

	"gocloud.dev/blob"
)

// captureOutput runs f with the process's stdout and stderr (the file
// descriptors, so also writers that hold os.Stderr from before) sent to a
// file, and returns what was written there.
func captureOutput(t *testing.T, f func()) string {
	t.Helper()
	out, err := os.CreateTemp(t.TempDir(), "output")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	var saved [2]int
	for i, fd := range []int{1, 2} {
		if saved[i], err = syscall.Dup(fd); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Dup2(int(out.Fd()), fd); err != nil {
			t.Fatal(err)
		}
	}
	func() {
		defer func() {
			for i, fd := range []int{1, 2} {
				_ = syscall.Dup2(saved[i], fd)
				_ = syscall.Close(saved[i])
			}
		}()
		f()
	}()
	data, err := os.ReadFile(out.Name())
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestNoChecksumWarningOnRead reads an object back from an S3-compatible
// store (MinIO: its GETs carry no checksum the SDK supports) and asserts
// that the SDK's "Response has no supported checksum" warning reaches
// neither stdout nor stderr, while the read itself still works.
func TestNoChecksumWarningOnRead(t *testing.T) {
	base := os.Getenv("AIPERF_TEST_S3_URL")
	if base == "" {
		if os.Getenv("AIPERF_TEST_REQUIRE_STORES") != "" {
			t.Fatal("AIPERF_TEST_S3_URL is not set: start MinIO with scripts/emulators.sh")
		}
		t.Skip("AIPERF_TEST_S3_URL not set")
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var b [6]byte
	_, _ = rand.Read(b[:])
	key := "checksumlog-" + hex.EncodeToString(b[:]) + "/object.txt"
	body := []byte("record\n")
	var got []byte
	var readErr error
	output := captureOutput(t, func() {
		var bucket *blob.Bucket
		bucket, readErr = (&Opener{}).OpenBucketURL(ctx, u)
		if readErr != nil {
			return
		}
		defer bucket.Close()
		defer func() { _ = bucket.Delete(ctx, key) }()
		if readErr = bucket.WriteAll(ctx, key, body, nil); readErr != nil {
			return
		}
		got, readErr = bucket.ReadAll(ctx, key)
	})
	if readErr != nil {
		t.Fatal(readErr)
	}
	if !bytes.Equal(got, body) {
		t.Fatalf("read %q, wrote %q", got, body)
	}
	if strings.Contains(output, "checksum") {
		t.Errorf("the SDK wrote a checksum warning on stdout/stderr:\n%s", output)
	}
}
