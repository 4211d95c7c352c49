package h1

import (
	"errors"
	"sync"
	"time"
)

// Why putIdle refused a connection (passed to the PutIdleConn hook).
var (
	errTooManyIdle    = errors.New("h1: too many idle connections for host")
	errUnexpectedData = errors.New("h1: connection has unread data")
)

// pool holds idle connections per scheme and host:port, most recently used
// last. Nothing watches an idle connection: one the server closed is found
// out when taken for reuse (conn.reusable), and expired ones are closed
// when the pool is next looked at for their host.
type pool struct {
	mu   sync.Mutex
	idle map[string][]*conn
}

// getIdle takes the most recently used idle connection for key that is
// still reusable, closing expired ones and those the server closed; it
// returns nil if there is none, and how long it was idle.
func (t *Transport) getIdle(key string) (*conn, time.Duration) {
	for {
		c, idle := t.popIdle(key)
		if c == nil || c.reusable() {
			return c, idle
		}
		c.nc.Close()
	}
}

// popIdle takes the most recently used idle connection for key, closing
// expired ones; it returns nil if there is none, and how long it was idle.
func (t *Transport) popIdle(key string) (c *conn, idle time.Duration) {
	p := &t.idle
	now := time.Now()
	p.mu.Lock()
	conns := p.idle[key]
	if len(conns) == 0 {
		p.mu.Unlock()
		return nil, 0
	}
	c = conns[len(conns)-1]
	conns[len(conns)-1] = nil
	conns = conns[:len(conns)-1]
	idle = now.Sub(c.idleAt)
	var expired []*conn
	if t.IdleConnTimeout > 0 && idle > t.IdleConnTimeout {
		// The newest is expired, so are all the older ones.
		expired = append(conns, c)
		c, conns = nil, nil
	}
	p.set(key, conns)
	p.mu.Unlock()
	for _, e := range expired {
		e.nc.Close()
	}
	return c, idle
}

// putIdle keeps c for reuse, or returns why not (the caller then closes
// it). It closes the host's expired idle connections.
func (t *Transport) putIdle(c *conn) error {
	if c.unread() > 0 {
		return errUnexpectedData
	}
	max := t.maxIdle()
	if max < 0 {
		return errTooManyIdle
	}
	p := &t.idle
	now := time.Now()
	p.mu.Lock()
	conns := p.idle[c.key]
	var expired []*conn
	if t.IdleConnTimeout > 0 {
		n := 0 // oldest first: expired ones lead
		for n < len(conns) && now.Sub(conns[n].idleAt) > t.IdleConnTimeout {
			n++
		}
		if n > 0 {
			expired = append(expired, conns[:n]...)
			conns = append(conns[:0], conns[n:]...)
			clear(conns[len(conns):cap(conns)])
		}
	}
	var err error
	if len(conns) >= max {
		err = errTooManyIdle
	} else {
		c.idleAt = now
		conns = append(conns, c)
	}
	p.set(c.key, conns)
	p.mu.Unlock()
	for _, e := range expired {
		e.nc.Close()
	}
	return err
}

// closeAll closes every idle connection.
func (p *pool) closeAll() {
	p.mu.Lock()
	all := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, conns := range all {
		for _, c := range conns {
			c.nc.Close()
		}
	}
}

// set stores conns as key's idle list (an empty one keeps its capacity
// for the host's next put); p.mu is held.
func (p *pool) set(key string, conns []*conn) {
	if p.idle == nil {
		p.idle = map[string][]*conn{}
	}
	p.idle[key] = conns
}
