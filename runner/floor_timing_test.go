//go:build timing && !race

package runner

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/mockserver"
)

// The floor client is the reference the timing tests measure our client
// against: the least a client can do to time a stream. It writes a
// prebuilt HTTP/1.1 request on a raw keep-alive TCP connection, reads the
// chunked response with a plain bufio.Reader and stamps, with the
// monotonic clock, the moment each chunk's size line has arrived. The mock
// writes and flushes each event on its own, so chunk k is the timeline's
// event k. Whatever separates the floor client's times from the mock's own
// write times is the machine's (scheduling, the loopback stack, other
// work), not ours: our client's deviation beyond the floor's, measured
// alternately against the same server in the same test, is our overhead.

// floorStream is one streamed request as the floor client saw it.
type floorStream struct {
	id    string
	start time.Time   // just before the request was written
	recv  []time.Time // when each chunk (one server write) arrived
}

// floorStreams sends warm then n streamed chat requests to the mock at base
// from conc workers, each on its own keep-alive connection, and returns the
// n measured ones (the warm-up ones open the connections and spread the
// workers out, as a benchmark's warm-up does). Request IDs start with
// prefix.
func floorStreams(ctx context.Context, base string, conc, warm, n int, prefix string) ([]floorStream, error) {
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("floor: %w", err)
	}
	body := []byte(`{"model":"mock-model","messages":[{"role":"user","content":"floor"}],"stream":true}`)
	head := fmt.Sprintf("POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"+
		"Accept: text/event-stream\r\nContent-Length: %d\r\nX-Request-ID: ", u.Host, len(body))
	out := make([]floorStream, n)
	var (
		next atomic.Int64
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for range conc {
		wg.Go(func() {
			if err := floorWorker(ctx, u.Host, head, body, prefix, warm, n, &next, out); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return out, nil
}

// floorWorker sends requests numbered by next on one connection until
// warm+n have been taken, storing the measured ones in out.
func floorWorker(ctx context.Context, host, head string, body []byte, prefix string, warm, n int, next *atomic.Int64, out []floorStream) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return fmt.Errorf("floor: %w", err)
	}
	defer conn.Close()
	c := newFloorConn(conn)
	req := make([]byte, 0, len(head)+len(body)+64)
	for {
		i := int(next.Add(1)) - 1
		if i >= warm+n {
			return nil
		}
		id := prefix + strconv.Itoa(i)
		req = append(append(append(append(req[:0], head...), id...), "\r\n\r\n"...), body...)
		s := floorStream{id: id, recv: make([]time.Time, 0, 16), start: time.Now()}
		if _, err := c.conn.Write(req); err != nil {
			return fmt.Errorf("floor: write: %w", err)
		}
		if err := readResponse(c.br, &s); err != nil {
			return fmt.Errorf("floor: request %s: %w", id, err)
		}
		if i >= warm {
			out[i-warm] = s
		}
	}
}

// floorConn is one raw keep-alive connection of the floor client.
type floorConn struct {
	conn net.Conn
	br   *bufio.Reader
}

func newFloorConn(c net.Conn) *floorConn {
	return &floorConn{conn: c, br: bufio.NewReaderSize(c, 4<<10)}
}

// readResponse reads one 200 response from br, stamping into s.recv the
// arrival of each chunk of a chunked body, or of a Content-Length body's
// first bytes.
func readResponse(br *bufio.Reader, s *floorStream) error {
	line, err := br.ReadSlice('\n')
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(line, []byte("HTTP/1.1 200 ")) {
		return fmt.Errorf("status %q", bytes.TrimSpace(line))
	}
	chunked, length := false, int64(-1)
	for {
		line, err = br.ReadSlice('\n')
		if err != nil {
			return err
		}
		h := bytes.TrimSpace(line)
		if len(h) == 0 {
			break
		}
		name, value, _ := bytes.Cut(h, []byte(":"))
		switch v := bytes.TrimSpace(value); {
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(v, []byte("chunked"))
		case bytes.EqualFold(name, []byte("Content-Length")):
			if length, err = strconv.ParseInt(string(v), 10, 64); err != nil {
				return fmt.Errorf("content length %q: %w", v, err)
			}
		}
	}
	if !chunked {
		if length < 0 {
			return fmt.Errorf("response neither chunked nor of known length")
		}
		if _, err := br.Peek(min(int(length), 1)); err != nil {
			return err
		}
		s.recv = append(s.recv, time.Now())
		_, err := br.Discard(int(length))
		return err
	}
	for {
		line, err = br.ReadSlice('\n')
		if err != nil {
			return err
		}
		at := time.Now()
		size, err := strconv.ParseInt(string(bytes.TrimSpace(line)), 16, 64)
		if err != nil {
			return fmt.Errorf("chunk size %q: %w", line, err)
		}
		if _, err := br.Discard(int(size) + 2); err != nil { // data and CRLF
			return err
		}
		if size == 0 {
			return nil // the last chunk: its CRLF ended the (trailer-less) body
		}
		s.recv = append(s.recv, at)
	}
}

// streamTimes are one request's streaming metrics (ms): TTFT, TTST,
// request latency, ITL and the inter-chunk latencies between token events.
type streamTimes struct {
	ttft, ttst, lat, itl float64
	icl                  []float64
}

// times returns the floor stream's metrics, taking the token events from
// the server's timeline of the same request (chunk k is event k).
func (s floorStream) times(tl mockserver.Timeline) (streamTimes, error) {
	if len(s.recv) != len(tl.Events) {
		return streamTimes{}, fmt.Errorf("floor request %s: %d chunks, %d server events", s.id, len(s.recv), len(tl.Events))
	}
	var at []time.Time
	for k, e := range tl.Events {
		if e.Kind == mockserver.EventReasoning || e.Kind == mockserver.EventContent {
			at = append(at, s.recv[k])
		}
	}
	if len(at) < 2 {
		return streamTimes{}, fmt.Errorf("floor request %s: %d token events", s.id, len(at))
	}
	st := streamTimes{
		ttft: ms(at[0].Sub(s.start)),
		ttst: ms(at[1].Sub(at[0])),
		lat:  ms(at[len(at)-1].Sub(s.start)),
		itl:  ms(at[len(at)-1].Sub(at[0])) / float64(len(at)-1),
	}
	for i := 1; i < len(at); i++ {
		st.icl = append(st.icl, ms(at[i].Sub(at[i-1])))
	}
	return st, nil
}

// deviations holds client-minus-server differences (ms) by metric: ttft,
// ttst, lat, itl and icl.
type deviations map[string][]float64

// add adds one request's differences from the server's timeline tl: TTFT
// and request latency against arrival, the others against the token
// events' write times.
func (d deviations) add(tl mockserver.Timeline, st streamTimes) error {
	ev := tl.TokenEvents()
	if len(ev) < 2 || len(st.icl) != len(ev)-1 {
		return fmt.Errorf("%s: %d inter-chunk values, %d server token events", tl.RequestID, len(st.icl), len(ev))
	}
	last := ev[len(ev)-1].At
	d["ttft"] = append(d["ttft"], st.ttft-ms(ev[0].At.Sub(tl.Arrival)))
	d["ttst"] = append(d["ttst"], st.ttst-ms(ev[1].At.Sub(ev[0].At)))
	d["lat"] = append(d["lat"], st.lat-ms(last.Sub(tl.Arrival)))
	d["itl"] = append(d["itl"], st.itl-ms(last.Sub(ev[0].At))/float64(len(ev)-1))
	for i, v := range st.icl {
		d["icl"] = append(d["icl"], v-ms(ev[i+1].At.Sub(ev[i].At)))
	}
	return nil
}

// abs returns the absolute differences of kind, or of every kind for "".
func (d deviations) abs(kind string) []float64 {
	var out []float64
	for k, vs := range d {
		if kind == "" || k == kind {
			for _, v := range vs {
				out = append(out, max(v, -v))
			}
		}
	}
	return out
}

// pct returns the p-th percentile of kind's absolute differences ("":
// every kind's).
func (d deviations) pct(kind string, p float64) float64 {
	return metrics.Percentile(d.abs(kind), p)
}

// floorDeviations runs the floor client (floorStreams) and adds its
// differences from the server's timelines to d.
func floorDeviations(ctx context.Context, base string, conc, warm, n int, prefix string, d deviations) error {
	streams, err := floorStreams(ctx, base, conc, warm, n, prefix)
	if err != nil {
		return err
	}
	for _, s := range streams {
		tl, err := mockserver.FetchTimeline(ctx, http.DefaultClient, base, s.id)
		if err != nil {
			return err
		}
		st, err := s.times(tl)
		if err != nil {
			return err
		}
		if err := d.add(tl, st); err != nil {
			return err
		}
	}
	return nil
}

// slowConn delays every read by its delay after the data arrived: a
// client that adds latency to each response it reads (the fault the
// timing tests must catch).
type slowConn struct {
	net.Conn
	delay time.Duration
}

// Read implements io.Reader.
func (c slowConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		time.Sleep(c.delay)
	}
	return n, err
}

var _ io.Reader = slowConn{}
