package query

// lineTemplate is the shape of a line decoded in full: its bytes, and the
// slots of the values it read into fields. Everything between the slots
// (keys, punctuation, whitespace, skipped values such as units) is the
// template's literal text. A line that has the same literal text around
// its values, byte for byte, decodes as the full parser would decode it,
// value for value: the keys are the same, in the same order, and each
// value is read by the same reader, which checks its syntax.
type lineTemplate struct {
	line  []byte
	slots []valueSlot
}

// valueSlot is a value of a template's line: its span and its handler (a
// field number or a handle* constant).
type valueSlot struct {
	start, end int32
	handler    int8
}

// learn makes t the template of line, decoded in full with slots.
func (t *lineTemplate) learn(line []byte, slots []valueSlot) {
	t.line = append(t.line[:0], line...)
	t.slots = append(t.slots[:0], slots...)
}

// replay decodes line into b with template i and tells whether it could:
// false when the line's literal text differs from the template's or a
// value does not read, leaving b with a partial row for the caller to
// drop.
func (d *recordDecoder) replay(b *requestBatch, line []byte, i int) bool {
	t := &d.templates[i]
	if t.line == nil {
		return false
	}
	s := &d.s
	s.reset(line)
	r := d.newRow(b)
	lit := 0 // where the template's literal text resumes
	for _, sl := range t.slots {
		n := int(sl.start) - lit
		if len(line)-s.pos < n || string(line[s.pos:s.pos+n]) != string(t.line[lit:sl.start]) {
			return false
		}
		s.pos += n
		if d.apply(int(sl.handler), b, r) != nil {
			return false
		}
		lit = int(sl.end)
	}
	if string(line[s.pos:]) != string(t.line[lit:]) {
		return false
	}
	d.finishRow(r)
	return true
}
