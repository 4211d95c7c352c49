//go:build integration

package plot

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// browser is headless Chromium driven over the Chrome DevTools Protocol
// through --remote-debugging-pipe: commands go to the browser's fd 3 and
// replies come from its fd 4, each a JSON message ended by a NUL byte. A
// pipe needs no port and no WebSocket, so the test needs nothing but
// chromium; it speaks to one page target, attached with flatten sessions.
type browser struct {
	cmd     *exec.Cmd
	in      *os.File // our end of the browser's fd 3
	session string   // the page's session id

	mu      sync.Mutex
	next    int
	waiting map[int]chan cdpReply
	logs    bytes.Buffer // the browser's stderr
}

type cdpReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// startBrowser starts chromium with a page of width × height CSS pixels
// and returns it; the test's cleanup closes it. It skips the test when
// chromium is missing, unless the integration run requires it.
func startBrowser(t *testing.T, width, height int) *browser {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("AIPERF_TEST_REQUIRE_STORES") != "" {
			t.Fatal("chromium not found: run scripts/chromium.sh")
		}
		t.Skip("chromium not installed")
	}
	cmdR, cmdW, err := os.Pipe() // we write commands, the browser reads them as fd 3
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe() // the browser writes replies as fd 4
	if err != nil {
		t.Fatal(err)
	}
	b := &browser{in: cmdW, waiting: map[int]chan cdpReply{}}
	b.cmd = exec.Command(path, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--hide-scrollbars",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(t.TempDir(), "profile"), "--enable-logging=stderr", "--v=0",
		"--remote-debugging-pipe", "about:blank")
	b.cmd.ExtraFiles = []*os.File{cmdR, outW}
	b.cmd.Stderr = &syncWriter{mu: &b.mu, w: &b.logs}
	if err := b.cmd.Start(); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	cmdR.Close()
	outW.Close()
	t.Cleanup(func() {
		b.in.Close()
		done := make(chan struct{})
		go func() { b.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			b.cmd.Process.Kill()
			<-done
		}
	})
	go b.read(outR)

	var target struct{ TargetID string }
	b.call(t, "", "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var attached struct{ SessionID string }
	b.call(t, "", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached)
	b.session = attached.SessionID
	b.call(t, b.session, "Emulation.setDeviceMetricsOverride",
		map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}, nil)
	return b
}

// read dispatches the browser's replies to their callers; events are
// dropped.
func (b *browser) read(r *os.File) {
	defer r.Close()
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 1<<20), 64<<20)
	s.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		if i := bytes.IndexByte(data, 0); i >= 0 {
			return i + 1, data[:i], nil
		}
		if atEOF && len(data) > 0 {
			return len(data), data, nil
		}
		return 0, nil, nil
	})
	for s.Scan() {
		var msg struct {
			ID int `json:"id"`
			cdpReply
		}
		if json.Unmarshal(s.Bytes(), &msg) != nil || msg.ID == 0 {
			continue
		}
		b.mu.Lock()
		ch := b.waiting[msg.ID]
		delete(b.waiting, msg.ID)
		b.mu.Unlock()
		if ch != nil {
			ch <- msg.cdpReply
		}
	}
}

// call sends a command (to the page's session, or to the browser when
// session is "") and decodes its result into result (nil: ignored).
func (b *browser) call(t *testing.T, session, method string, params, result any) {
	t.Helper()
	if err := b.callErr(session, method, params, result); err != nil {
		t.Fatalf("%v\nbrowser log:\n%s", err, b.log())
	}
}

func (b *browser) callErr(session, method string, params, result any) error {
	b.mu.Lock()
	b.next++
	id := b.next
	ch := make(chan cdpReply, 1)
	b.waiting[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if _, err := b.in.Write(append(data, 0)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case r := <-ch:
		if r.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, r.Error.Message, r.Error.Code)
		}
		if result != nil {
			return json.Unmarshal(r.Result, result)
		}
		return nil
	case <-time.After(30 * time.Second):
		return fmt.Errorf("%s: no reply in 30s", method)
	}
}

// eval evaluates a JavaScript expression in the page, awaiting a promise,
// and decodes its JSON value into result (nil: ignored). An exception
// fails the test.
func (b *browser) eval(t *testing.T, expr string, result any) {
	t.Helper()
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	b.call(t, b.session, "Runtime.evaluate", map[string]any{"expression": expr, "awaitPromise": true, "returnByValue": true}, &r)
	if e := r.ExceptionDetails; e != nil {
		t.Fatalf("in the page: %s %s\nin: %s", e.Text, e.Exception.Description, expr)
	}
	if result != nil {
		if err := json.Unmarshal(r.Result.Value, result); err != nil {
			t.Fatalf("%s: %v (%s)", expr, err, r.Result.Value)
		}
	}
}

// open loads url and waits until ready (a JavaScript expression) is true.
func (b *browser) open(t *testing.T, url, ready string) {
	t.Helper()
	b.call(t, b.session, "Page.navigate", map[string]any{"url": url}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		var ok bool
		b.eval(t, "document.readyState === 'complete' && !!("+ready+")", &ok)
		if ok {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s: not ready (%s) in 30s\nbrowser log:\n%s", url, ready, b.log())
}

// mouse sends a real mouse event at (x, y) CSS pixels of the viewport:
// "mouseMoved", or "click" (pressed and released).
func (b *browser) mouse(t *testing.T, kind string, x, y float64) {
	t.Helper()
	if kind != "click" {
		b.call(t, b.session, "Input.dispatchMouseEvent", map[string]any{"type": kind, "x": x, "y": y}, nil)
		return
	}
	for _, typ := range []string{"mousePressed", "mouseReleased"} {
		b.call(t, b.session, "Input.dispatchMouseEvent",
			map[string]any{"type": typ, "x": x, "y": y, "button": "left", "clickCount": 1}, nil)
	}
}

// screenshot returns a PNG of the viewport.
func (b *browser) screenshot(t *testing.T) []byte {
	t.Helper()
	var r struct {
		Data []byte `json:"data"` // base64 in JSON, decoded by encoding/json
	}
	b.call(t, b.session, "Page.captureScreenshot", map[string]any{"format": "png"}, &r)
	return r.Data
}

func (b *browser) log() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.logs.String()
}

// syncWriter serialises writes under mu.
type syncWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
