package custom

import (
	"encoding/json"
	"fmt"
	"strings"
)

// turnRow is one parsed request record: a single_turn line, a multi_turn
// turn or a random_pool entry, with where it was read.
type turnRow struct {
	line int    // 1-based line in the file
	pre  string // field path prefix ("turns[1]." for a multi_turn turn)

	content modalities
	// timestamp and delay are in ms; has* tell whether they were given.
	timestamp, delay          float64
	hasTimestamp, hasDelay    bool
	role, model, sessionID    string
	outputLength              int             // 0: none given
	extra                     json.RawMessage // nil: none given
	hasSessionID, hasSettings bool            // hasSettings: output_length, model or extra given
}

// rowKind selects the fields a record may carry.
type rowKind int

const (
	rowSingleTurn rowKind = iota // a single_turn line: every field
	rowTurn                      // a multi_turn turn: session_id belongs to the conversation
	rowPool                      // a random_pool entry: content only
)

// turnOnlyKeys are the single_turn fields random_pool has no use for. AIPerf
// ignores them there; we refuse them so that nothing is silently dropped.
var turnOnlyKeys = []string{"timestamp", "delay", "role", "session_id", "output_length", "model", "extra", "image_uuids"}

// parseTurnRow validates obj against the single_turn schema of §4.2 (or the
// random_pool subset) and returns the row, or a *LineError naming the first
// bad field. Unknown fields are ignored, as AIPerf's models allow extras.
// plainName names plain text strings (see namedText).
func parseTurnRow(obj jsonObject, pre string, kind rowKind, plainName string, files *mediaFiles) (*turnRow, *LineError) {
	wantType := "single_turn"
	if kind == rowPool {
		wantType = "random_pool"
	}
	if t, ok, lerr := obj.getString(pre, "type"); lerr != nil {
		return nil, lerr
	} else if ok && t != wantType {
		return nil, &LineError{Field: pre + "type", Msg: fmt.Sprintf("%q in a %s record (want %q or no type)", t, wantType, wantType)}
	}
	if kind == rowPool {
		for _, k := range turnOnlyKeys {
			if obj.has(k) {
				return nil, &LineError{Field: pre + k, Msg: "random_pool entries carry content only (no timing, sessions or per-request settings); use single_turn"}
			}
		}
	}
	r := &turnRow{pre: pre}
	var lerr *LineError
	if r.content, lerr = parseModalities(obj, pre, plainName, files); lerr != nil {
		return nil, lerr
	}
	if r.content.empty() {
		msg := "needs content: set one of " + strings.Join(modalityKeys, ", ")
		if kind == rowSingleTurn && obj.has("turns") {
			msg += `; this record has "turns": set --custom-dataset-type multi_turn`
		}
		return nil, &LineError{Field: strings.TrimSuffix(pre, "."), Msg: msg}
	}
	if _, _, _, lerr = rankingTexts(r.content.texts, pre+"texts"); lerr != nil {
		return nil, lerr
	}
	if kind == rowPool {
		return r, nil
	}
	if lerr = r.parseTiming(obj); lerr != nil {
		return nil, lerr
	}
	if lerr = r.parseSettings(obj, kind); lerr != nil {
		return nil, lerr
	}
	if lerr = checkImageUUIDs(obj, pre, len(r.content.images)); lerr != nil {
		return nil, lerr
	}
	return r, nil
}

// parseTiming reads timestamp and delay (ms, >= 0, not both).
func (r *turnRow) parseTiming(obj jsonObject) *LineError {
	var lerr *LineError
	if r.timestamp, r.hasTimestamp, lerr = obj.getNumber(r.pre, "timestamp"); lerr != nil {
		return lerr
	}
	if r.delay, r.hasDelay, lerr = obj.getNumber(r.pre, "delay"); lerr != nil {
		return lerr
	}
	switch {
	case r.timestamp < 0:
		return &LineError{Field: r.pre + "timestamp", Msg: fmt.Sprintf("%g ms: must be >= 0", r.timestamp)}
	case r.delay < 0:
		return &LineError{Field: r.pre + "delay", Msg: fmt.Sprintf("%g ms: must be >= 0", r.delay)}
	case r.hasTimestamp && r.hasDelay:
		return &LineError{Field: r.pre + "delay", Msg: "timestamp and delay cannot be set together"}
	}
	return nil
}

// parseSettings reads role, session_id, output_length, model and extra.
func (r *turnRow) parseSettings(obj jsonObject, kind rowKind) *LineError {
	var lerr *LineError
	if r.role, _, lerr = obj.getString(r.pre, "role"); lerr != nil {
		return lerr
	}
	// A turn's session_id is type-checked but unused (AIPerf ignores it).
	if r.sessionID, r.hasSessionID, lerr = obj.getString(r.pre, "session_id"); lerr != nil {
		return lerr
	}
	if kind != rowSingleTurn {
		r.sessionID, r.hasSessionID = "", false
	}
	var okLen, okModel, okExtra bool
	if r.outputLength, okLen, lerr = obj.getInt(r.pre, "output_length"); lerr != nil {
		return lerr
	}
	if okLen && r.outputLength <= 0 {
		return &LineError{Field: r.pre + "output_length", Msg: fmt.Sprintf("%d: must be > 0", r.outputLength)}
	}
	if r.model, okModel, lerr = obj.getString(r.pre, "model"); lerr != nil {
		return lerr
	}
	if okModel && r.model == "" {
		return &LineError{Field: r.pre + "model", Msg: "empty model name"}
	}
	if r.extra, okExtra, lerr = obj.getObject(r.pre, "extra"); lerr != nil {
		return lerr
	}
	r.hasSettings = okLen || okModel || okExtra
	return nil
}

// checkImageUUIDs validates image_uuids as AIPerf: strings aligned 1:1 with
// a list of images, none empty. The ids are vLLM cache hints; dataset.Turn
// has no place for them yet, so they are checked and not kept.
func checkImageUUIDs(obj jsonObject, pre string, images int) *LineError {
	ids, ok, lerr := obj.getStrings(pre, "image_uuids")
	if lerr != nil || !ok {
		return lerr
	}
	field := pre + "image_uuids"
	switch {
	case obj.has("image"):
		return &LineError{Field: field, Msg: "cannot be used with the singular image field; use images"}
	case images == 0:
		return &LineError{Field: field, Msg: "needs images: cache-only image references are not supported"}
	case len(ids) != images:
		return &LineError{Field: field, Msg: fmt.Sprintf("%d ids for %d images: must match", len(ids), images)}
	}
	for i, id := range ids {
		if id == "" {
			return &LineError{Field: fmt.Sprintf("%s[%d]", field, i), Msg: "empty id"}
		}
	}
	return nil
}
