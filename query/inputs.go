package query

import (
	"encoding/json"
	"io"
)

// maxSniffTokens bounds how far sniffPayload reads into inputs.json.
const maxSniffTokens = 100000

// sniffPayload reads the first payload of an inputs.json stream
// ({"data":[{"session_id","payloads":[{…}]}]}) just far enough to find its
// "model" (a string) and "stream" (a bool) members, which is all a run
// without a manifest can say about its workload. Missing members give ""
// and nil; a malformed stream ends the search without error.
func sniffPayload(r io.Reader) (model string, stream *bool) {
	dec := json.NewDecoder(r)
	var key string // the last object key read, when a value is expected
	inObject := []bool{}
	expectKey := func() bool { return len(inObject) > 0 && inObject[len(inObject)-1] }
	for range maxSniffTokens {
		tok, err := dec.Token()
		if err != nil { // io.EOF or malformed: what was found stands
			return model, stream
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				inObject = append(inObject, true)
			case '[':
				inObject = append(inObject, false)
			default:
				inObject = inObject[:len(inObject)-1]
			}
			key = ""
			continue
		case string:
			if expectKey() && key == "" {
				key = v
				continue
			}
			if key == "model" && model == "" {
				model = v
			}
		case bool:
			if key == "stream" && stream == nil {
				b := v
				stream = &b
			}
		}
		key = ""
		if model != "" && stream != nil {
			break
		}
	}
	return model, stream
}
