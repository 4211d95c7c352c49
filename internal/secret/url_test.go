package secret

import "testing"

func TestURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://localhost:8000/metrics":                      "http://localhost:8000/metrics",
		"https://bob:secret@host:9/metrics":                  "https://<redacted>@host:9/metrics",
		"http://host/metrics?api_key=abc&format=text":        "http://host/metrics?api_key=<redacted>&format=text",
		"http://u@host/metrics?x=1&Session=s&Token=t&plain=": "http://<redacted>@host/metrics?x=1&Session=<redacted>&Token=<redacted>&plain=",
		// Text url.Parse rejects (a bad escape, a space) is redacted too.
		"http://bob:p%zz@host/metrics":    "http://<redacted>@host/metrics",
		"http://bob:pa ss@host/metrics":   "http://<redacted>@host/metrics",
		"http://bob:a@b@host:9/metrics":   "http://<redacted>@host:9/metrics",
		"bob:secret@host:9400/metrics":    "<redacted>@host:9400/metrics",
		"http://host/users@example.com":   "http://host/users@example.com",
		"http://host/m?email=a@b.com#top": "http://host/m?email=a@b.com#top",
		"http://host/m?%61uth=x#frag":     "http://host/m?%61uth=<redacted>#frag",
		"http://host/m?api%5Fkey=x&y=2":   "http://host/m?api%5Fkey=<redacted>&y=2",
	} {
		if got := URL(in); got != want {
			t.Errorf("URL(%s) = %s, want %s", in, got, want)
		}
	}
	clean := "http://localhost:8000/metrics?format=text"
	if n := testing.AllocsPerRun(100, func() { _ = URL(clean) }); n != 0 {
		t.Errorf("URL of a URL without credentials allocates %v times", n)
	}
}
