package export

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/aiperf-go/aiperf/internal/pyjson"
)

// SessionPayloads is one conversation of inputs.json: its dataset session id
// and the exact JSON body sent for each turn, in turn order.
type SessionPayloads struct {
	SessionID string
	Payloads  []json.RawMessage
}

// inputsBatch is how many sessions one goroutine renders at a time.
const inputsBatch = 16

// WriteInputs writes inputs.json, {"data":[{"session_id","payloads":[...]}]},
// indented by two spaces like the summary JSON, with no trailing newline,
// for n sessions. session(i) gives session i; it is called concurrently from
// up to GOMAXPROCS goroutines, each session once, and the text is written in
// session order as it is made, so memory holds a few batches of sessions,
// not the file. Payloads are re-indented with their number literals kept as
// written. A payload that is not valid JSON, or an error from session,
// stops the writing with that error; what was written by then is incomplete
// and is to be discarded. It returns once every goroutine it started has
// ended.
func WriteInputs(w io.Writer, n int, session func(i int) (SessionPayloads, error)) error {
	iw := &indentWriter{}
	iw.b = append(iw.b, '{')
	iw.key(true, 1, "data")
	if n == 0 {
		iw.b = append(iw.b, '[', ']')
	} else {
		iw.b = append(iw.b, '[')
		if _, err := w.Write(iw.b); err != nil {
			return fmt.Errorf("write inputs: %w", err)
		}
		if err := writeSessions(w, n, session); err != nil {
			return err
		}
		iw.b = iw.b[:0]
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

// inputsChunk is the text of sessions [lo, hi) of the data list, rendered
// by a worker; done is closed when text or err is set.
type inputsChunk struct {
	lo, hi int
	text   []byte
	err    error
	done   chan struct{}
}

// writeSessions renders the data list's elements in batches on parallel
// goroutines and writes them in order. At most 2 batches per goroutine are
// in flight.
func writeSessions(w io.Writer, n int, session func(i int) (SessionPayloads, error)) error {
	workers := max(1, min(runtime.GOMAXPROCS(0), (n+inputsBatch-1)/inputsBatch))
	jobs := make(chan *inputsChunk)
	order := make(chan *inputsChunk, 2*workers)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for c := range jobs {
				c.text, c.err = renderSessions(c.lo, c.hi, session)
				close(c.done)
			}
		})
	}
	wg.Go(func() {
		defer close(jobs)
		defer close(order)
		for lo := 0; lo < n; lo += inputsBatch {
			c := &inputsChunk{lo: lo, hi: min(lo+inputsBatch, n), done: make(chan struct{})}
			select {
			case order <- c:
			case <-stop:
				return
			}
			select {
			case jobs <- c:
			case <-stop:
				return
			}
		}
	})
	var err error
	for c := range order {
		<-c.done
		if err = c.err; err == nil {
			if _, werr := w.Write(c.text); werr != nil {
				err = fmt.Errorf("write inputs: %w", werr)
			}
		}
		if err != nil {
			break
		}
	}
	close(stop)
	wg.Wait()
	return err
}

// renderSessions returns the text of sessions [lo, hi) of the data list,
// each preceded by its separator.
func renderSessions(lo, hi int, session func(i int) (SessionPayloads, error)) ([]byte, error) {
	iw := &indentWriter{}
	for i := lo; i < hi; i++ {
		sp, err := session(i)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			iw.b = append(iw.b, ',')
		}
		if err := iw.appendSession(&sp); err != nil {
			return nil, err
		}
	}
	return iw.b, nil
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
