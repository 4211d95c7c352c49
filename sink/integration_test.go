//go:build integration

package sink

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"testing"

	"gocloud.dev/blob"
	_ "gocloud.dev/blob/azureblob"
	_ "gocloud.dev/blob/gcsblob"
	"gocloud.dev/blob/s3blob"

	"github.com/aiperf-go/aiperf/sink/s3url"
)

// storeFromEnv opens the store named by env (set by scripts/emulators.sh),
// narrowed to a fresh prefix so that tests never see each other's runs. It
// skips when the variable is unset, unless AIPERF_TEST_REQUIRE_STORES is set
// (as `make test` does), where a missing server is a failure.
func storeFromEnv(t *testing.T, env string) *Store { return storeFromEnvTB(t, env, nil) }

// storeFromEnvTB is storeFromEnv for tests and benchmarks.
func storeFromEnvTB(t testing.TB, env string, mux *blob.URLMux) *Store {
	t.Helper()
	base := os.Getenv(env)
	if base == "" {
		if os.Getenv("AIPERF_TEST_REQUIRE_STORES") != "" {
			t.Fatalf("%s is not set: start the servers with scripts/emulators.sh", env)
		}
		t.Skipf("%s not set", env)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	s, err := Open(context.Background(), base+sep+"prefix=conformance-"+hex.EncodeToString(b[:])+"/", mux)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformanceS3(t *testing.T) {
	runConformance(t, func(t *testing.T) *Store { return storeFromEnv(t, "AIPERF_TEST_S3_URL") })
}

func TestConformanceGCS(t *testing.T) {
	runConformance(t, func(t *testing.T) *Store { return storeFromEnv(t, "AIPERF_TEST_GCS_URL") })
}

func TestConformanceAzure(t *testing.T) {
	runConformance(t, func(t *testing.T) *Store { return storeFromEnv(t, "AIPERF_TEST_AZURE_URL") })
}

// unsignedS3 opens s3:// through sink/s3url, as cmd/aiperf does.
func unsignedS3() *blob.URLMux {
	mux := new(blob.URLMux)
	mux.RegisterBucket(s3blob.Scheme, &s3url.Opener{})
	return mux
}

func TestConformanceS3Unsigned(t *testing.T) {
	runConformance(t, func(t *testing.T) *Store { return storeFromEnvTB(t, "AIPERF_TEST_S3_URL", unsignedS3()) })
}

func BenchmarkStreamS3(b *testing.B) { benchStream(b, storeFromEnvTB(b, "AIPERF_TEST_S3_URL", nil)) }
func BenchmarkStreamS3Unsigned(b *testing.B) {
	benchStream(b, storeFromEnvTB(b, "AIPERF_TEST_S3_URL", unsignedS3()))
}
func BenchmarkStreamGCS(b *testing.B) { benchStream(b, storeFromEnvTB(b, "AIPERF_TEST_GCS_URL", nil)) }
func BenchmarkStreamAzure(b *testing.B) {
	benchStream(b, storeFromEnvTB(b, "AIPERF_TEST_AZURE_URL", nil))
}
