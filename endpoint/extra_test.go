package endpoint

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/aiperf-go/aiperf/dataset"
)

func TestParseExtraInputs(t *testing.T) {
	tests := []struct {
		name  string
		items []string
		want  string // fields as key=value, space separated
	}{
		{"none", nil, ""},
		{"bool", []string{"ignore_eos:true"}, `ignore_eos=true`},
		{"python bool and none", []string{"a:True", "b:FALSE", "c:None", "d:null"}, `a=true b=false c=null d=null`},
		{"numbers", []string{"min_tokens:100", "temperature:0.7", "x:-3", "y:1e3"}, `min_tokens=100 temperature=0.7 x=-3 y=1e3`},
		{"python floats", []string{"a:.5", "b:5.", "c:-.25"}, `a=0.5 b=5.0 c=-0.25`},
		{"strings", []string{"model_tag:abc", "s:007", "t:1.2.3", "u:.", "v:"}, `model_tag="abc" s="007" t="1.2.3" u="." v=""`},
		{"first colon splits", []string{"url:http://x:8000/a"}, `url="http://x:8000/a"`},
		{"json value", []string{`stop:["a", "b"]`, `nvext:{"top_k": 5}`, `q:"quoted"`}, `stop=["a","b"] nvext={"top_k":5} q="quoted"`},
		{"spaces trimmed", []string{"  k  :  v w  "}, `k="v w"`},
		{"escaped string", []string{`k:say "hi" <b>`}, `k="say \"hi\" <b>"`},
		{"json object", []string{`{"a": 1, "z": [1, 2], "m": {"x": null}}`}, `a=1 z=[1,2] m={"x":null}`},
		{"duplicate keeps first position", []string{"a:1", "b:2", `{"a": 3}`}, `a=3 b=2`},
		{"empty object", []string{"{}"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fields, err := ParseExtraInputs(tc.items)
			if err != nil {
				t.Fatal(err)
			}
			var parts []string
			for _, f := range fields {
				parts = append(parts, f.Key+"="+string(f.Value))
			}
			if got := strings.Join(parts, " "); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestParseExtraInputsErrors(t *testing.T) {
	for _, item := range []string{"novalue", ":v", " : v", "", `{"a":1`, `{"a":1}x`, `{"a":1} {"b":2}`, `{1:2}`, `{]`} {
		_, err := ParseExtraInputs([]string{"ok:1", item})
		if err == nil {
			t.Errorf("%q: no error", item)
			continue
		}
		if !strings.Contains(err.Error(), strconv.Quote(item)) {
			t.Errorf("%q: error %q does not name the item", item, err)
		}
	}
}

func FuzzParseExtraInputs(f *testing.F) {
	for _, s := range []string{"a:1", `{"a":[1]}`, "k:v", ":", "{", "a:.5", `x:{"y":`} {
		f.Add(s, "b:true")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		fields, err := ParseExtraInputs([]string{a, b})
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, fl := range fields {
			if seen[fl.Key] {
				t.Fatalf("duplicate key %q", fl.Key)
			}
			seen[fl.Key] = true
			if !json.Valid(fl.Value) {
				t.Fatalf("%q: invalid JSON value %q", fl.Key, fl.Value)
			}
		}
		// Every parsed set must build a valid body holding each field.
		turn := dataset.Turn{Texts: []string{"x"}, Model: "m"}
		body, err := mustLookup(t, "chat").Payload(&turn, &Options{Extra: fields})
		if err != nil {
			t.Fatalf("payload: %v", err)
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(body, &obj); err != nil {
			t.Fatalf("payload %s: %v", body, err)
		}
		for _, fl := range fields {
			if utf8.ValidString(fl.Key) && string(obj[fl.Key]) != string(fl.Value) {
				t.Fatalf("payload %s: %q = %s, want %s", body, fl.Key, obj[fl.Key], fl.Value)
			}
		}
	})
}
