package runner

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// newDirectSender returns a sender with the run's own transport.
func newDirectSender(t *testing.T) *sender {
	t.Helper()
	tr := newTransport(8)
	t.Cleanup(tr.CloseIdleConnections)
	return &sender{client: &http.Client{Transport: tr}}
}

// post builds a POST of body to u with GetBody, as newRequest does.
func post(t *testing.T, u, body string) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// TestDoFollowsRedirectsAsClient sends POSTs that the server redirects:
// 307 and 308 are followed with the method and body, 301/302/303 with a
// GET and no body (net/http's rules), a 3xx without Location is returned
// as it is, and a 200 is returned at once.
func TestDoFollowsRedirectsAsClient(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path+" "+string(b))
		mu.Unlock()
		switch r.URL.Path {
		case "/307", "/308", "/301", "/302", "/303":
			w.Header().Set("Location", "/end")
			code := map[string]int{"/307": 307, "/308": 308, "/301": 301, "/302": 302, "/303": 303}[r.URL.Path]
			w.WriteHeader(code)
			io.WriteString(w, "moved")
		case "/bare":
			w.WriteHeader(307)
		default:
			io.WriteString(w, "done")
		}
	}))
	defer srv.Close()
	s := newDirectSender(t)
	for _, tc := range []struct {
		path       string
		wantStatus int
		wantBody   string
		wantSeen   []string
	}{
		{"/end", 200, "done", []string{"POST /end x"}},
		{"/307", 200, "done", []string{"POST /307 x", "POST /end x"}},
		{"/308", 200, "done", []string{"POST /308 x", "POST /end x"}},
		{"/301", 200, "done", []string{"POST /301 x", "GET /end "}},
		{"/302", 200, "done", []string{"POST /302 x", "GET /end "}},
		{"/303", 200, "done", []string{"POST /303 x", "GET /end "}},
		{"/bare", 307, "", []string{"POST /bare x"}},
	} {
		seen = nil
		resp, err := s.do(post(t, srv.URL+tc.path, "x"))
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		mu.Lock()
		got := strings.Join(seen, "|")
		mu.Unlock()
		if resp.StatusCode != tc.wantStatus || string(b) != tc.wantBody || got != strings.Join(tc.wantSeen, "|") {
			t.Errorf("%s: status %d body %q seen %q; want %d %q %q", tc.path, resp.StatusCode, b, got, tc.wantStatus, tc.wantBody, tc.wantSeen)
		}
	}
}

// TestDoErrorAsClient checks that a transport error reads as
// http.Client.Do's: a refused connection, named with method and URL.
func TestDoErrorAsClient(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + ln.Addr().String() + "/v1/chat/completions?api_key=k"
	ln.Close()
	s := newDirectSender(t)
	_, got := s.do(post(t, u, "x"))
	_, want := s.client.Do(post(t, u, "x"))
	if got == nil || want == nil || got.Error() != want.Error() || !strings.HasPrefix(got.Error(), `Post "`+u+`": `) {
		t.Errorf("error %v, want %v", got, want)
	}
}

// TestDoURLCredentials checks that credentials in the URL go as Basic
// authorization, as http.Client sends them.
func TestDoURLCredentials(t *testing.T) {
	var auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = r.Header.Get("Authorization")
	}))
	defer srv.Close()
	s := newDirectSender(t)
	resp, err := s.do(post(t, strings.Replace(srv.URL, "http://", "http://user:pw@", 1), "x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if auth != "Basic dXNlcjpwdw==" { // base64("user:pw")
		t.Errorf("Authorization %q", auth)
	}
}

// nilBodyTransport returns a response without a body.
type nilBodyTransport struct{}

func (nilBodyTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{}, Request: req}, nil
}

// TestDoNilBody checks that a response without a body gets an empty one,
// as http.Client gives it.
func TestDoNilBody(t *testing.T) {
	s := &sender{client: &http.Client{Transport: nilBodyTransport{}}}
	resp, err := s.do(post(t, "http://127.0.0.1:1/", "x"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil || len(b) != 0 {
		t.Errorf("body %q, %v", b, err)
	}
}
