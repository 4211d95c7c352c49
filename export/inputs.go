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

// inputsFlush is how much inputs.json text is buffered before it is
// written on.
const inputsFlush = 1 << 20

// WriteInputs writes inputs.json, {"data":[{"session_id","payloads":[...]}]},
// indented by two spaces like the summary JSON, with no trailing newline,
// for n sessions: session(i) gives session i, in order, and the text is
// written as it is made, so memory holds about one session at a time.
// Payloads are re-indented with their number literals kept as written. A
// payload that is not valid JSON, or an error from session, stops the
// writing with that error; what was written by then is incomplete and is
// to be discarded.
func WriteInputs(w io.Writer, n int, session func(i int) (SessionPayloads, error)) error {
	iw := &indentWriter{b: make([]byte, 0, 64<<10)}
	flush := func() error {
		if _, err := w.Write(iw.b); err != nil {
			return fmt.Errorf("write inputs: %w", err)
		}
		iw.b = iw.b[:0]
		return nil
	}
	iw.b = append(iw.b, '{')
	iw.key(true, 1, "data")
	if n == 0 {
		iw.b = append(iw.b, '[', ']')
	} else {
		iw.b = append(iw.b, '[')
		for i := range n {
			sp, err := session(i)
			if err != nil {
				return err
			}
			if i > 0 {
				iw.b = append(iw.b, ',')
			}
			if err := iw.appendSession(&sp); err != nil {
				return err
			}
			if len(iw.b) >= inputsFlush {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		iw.newline(1)
		iw.b = append(iw.b, ']')
	}
	iw.newline(0)
	iw.b = append(iw.b, '}')
	return flush()
}

// appendSession appends one element of inputs.json's data list.
func (iw *indentWriter) appendSession(sp *SessionPayloads) error {
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
	return nil
}
