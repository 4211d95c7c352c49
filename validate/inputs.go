package validate

import (
	"encoding/json"
	"fmt"
)

// checkInputs checks inputs.json (reference §3.6): {"data": [{"session_id":
// string, "payloads": [object, …]}, …]}, each session id given once and
// not empty, each payload a non-empty object. Rows counts the sessions.
func checkInputs(path string) (Result, error) {
	doc, top, ok, err := readObjectFile(path)
	if !ok {
		return doc.r, err
	}
	bad := doc.bad
	var data *member
	for i := range top {
		if top[i].Key == "data" {
			data = &top[i]
		}
	}
	if data == nil {
		doc.problem("data", "missing")
		return doc.r, nil
	}
	sessions, err := arrayElements(data.Raw, data.Off)
	if err != nil {
		bad(data.Off, "data", "want an array of sessions, got %s", kind(data.Raw))
		return doc.r, nil
	}
	seen := map[string]int{}
	for i, s := range sessions {
		doc.r.Rows++
		f := fmt.Sprintf("data[%d]", i)
		members, err := objectMembers(s.Raw, s.Off)
		if err != nil {
			bad(s.Off, f, "want {\"session_id\", \"payloads\"}, got %s", kind(s.Raw))
			continue
		}
		var id, payloads *member
		for j := range members {
			switch members[j].Key {
			case "session_id":
				id = &members[j]
			case "payloads":
				payloads = &members[j]
			}
		}
		switch {
		case id == nil:
			bad(s.Off, f+".session_id", "missing")
		default:
			v, ok := str(id.Raw)
			switch {
			case !ok:
				bad(id.Off, f+".session_id", "want a string, got %s", kind(id.Raw))
			case v == "":
				bad(id.Off, f+".session_id", "empty")
			case seen[v] > 0:
				bad(id.Off, f+".session_id", "%q is also the id of the session on line %d", v, seen[v])
			default:
				seen[v] = doc.ln.at(id.Off)
			}
		}
		if payloads == nil {
			bad(s.Off, f+".payloads", "missing")
			continue
		}
		elems, err := arrayElements(payloads.Raw, payloads.Off)
		if err != nil {
			bad(payloads.Off, f+".payloads", "want an array of request bodies, got %s", kind(payloads.Raw))
			continue
		}
		if len(elems) == 0 {
			bad(payloads.Off, f+".payloads", "empty: a session sends at least one payload")
		}
		for k, p := range elems {
			var o map[string]json.RawMessage
			if kind(p.Raw) != "an object" || json.Unmarshal(p.Raw, &o) != nil {
				bad(p.Off, fmt.Sprintf("%s.payloads[%d]", f, k), "want a JSON object (a request body), got %s", kind(p.Raw))
			} else if len(o) == 0 {
				bad(p.Off, fmt.Sprintf("%s.payloads[%d]", f, k), "empty object")
			}
		}
	}
	return doc.r, nil
}
