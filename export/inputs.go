package export

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/aiperf-go/aiperf/pyjson"
)

// SessionPayloads is one conversation of inputs.json: its dataset session id
// and the exact JSON body sent for each turn, in turn order.
type SessionPayloads struct {
	SessionID string
	Payloads  []json.RawMessage
}

// WriteInputs writes inputs.json, {"data":[{"session_id","payloads":[...]}]},
// indented by two spaces like the summary JSON, with no trailing newline.
// Payloads are re-indented with their number literals kept as written; a
// payload that is not valid JSON is an error and nothing is written.
func WriteInputs(w io.Writer, sessions []SessionPayloads) error {
	iw := &indentWriter{b: make([]byte, 0, 64<<10)}
	iw.b = append(iw.b, '{')
	iw.key(true, 1, "data")
	if len(sessions) == 0 {
		iw.b = append(iw.b, '[', ']')
	} else {
		iw.b = append(iw.b, '[')
		for i := range sessions {
			sp := &sessions[i]
			if i > 0 {
				iw.b = append(iw.b, ',')
			}
			iw.newline(2)
			iw.b = append(iw.b, '{')
			iw.key(true, 3, "session_id")
			iw.b = pyjson.AppendString(iw.b, sp.SessionID)
			iw.key(false, 3, "payloads")
			if len(sp.Payloads) == 0 {
				iw.b = append(iw.b, '[', ']')
			} else {
				iw.b = append(iw.b, '[')
				for j, p := range sp.Payloads {
					if j > 0 {
						iw.b = append(iw.b, ',')
					}
					iw.newline(4)
					if err := iw.appendIndentedRaw(p, 4); err != nil {
						return fmt.Errorf("session %q payload %d: %w", sp.SessionID, j, err)
					}
				}
				iw.newline(3)
				iw.b = append(iw.b, ']')
			}
			iw.newline(2)
			iw.b = append(iw.b, '}')
		}
		iw.newline(1)
		iw.b = append(iw.b, ']')
	}
	iw.newline(0)
	iw.b = append(iw.b, '}')
	if _, err := w.Write(iw.b); err != nil {
		return fmt.Errorf("write inputs: %w", err)
	}
	return nil
}
