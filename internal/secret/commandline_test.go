package secret

import (
	"strings"
	"testing"
)

func TestCommandLine(t *testing.T) {
	const r = Redacted
	for _, tc := range []struct{ in, want string }{
		{"aiperf profile -m 'mock-model' --url 'http://h:8000/v1' --concurrency 4 --ui None",
			"aiperf profile -m 'mock-model' --url 'http://h:8000/v1' --concurrency 4 --ui None"}, // unchanged
		{"aiperf profile --api-key sk-123 -H 'Authorization: Bearer xyz' --url http://u:p@h",
			"aiperf profile --api-key '" + r + "' -H 'Authorization:" + r + "' --url 'http://" + r + "@h'"},
		{`aiperf profile --extra-inputs '{"auth": {"token": "t"}}' --model m`,
			`aiperf profile --extra-inputs '{"auth":"` + r + `"}' --model 'm'`},
		{"aiperf profile --server-metrics http://a:b@n1:8081/metrics",
			"aiperf profile --server-metrics 'http://" + r + "@n1:8081/metrics'"},
		{"aiperf profile --tokenizer http://x:y@hub/tok",
			"aiperf profile --tokenizer 'http://" + r + "@hub/tok'"},
		// Unbalanced quotes: redacted on the text, up to the next flag.
		{"aiperf profile --api-key 'sk-123 --model m", "aiperf profile --api-key " + r + " --model m"},
		{"aiperf profile -H 'Authorization: Bearer xyz --model m", "aiperf profile -H " + r + " --model m"},
		{"aiperf profile -vH'Cookie: c --model m", "aiperf profile -vH" + r + " --model m"},
		{`aiperf profile --extra-inputs '{"hf_token": "t"}' -H "X-Tenant: blue --url http://u:p@h`,
			`aiperf profile --extra-inputs ` + r + ` -H "X-Tenant: blue --url http://` + r + `@h`},
		{"aiperf profile --model 'm", "aiperf profile --model 'm"},
	} {
		if got := CommandLine(tc.in); got != tc.want {
			t.Errorf("CommandLine(%s)\n got  %s\n want %s", tc.in, got, tc.want)
		}
	}
}

// FuzzCommandLine: CommandLine does not fail on any text around a
// secret, and when that text is plain words (no quotes, escapes or flags
// that could take the secret's flag as their value) the secret is hidden.
func FuzzCommandLine(f *testing.F) {
	for _, s := range []string{"--model m", "'", `"a b`, "-v", "x=y", "a b c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, around string) {
		plainWords := !strings.ContainsAny(around, `-'"\`+"`$") && !strings.Contains(around, "LEAK")
		for _, line := range []string{
			"aiperf profile " + around + " --api-key sk-LEAK",
			"aiperf profile --url http://u:LEAK@h " + around,
			"aiperf profile -H 'Authorization: LEAK' " + around,
		} {
			out := CommandLine(line)
			if plainWords && strings.Contains(out, "LEAK") {
				t.Errorf("CommandLine(%q) = %q", line, out)
			}
		}
	})
}
