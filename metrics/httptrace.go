package metrics

import "github.com/aiperf-go/aiperf/record"

// httpTrace sets the http_req_* metrics of a valid record from its HTTP
// trace (§2.3). A phase whose events are missing has no value, as in
// AIPerf; connection_overhead and total need every phase they add up.
func (c *calc) httpTrace(en *enabledSet, t *record.HTTPTrace) {
	phases := [...]struct {
		id  metricID
		get func() (int64, bool)
	}{
		{idHTTPBlocked, t.Blocked},
		{idHTTPDNS, t.DNSLookup},
		{idHTTPConnecting, t.Connecting},
		{idHTTPSending, t.Sending},
		{idHTTPWaiting, t.Waiting},
		{idHTTPReceiving, t.Receiving},
		{idHTTPDuration, t.Duration},
	}
	for _, p := range phases {
		if v, ok := p.get(); ok && en[p.id] {
			c.set(p.id, float64(v))
		}
	}
	if t.GotConnNS != 0 && en[idHTTPReused] {
		reused := 0.0
		if t.Reused {
			reused = 1
		}
		c.set(idHTTPReused, reused)
	}
	if t.Counted {
		for _, v := range [...]struct {
			id metricID
			n  int64
		}{
			{idHTTPDataSent, t.BytesSent},
			{idHTTPChunksSent, t.ChunksSent},
			{idHTTPDataReceived, t.BytesReceived},
			{idHTTPChunksReceived, t.ChunksReceived},
		} {
			if en[v.id] {
				c.set(v.id, float64(v.n))
			}
		}
	}
	overhead, ok := c.sum(idHTTPBlocked, idHTTPDNS, idHTTPConnecting)
	if ok && en[idHTTPOverhead] {
		c.set(idHTTPOverhead, overhead)
	}
	exchange, okX := c.sum(idHTTPSending, idHTTPWaiting, idHTTPReceiving)
	if ok && okX && en[idHTTPTotal] {
		c.set(idHTTPTotal, overhead+exchange)
	}
}

// sum returns the sum of the values of ids, or false if one has none.
func (c *calc) sum(ids ...metricID) (float64, bool) {
	var s float64
	for _, id := range ids {
		v, ok := c.get(id)
		if !ok {
			return 0, false
		}
		s += v
	}
	return s, true
}
