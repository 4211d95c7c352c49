package sink

import "testing"

func TestObjectURL(t *testing.T) {
	for _, tc := range []struct{ location, key, want string }{
		{"s3://bench/nightly?region=us-east-1&endpoint=http://127.0.0.1:9000", "runs/r1/x.json",
			"s3://bench/nightly/runs/r1/x.json?region=us-east-1&endpoint=http://127.0.0.1:9000"},
		{"s3://bench?region=eu-west-1", "runs/r1/x.json", "s3://bench/runs/r1/x.json?region=eu-west-1"},
		{"gs://bench/a/b/", "runs/r1/x.json", "gs://bench/a/b/runs/r1/x.json"},
		{"mem://", "runs/r1/x.json", "mem:///runs/r1/x.json"},
	} {
		s := &Store{Location: tc.location}
		if got := s.ObjectURL(tc.key); got != tc.want {
			t.Errorf("ObjectURL(%q, %q) = %q, want %q", tc.location, tc.key, got, tc.want)
		}
	}
	if got := (&Store{Location: "/d", LocalDir: "/d"}).ObjectURL("runs/r1/x.json"); got != "/d/runs/r1/x.json" {
		t.Errorf("local: %q", got)
	}
}
