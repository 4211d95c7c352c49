package custom

import (
	"encoding/json"
	"fmt"
)

// The modality fields of single_turn, multi_turn turns and random_pool
// (§4.2): text/texts, image/images, audio/audios, video/videos. Each pair is
// mutually exclusive; a plural field lists strings or {name, contents}
// objects, and at least one pair must hold something.

// Kinds of media a record can carry.
const (
	kindImage = "image"
	kindAudio = "audio"
	kindVideo = "video"
)

// modalityKeys are the content fields, singular then plural per modality.
var modalityKeys = []string{"text", "texts", "image", "images", "audio", "audios", "video", "videos"}

// hasModality reports whether obj sets any content field, for detection.
func hasModality(obj jsonObject) bool {
	for _, k := range modalityKeys {
		if obj.has(k) {
			return true
		}
	}
	return false
}

// namedText is one text of a record with its field name: plain strings take
// the record's default name ("" for a file, the pool name for a pool of a
// directory), {name, contents} objects their own name ("text" when absent,
// as AIPerf's Text).
type namedText struct{ name, text string }

// Text names that rankings endpoints read (AIPerf accepts "queries" for
// genai-perf datasets).
const (
	nameQuery    = "query"
	nameQueries  = "queries"
	namePassages = "passages"
)

// modalities is the content of one record, media already resolved to what
// is sent (URLs, data URLs, "<format>,<base64>" audio).
type modalities struct {
	texts                  []namedText
	images, audios, videos []string
}

// empty reports whether the record carries nothing to send.
func (m *modalities) empty() bool {
	return len(m.texts) == 0 && len(m.images) == 0 && len(m.audios) == 0 && len(m.videos) == 0
}

// parseModalities reads the content fields of obj. Plain strings of texts
// are named plainName. Media strings go through files (local paths become
// base64). An empty singular string counts as absent; setting both fields of
// a pair (even to empty values) is an error.
func parseModalities(obj jsonObject, pre, plainName string, files *mediaFiles) (modalities, *LineError) {
	var m modalities
	texts, lerr := parsePair(obj, pre, "text", "text", plainName)
	if lerr != nil {
		return m, lerr
	}
	for _, t := range texts {
		m.texts = append(m.texts, namedText{name: t.name, text: t.text})
	}
	for _, kind := range []string{kindImage, kindAudio, kindVideo} {
		items, lerr := parsePair(obj, pre, kind, kind+"_url", plainName)
		if lerr != nil {
			return m, lerr
		}
		var out []string
		for _, it := range items {
			s, lerr := files.resolve(kind, it.field, it.text)
			if lerr != nil {
				return m, lerr
			}
			out = append(out, s)
		}
		switch kind {
		case kindImage:
			m.images = out
		case kindAudio:
			m.audios = out
		case kindVideo:
			m.videos = out
		}
	}
	return m, nil
}

// pairItem is one string of a modality pair with its name and field path.
type pairItem struct{ name, text, field string }

// parsePair reads the fields key and key+"s". Objects without a name get
// objName, AIPerf's default for the modality.
func parsePair(obj jsonObject, pre, key, objName, plainName string) ([]pairItem, *LineError) {
	plural := key + "s"
	one, okOne, lerr := obj.getString(pre, key)
	if lerr != nil {
		return nil, lerr
	}
	items, okMany, lerr := obj.getArray(pre, plural)
	if lerr != nil {
		return nil, lerr
	}
	if okOne && okMany {
		return nil, &LineError{Field: pre + plural, Msg: fmt.Sprintf("%s and %s cannot be set together", key, plural)}
	}
	if okOne {
		if one == "" {
			return nil, nil
		}
		return []pairItem{{name: plainName, text: one, field: pre + key}}, nil
	}
	var out []pairItem
	for i, raw := range items {
		field := fmt.Sprintf("%s%s[%d]", pre, plural, i)
		switch jsonKind(raw) {
		case "a string":
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, wrongType(field, "a string", raw)
			}
			out = append(out, pairItem{name: plainName, text: s, field: field})
		case "an object":
			named, lerr := parseNamedItem(raw, field+".", objName)
			if lerr != nil {
				return nil, lerr
			}
			out = append(out, named...)
		default:
			return nil, wrongType(field, `a string or a {"name", "contents"} object`, raw)
		}
	}
	return out, nil
}

// parseNamedItem reads one {name, contents: [str]} object of a plural field.
func parseNamedItem(raw json.RawMessage, pre, defName string) ([]pairItem, *LineError) {
	var obj jsonObject
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, &LineError{Field: pre[:len(pre)-1], Msg: "invalid JSON object"}
	}
	name, ok, lerr := obj.getString(pre, "name")
	if lerr != nil {
		return nil, lerr
	}
	if !ok {
		name = defName
	}
	contents, _, lerr := obj.getStrings(pre, "contents")
	if lerr != nil {
		return nil, lerr
	}
	out := make([]pairItem, len(contents))
	for i, s := range contents {
		out[i] = pairItem{name: name, text: s, field: fmt.Sprintf("%scontents[%d]", pre, i)}
	}
	return out, nil
}

// rankingTexts splits texts into the rankings query, the passages and the
// other texts. It returns an error when more than one query is given, since
// a rankings request carries one.
func rankingTexts(texts []namedText, field string) (query string, passages, rest []string, lerr *LineError) {
	queries := 0
	for _, t := range texts {
		switch t.name {
		case nameQuery, nameQueries:
			queries++
			query = t.text
		case namePassages:
			passages = append(passages, t.text)
		default:
			rest = append(rest, t.text)
		}
	}
	if queries > 1 {
		return "", nil, nil, &LineError{Field: field, Msg: fmt.Sprintf("%d texts named query/queries: a rankings request carries one query", queries)}
	}
	return query, passages, rest, nil
}
