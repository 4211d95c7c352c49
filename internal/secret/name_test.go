package secret

import "testing"

func TestIsName(t *testing.T) {
	for name, want := range map[string]bool{
		"Authorization": true, "X-Api-Key": true, "api_key": true, "hf_token": true, " Cookie ": true,
		"client_secret": true, "password": true, "max_tokens": false, "stop_token_ids": false,
		"model": false, "tokenizer": false, "temperature": false,
	} {
		if got := IsName(name); got != want {
			t.Errorf("IsName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestHeaderAndExtra(t *testing.T) {
	for _, tc := range []struct {
		f        func(string) string
		in, want string
	}{
		{Header, "Authorization: Bearer xyz", "Authorization:" + Redacted},
		{Header, "X-Tenant: blue", "X-Tenant: blue"},
		{Header, "no colon", "no colon"},
		{Extra, "hf_token:abc", "hf_token:" + Redacted},
		{Extra, "max_tokens:5", "max_tokens:5"},
		{Extra, ` {"auth": {"token": "t"}, "n": 1}`, `{"auth":"` + Redacted + `","n":1}`},
		{Extra, `{"n": 1}`, `{"n": 1}`},
		{Extra, "meta:[{\"secret\":1}]", "meta:[{\"secret\":\"" + Redacted + "\"}]"},
		{Extra, "meta:{\"cookie\": bad", "meta:" + Redacted},
	} {
		if got := tc.f(tc.in); got != tc.want {
			t.Errorf("(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
