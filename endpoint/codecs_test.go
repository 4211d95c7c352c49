package endpoint

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/aiperf-go/aiperf/record"
)

// checkRequestGolden checks the bodies of cases against
// testdata/request/<golden>.json (rewritten with -update).
func checkRequestGolden(t *testing.T, cases []requestCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.golden, func(t *testing.T) {
			got, err := mustLookup(t, tc.endpoint).Request(&tc.conv, tc.ti, tc.history, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(got) {
				t.Fatalf("invalid JSON: %s", got)
			}
			checkGolden(t, filepath.Join("testdata", "request", tc.golden+".json"), got)
		})
	}
}

// streamCase is a stream of events parsed with one Stream, and the
// responses it must give (ok ones only, in order).
type streamCase struct {
	name     string
	endpoint string
	events   []string
	want     []record.Response
	err      bool // the last event gives an error
}

// checkStreams parses each case's events in order with ParseStream.
func checkStreams(t *testing.T, cases []streamCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := mustLookup(t, tc.endpoint)
			var st Stream
			var got []record.Response
			var err error
			for _, ev := range tc.events {
				var r record.Response
				var ok bool
				if r, ok, err = e.ParseStream(&st, []byte(ev)); err != nil {
					break
				}
				if ok {
					got = append(got, r)
				}
			}
			if (err != nil) != tc.err {
				t.Fatalf("err = %v, want error %v", err, tc.err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d responses %+v, want %d", len(got), got, len(tc.want))
			}
			for i := range got {
				g, w := got[i], tc.want[i]
				if g.Text != w.Text || g.Reasoning != w.Reasoning || usageString(g.Usage) != usageString(w.Usage) {
					t.Errorf("response %d: got text=%q reasoning=%q usage=%s, want text=%q reasoning=%q usage=%s",
						i, g.Text, g.Reasoning, usageString(g.Usage), w.Text, w.Reasoning, usageString(w.Usage))
				}
			}
		})
	}
}

// fuzzCodec checks the invariants of Parse and ParseStream on any input.
func fuzzCodec(t *testing.T, e *Endpoint, st *Stream, data []byte) {
	for _, parse := range []func([]byte) (record.Response, bool, error){
		e.Parse,
		func(d []byte) (record.Response, bool, error) { return e.ParseStream(st, d) },
	} {
		resp, ok, err := parse(data)
		if err != nil && ok {
			t.Fatalf("ok with error %v", err)
		}
		if ok != (resp.HasContent() || resp.Usage != nil) {
			t.Fatalf("ok=%v for %+v", ok, resp)
		}
		if resp.Embeddings() != 0 {
			t.Fatalf("%s gave embeddings", e.Name)
		}
	}
}

// runParseCases checks Parse against each case, as TestParse does.
func runParseCases(t *testing.T, cases []parseCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, ok, err := mustLookup(t, tc.endpoint).Parse([]byte(tc.data))
			if (err != nil) != tc.err {
				t.Fatalf("err = %v, want error %v", err, tc.err)
			}
			if ok != tc.ok || resp.Text != tc.text || resp.Reasoning != tc.reason ||
				usageString(resp.Usage) != usageString(tc.usage) {
				t.Errorf("got ok=%v text=%q reasoning=%q usage=%s\nwant ok=%v text=%q reasoning=%q usage=%s",
					ok, resp.Text, resp.Reasoning, usageString(resp.Usage), tc.ok, tc.text, tc.reason, usageString(tc.usage))
			}
		})
	}
}
