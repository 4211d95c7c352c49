package s3url

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNoCredentials: on a machine with no AWS credentials, whose metadata
// service refuses IMDSv2 tokens as a non-EC2 network does (a local server
// stands in for 169.254.169.254: fault injection), a write fails with
// NoCredentialsError, which says what to set, and the SDK prints nothing
// of its own (no "falling back to IMDSv1" line on stderr).
func TestNoCredentials(t *testing.T) {
	imds := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "forbidden", http.StatusForbidden)
	}))
	defer imds.Close()
	none := filepath.Join(t.TempDir(), "none")
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_SESSION_TOKEN": "", "AWS_PROFILE": "",
		"AWS_CONFIG_FILE": none, "AWS_SHARED_CREDENTIALS_FILE": none,
		"AWS_CONTAINER_CREDENTIALS_FULL_URI": "", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "",
		"AWS_WEB_IDENTITY_TOKEN_FILE": "", "AWS_EC2_METADATA_DISABLED": "",
		"AWS_EC2_METADATA_SERVICE_ENDPOINT": imds.URL,
	} {
		t.Setenv(k, v)
	}
	stderr := captureStderr(t)

	u, err := url.Parse("s3://bucket?endpoint=http://127.0.0.1:9&use_path_style=true&region=us-east-1")
	if err != nil {
		t.Fatal(err)
	}
	b, err := (&Opener{}).OpenBucketURL(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	err = b.WriteAll(context.Background(), "probe", []byte("x"), nil)
	var nc *NoCredentialsError
	if !errors.As(err, &nc) || !strings.Contains(nc.Fix(), "AWS_ACCESS_KEY_ID") {
		t.Fatalf("write without credentials: %v", err)
	}
	if out := stderr(); out != "" {
		t.Errorf("the SDK wrote to stderr: %q", out)
	}
}

// captureStderr redirects os.Stderr until the returned function, which
// gives back what was written, is called.
func captureStderr(t *testing.T) func() string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	restored := false
	restore := func() string {
		if restored {
			return ""
		}
		restored = true
		os.Stderr = saved
		w.Close()
		return <-done
	}
	t.Cleanup(func() { restore() })
	return restore
}
