package endpoint

import "github.com/aiperf-go/aiperf/dataset"

// The names AIPerf's dataset gives its contents, which the template sees
// in texts_by_name, images_by_name, … and in turn.texts[].name.
const (
	nameText     = "text"
	nameQuery    = "query"
	namePassages = "passages"
	nameImage    = "image_url"
	nameAudio    = "input_audio"
	nameVideo    = "video_url"
)

// templateVars returns the variables a template is rendered with, those of
// AIPerf's TemplateEndpoint.format_payload:
//
//	texts, images, audios, videos   every content of the kind, in order
//	text, image, audio, video       the first of each, or None
//	queries, passages               texts_by_name["query"], ["passages"] (or ["passage"])
//	query, passage                  the first of each, or None
//	texts_by_name, images_by_name,  contents by dataset name: "text" (prompts),
//	audios_by_name, videos_by_name  "query", "passages" (rankings), "image_url",
//	                                "input_audio", "video_url"
//	model                           the turn's model
//	max_tokens                      the turn's max tokens, or None
//	role                            the turn's role, or None
//	turn                            {role, model, max_tokens, texts, images, audios,
//	                                 videos}, each media list [{name, contents}]
//	turns                           [turn]: only the turn being sent (see below)
//	request_info                    {turns, model_name, streaming}
//	stream                          whether the run streams
//
// A rankings turn's texts are its query then its passages, as AIPerf's
// rankings dataset orders them. AIPerf's turns and request_info carry the
// conversation's earlier turns too; here a request body is built from its
// own turn (earlier ones exist only as encoded chat messages), so turns
// holds that turn alone.
func templateVars(t *dataset.Turn, streaming bool) map[string]any {
	textsByName := map[string]any{}
	var texts []string
	var textItems []any
	addTexts := func(name string, contents []string) {
		contents = nonEmpty(contents)
		if len(contents) == 0 {
			return
		}
		texts = append(texts, contents...)
		textsByName[name] = contents
		textItems = append(textItems, map[string]any{"name": name, "contents": contents})
	}
	if t.Query != "" {
		addTexts(nameQuery, []string{t.Query})
	}
	addTexts(namePassages, t.Passages)
	addTexts(nameText, t.Texts)
	images, imagesByName, imageItems := media(nameImage, t.Images)
	audios, audiosByName, audioItems := media(nameAudio, t.Audios)
	videos, videosByName, videoItems := media(nameVideo, t.Videos)

	queries := listOf(textsByName[nameQuery])
	passages := listOf(textsByName[namePassages])
	var maxTokens any
	if t.MaxTokens > 0 {
		maxTokens = t.MaxTokens
	}
	var role any
	if t.Role != "" {
		role = t.Role
	}
	turn := map[string]any{
		"role": role, "model": t.Model, "max_tokens": maxTokens,
		"texts": orEmpty(textItems), "images": imageItems, "audios": audioItems, "videos": videoItems,
	}
	turns := []any{turn}
	return map[string]any{
		"texts":          orEmptyStrings(texts),
		"images":         images,
		"audios":         audios,
		"videos":         videos,
		"text":           first(texts),
		"image":          first(images),
		"audio":          first(audios),
		"video":          first(videos),
		"queries":        queries,
		"passages":       passages,
		"query":          first(queries),
		"passage":        first(passages),
		"texts_by_name":  textsByName,
		"images_by_name": imagesByName,
		"audios_by_name": audiosByName,
		"videos_by_name": videosByName,
		"model":          t.Model,
		"max_tokens":     maxTokens,
		"role":           role,
		"turn":           turn,
		"turns":          turns,
		"request_info":   map[string]any{"turns": turns, "model_name": t.Model, "streaming": streaming},
		"stream":         streaming,
	}
}

// media returns the non-empty contents of one kind, by name, and as the
// turn's [{name, contents}] list.
func media(name string, contents []string) ([]string, map[string]any, []any) {
	contents = nonEmpty(contents)
	if len(contents) == 0 {
		return []string{}, map[string]any{}, []any{}
	}
	return contents, map[string]any{name: contents}, []any{map[string]any{"name": name, "contents": contents}}
}

// listOf returns v as a string list, or an empty list when v is nil.
func listOf(v any) []string {
	if s, ok := v.([]string); ok {
		return s
	}
	return []string{}
}

// first returns the first string, or nil (None) when there is none.
func first(ss []string) any {
	if len(ss) == 0 {
		return nil
	}
	return ss[0]
}

func orEmptyStrings(ss []string) []string {
	if ss == nil {
		return []string{}
	}
	return ss
}

func orEmpty(items []any) []any {
	if items == nil {
		return []any{}
	}
	return items
}
