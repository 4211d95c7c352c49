package secret

import (
	"reflect"
	"testing"
)

func TestArgs(t *testing.T) {
	in := []string{"--api-key", "sk-1", "--api-key=sk-2", "-H", "Authorization:Bearer x", "--header=X-Tenant:blue",
		"--header", "Cookie:abc", "--extra-inputs", "temperature:0.2", "--extra-inputs", "user_token:t0k",
		"--extra-inputs", `{"api_key":"k"}`, "--model", "m"}
	want := []string{"--api-key", Redacted, "--api-key=" + Redacted, "-H", "Authorization:" + Redacted, "--header=X-Tenant:blue",
		"--header", "Cookie:" + Redacted, "--extra-inputs", "temperature:0.2", "--extra-inputs", "user_token:" + Redacted,
		"--extra-inputs", `{"api_key":"` + Redacted + `"}`, "--model", "m"}
	if got := Args(in); !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

// TestArgsForms feeds Args every form the getopt-style parser accepts for
// a secret-bearing flag.
func TestArgsForms(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"-HAuthorization: Bearer sk"}, []string{"-HAuthorization:" + Redacted}},
		{[]string{"-H", "Authorization: Bearer sk"}, []string{"-H", "Authorization:" + Redacted}},
		{[]string{"-vHX-Api-Key:sk"}, []string{"-vHX-Api-Key:" + Redacted}},
		{[]string{"-vvH", "Cookie:sk"}, []string{"-vvH", "Cookie:" + Redacted}},
		{[]string{"-HX-Tenant:blue"}, []string{"-HX-Tenant:blue"}},
		{[]string{"--header=Proxy-Authorization:Basic sk"}, []string{"--header=Proxy-Authorization:" + Redacted}},
		{[]string{"--header=", "Authorization:sk"}, []string{"--header=", "Authorization:" + Redacted}},
		{[]string{"--api-key=", "sk"}, []string{"--api-key=", Redacted}},
		{[]string{"-uhttp://u:sk@h:1"}, []string{"-uhttp://" + Redacted + "@h:1"}},
		{[]string{"-u", "http://h:1/?token=sk&x=1"}, []string{"-u", "http://h:1/?token=" + Redacted + "&x=1"}},
		{[]string{"--url=https://u:sk@h"}, []string{"--url=https://" + Redacted + "@h"}},
		{[]string{"--url", "u:sk@h:8000"}, []string{"--url", Redacted + "@h:8000"}},
		{[]string{"--server-metrics", "http://u:sk@h:8081"}, []string{"--server-metrics", "http://" + Redacted + "@h:8081"}},
		{[]string{"--gpu-telemetry=u:sk@node1:9400"}, []string{"--gpu-telemetry=" + Redacted + "@node1:9400"}},
		// -m takes "H" as its value: the next argument is no header.
		{[]string{"-mH", "X:y"}, []string{"-mH", "X:y"}},
		{[]string{"--request-rate", "-1", "--api-key", "sk"}, []string{"--request-rate", "-1", "--api-key", Redacted}},
		{[]string{"--extra-inputs", `{"a":[{"client_secret":"sk"}],"max_tokens":5}`}, []string{"--extra-inputs", `{"a":[{"client_secret":"` + Redacted + `"}],"max_tokens":5}`}},
		{[]string{"--extra-inputs=meta:{\"auth\":{\"k\":1}}"}, []string{"--extra-inputs=meta:{\"auth\":\"" + Redacted + "\"}"}},
		{[]string{"--extra-inputs", `{"password": broken`}, []string{"--extra-inputs", Redacted}},
		{[]string{"--extra-inputs", "max_tokens:100"}, []string{"--extra-inputs", "max_tokens:100"}},
	} {
		if got := Args(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Args(%q)\n got  %q\n want %q", tc.in, got, tc.want)
		}
	}
}

func TestQuote(t *testing.T) {
	got := Quote([]string{"aiperf", "profile", "--model", "it's", "--concurrency", "4", "--rate", "2.5", "--grace", "inf"})
	want := `aiperf profile --model 'it'\''s' --concurrency 4 --rate 2.5 --grace 'inf'`
	if got != want {
		t.Fatalf("got %s want %s", got, want)
	}
}
