package mockserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// timelineJSON is the wire form of a Timeline served at
// GET /debug/timeline/{id}. Times are wall-clock Unix nanoseconds, so a
// client in another process on the same machine can compare them with its
// own wall-clock stamps.
type timelineJSON struct {
	RequestID     string      `json:"request_id"`
	Path          string      `json:"path"`
	ArrivalUnixNS int64       `json:"arrival_unix_ns"`
	Events        []eventJSON `json:"events"`
}

type eventJSON struct {
	Kind     EventKind `json:"kind"`
	Tokens   int       `json:"tokens"`
	AtUnixNS int64     `json:"at_unix_ns"`
}

// serveTimeline answers GET /debug/timeline/{id} with the request's
// timeline, or 404 when there is none (or RecordTimelines is off).
func (s *Server) serveTimeline(w http.ResponseWriter, r *http.Request) {
	t, ok := s.Timeline(r.PathValue("id"))
	if !ok {
		http.NotFound(w, r)
		return
	}
	out := timelineJSON{RequestID: t.RequestID, Path: t.Path, ArrivalUnixNS: t.Arrival.UnixNano()}
	for _, e := range t.Events {
		out.Events = append(out.Events, eventJSON{Kind: e.Kind, Tokens: e.Tokens, AtUnixNS: e.At.UnixNano()})
	}
	body, err := json.Marshal(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeJSON(w, http.StatusOK, body)
}

// FetchTimeline reads the timeline of requestID from a mock server at
// baseURL (started with RecordTimelines). Its times carry no monotonic
// reading: compare them only with wall-clock times.
func FetchTimeline(ctx context.Context, client *http.Client, baseURL, requestID string) (Timeline, error) {
	u := baseURL + "/debug/timeline/" + url.PathEscape(requestID)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return Timeline{}, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return Timeline{}, fmt.Errorf("fetch timeline: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Timeline{}, fmt.Errorf("fetch timeline %s: %s", requestID, resp.Status)
	}
	var tj timelineJSON
	if err := json.NewDecoder(resp.Body).Decode(&tj); err != nil {
		return Timeline{}, fmt.Errorf("fetch timeline: %w", err)
	}
	t := Timeline{RequestID: tj.RequestID, Path: tj.Path, Arrival: time.Unix(0, tj.ArrivalUnixNS)}
	for _, e := range tj.Events {
		t.Events = append(t.Events, Event{Kind: e.Kind, Tokens: e.Tokens, At: time.Unix(0, e.AtUnixNS)})
	}
	return t, nil
}
