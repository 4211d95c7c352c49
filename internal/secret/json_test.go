package secret

import (
	"encoding/json"
	"testing"
)

func TestJSON(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"auth":{"api_key":"x"}}`, `{"auth":"<redacted>"}`},
		{`{"z":1,"a":{"b":[{"Token":"x","n":1.50},{"ok":"<tag>"}]}}`, `{"z":1,"a":{"b":[{"Token":"<redacted>","n":1.50},{"ok":"<tag>"}]}}`},
		{`[{"password":null}]`, `[{"password":"<redacted>"}]`},
		{`{"max_tokens": 5, "stop_token_ids": [1]}`, `{"max_tokens": 5, "stop_token_ids": [1]}`}, // unchanged: the same text back
		{`"secret"`, `"secret"`},
		// JSON leaves URLs alone: that is Document's.
		{`{"url": "http://u:p@h"}`, `{"url": "http://u:p@h"}`},
	} {
		got, ok := JSON([]byte(tc.in))
		if !ok || string(got) != tc.want {
			t.Errorf("JSON(%s) = %s, %v; want %s", tc.in, got, ok, tc.want)
		}
	}
	for _, bad := range []string{`{"a":`, `{"a":1} {}`, `}`} {
		if _, ok := JSON([]byte(bad)); ok {
			t.Errorf("JSON(%s) accepted invalid JSON", bad)
		}
		if _, ok := Document([]byte(bad)); ok {
			t.Errorf("Document(%s) accepted invalid JSON", bad)
		}
	}
}

func TestDocument(t *testing.T) {
	const r = Redacted
	for _, tc := range []struct{ name, in, want string }{
		{"secret member", `{"endpoint":{"api_key":"sk-1","model":"m"}}`, `{"endpoint":{"api_key":"` + r + `","model":"m"}}`},
		{"url userinfo", `{"url":"http://user:key@host:8000","n":1.0}`, `{"url":"http://` + r + `@host:8000","n":1.0}`},
		{"bare url member", `{"base_url":"user:key@host:8000"}`, `{"base_url":"` + r + `@host:8000"}`},
		{"urls list", `{"urls":["http://h:1/v1","https://u:p@h:2/v1?token=t"]}`, `{"urls":["http://h:1/v1","https://` + r + `@h:2/v1?token=` + r + `"]}`},
		{"any string with ://", `{"note":"see http://u:p@h/x and more"}`, `{"note":"see http://` + r + `@h/x and more"}`},
		{"headers", `{"headers":["Authorization: Bearer xyz","X-Tenant: blue"]}`, `{"headers":["Authorization:` + r + `","X-Tenant: blue"]}`},
		{"headers object", `{"headers":{"Authorization":"Bearer xyz","Accept":"*/*"}}`, `{"headers":{"Authorization":"` + r + `","Accept":"*/*"}}`},
		{"extra strings", `{"extra_inputs":["hf_token:abc","max_tokens:5"]}`, `{"extra_inputs":["hf_token:` + r + `","max_tokens:5"]}`},
		{"extra pairs", `{"extra":[["api_key","k"],["max_tokens",5]]}`, `{"extra":[["api_key","` + r + `"],["max_tokens",5]]}`},
		{"extra object", `{"extra_inputs":{"auth":{"token":"t"},"max_tokens":5}}`, `{"extra_inputs":{"auth":"` + r + `","max_tokens":5}}`},
		{"cli command", `{"cli_command":"aiperf profile -m m --api-key sk-1"}`, `{"cli_command":"aiperf profile -m 'm' --api-key '` + r + `'"}`},
		{"clean", `{"model": "m", "url": "http://h:8000", "max_tokens": 5, "cli_command": "aiperf profile -m m"}`,
			`{"model": "m", "url": "http://h:8000", "max_tokens": 5, "cli_command": "aiperf profile -m m"}`},
		{"already redacted", `{"api_key": "<redacted>"}`, `{"api_key": "<redacted>"}`},
	} {
		got, ok := Document([]byte(tc.in))
		if !ok || string(got) != tc.want {
			t.Errorf("%s: Document(%s)\n got  %s, %v\n want %s", tc.name, tc.in, got, ok, tc.want)
		}
	}
}

// FuzzDocument: Document never fails on valid JSON, its output is valid
// JSON, and a second pass changes nothing.
func FuzzDocument(f *testing.F) {
	for _, s := range []string{
		`{"api_key":"sk-LEAK"}`, `{"headers":["Authorization: Bearer LEAK"]}`, `{"url":"http://u:LEAK@h"}`,
		`{"cli_command":"aiperf --api-key sk-LEAK -H 'Authorization: Bearer LEAK' --url http://u:LEAK@h"}`,
		`{"cli_command":"aiperf --api-key 'sk-LEAK"}`, `[1, 2.50, "x", null, true, {"a": []}]`,
		`{"extra":[["token","x"]],"extra_inputs":["auth:{\"a\":1}"]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if !json.Valid([]byte(in)) {
			return
		}
		out, ok := Document([]byte(in))
		if !ok || !json.Valid(out) {
			t.Fatalf("Document(%s) = %s, %v", in, out, ok)
		}
		if again, _ := Document(out); string(again) != string(out) {
			t.Fatalf("not idempotent: %s then %s", out, again)
		}
	})
}
