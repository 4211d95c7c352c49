package h1

// A request that waits for its response's head, or a stream for its next
// event, need not keep a goroutine with a deep stack blocked in Read: when
// the read would wait, its reader can return to the top of its goroutine,
// which ends, and a fresh goroutine waits for the data, and reads it, with a
// few hundred bytes of frames in the runtime's smallest stack (2 KiB), before
// it parses on (issue 19: 10,000 streams held 10,000 stacks of 4 KiB).
// WouldBlock and Wait are that pair, on an Exchange for the head and on a
// response body for the stream; the runner finds the body's with an
// interface of its own.

// WouldBlock reports whether the body's next Read would wait for the
// connection: the body is open, no byte read from the connection waits to
// be consumed (but the CRLF that closes a chunk, see drained), and the
// socket has neither data nor a close or reset now. It looks with one
// system call, without waiting and without consuming. It reports false
// where it cannot tell (TLS, a wrapped connection, no Unix): the caller
// then just reads. Only the goroutine reading the body may call it.
func (b *body) WouldBlock() bool {
	return b.state.Load() == bodyOpen && b.c.wouldBlock(b.chunked)
}

// Wait blocks until the body's connection has data, is closed or reset by
// the peer, fails, or passes its deadline (the request's, or the past one
// an ended context sets), and reads what came into the connection's read
// buffer, from its own shallow frames: a parked stream's goroutine reads
// before its stack grows back (the deeper read would come ~20 µs later).
// It reports whether bytes were read; an error it met is the next Read's.
// It holds no buffer while it waits, and its frames below the caller's take
// a few hundred bytes of stack. It returns false at once when the body is
// no longer open (its connection may be another request's by then) or
// bytes read from the connection wait to be consumed. Only the goroutine
// reading the body may call it.
func (b *body) Wait() (read bool) {
	return b.state.Load() == bodyOpen && b.c.wait(b.chunked)
}

// ReadByWait reports whether the bytes read last from the connection were
// read by Wait: the caller then stamps them with its own clock right after
// Wait, rather than after the Read that delivers them. Once the body was
// read to its end it answers for that end (the connection may be another
// request's by then).
func (b *body) ReadByWait() bool {
	switch b.state.Load() {
	case bodyOpen:
		return b.c.lr.waitRead
	case bodyDone:
		return b.waitRead
	}
	return false
}

// drained reports whether no byte read from c waits to be consumed; with
// crlf (a chunked body), a lone CRLF counts as none. The chunked reader
// reads a chunk's closing CRLF at its next Read when the chunk's data went
// past the line buffer (straight into the caller's, at 256 bytes or more:
// most chat events of real servers), and would then go on to wait for the
// next chunk's size line: the stream waits as surely as with nothing
// read. The CRLF is moved into the line buffer, so that the read buffer
// goes back to its pool; the next Read consumes it as before. (A lone
// CRLF of data, left when the reader's buffer ended two bytes before the
// chunk's end, counts too: its message is then parsed when the next bytes
// come, and stamped, as every message, when its first byte was read.)
func (c *conn) drained(crlf bool) bool {
	n := c.br.Buffered() + c.lr.buffered()
	if n == 0 {
		return true
	}
	if !crlf || n != 2 {
		return false
	}
	p, err := c.br.Peek(2) // from the read buffer: no system call
	return err == nil && p[0] == '\r' && p[1] == '\n'
}

// wouldBlock reports whether the next read of c would wait (see
// body.WouldBlock).
func (c *conn) wouldBlock(crlf bool) bool {
	if c.lr.raw == nil || !c.drained(crlf) {
		return false
	}
	p := peekers.Get().(*peeker)
	defer peekers.Put(p)
	if err := c.lr.raw.Control(p.fn); err != nil {
		return false // closed: Read reports it
	}
	return !p.data && !p.closed
}

// wait is body.Wait on c.
func (c *conn) wait(crlf bool) (read bool) {
	l := c.lr
	if l.raw == nil || !c.drained(crlf) || l.pending != nil {
		return false
	}
	if err := l.fill(); err != nil {
		l.pending = err
		return false
	}
	l.waitRead = true
	return true
}
