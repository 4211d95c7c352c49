//go:build integration

package main

import (
	"net/url"
	"os"
	"testing"
)

// TestUnwritableS3StoreIsOneLine: an S3 store that cannot be written (its
// bucket does not exist) is one line on stderr, with no SDK output.
func TestUnwritableS3StoreIsOneLine(t *testing.T) {
	t.Setenv("HF_HUB_OFFLINE", "1")
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
	u.Host = "no-such-bucket"
	assertOneErrorLine(t, "NoSuchBucket", "profile", "-m", "x", "--url", failingServer(t), "--tokenizer", "builtin",
		"--ui-type", "none", "--spool-dir", t.TempDir(), "--no-server-metrics", "--artifact-dir", u.String(), "--request-count", "3")
}
