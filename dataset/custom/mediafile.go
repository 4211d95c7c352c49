package custom

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// mediaFiles turns the media strings of records into what is sent, as
// AIPerf's MediaConversionMixin: a URL (scheme and host) or an encoded value
// is kept, a local path is read and base64-encoded. Relative paths are taken
// from the working directory, as AIPerf does. Each file is read once per load.
// A mediaFiles is not safe for concurrent use.
type mediaFiles struct {
	encoded map[string]string // kind + "\x00" + path -> encoded value
}

// imageMIMEs are the image types a local file may hold, by sniffed type.
var imageMIMEs = map[string]bool{
	"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true, "image/bmp": true,
}

// audioFormats and videoFormats are the accepted local file extensions, as
// AIPerf's open_audio and open_video.
var (
	audioFormats = map[string]bool{"wav": true, "mp3": true}
	videoFormats = map[string]bool{"mp4": true, "webm": true}
)

// resolve returns the value sent for media string s of kind (kindImage,
// kindAudio, kindVideo) found in field:
//   - image, video: a data URL ("data:…") is kept;
//   - audio: "wav,<base64>" or "mp3,<base64>" is kept;
//   - a URL with a scheme and a host is kept; one with only either is an
//     error;
//   - anything else is a local file: an image becomes
//     "data:image/<type>;base64,…" (type sniffed from its bytes: png, jpeg,
//     gif, webp, bmp), audio "<wav|mp3>,<base64>" and video
//     "data:video/<mp4|webm>;base64,…" (format from the extension).
//
// Errors are *LineErrors naming field.
func (m *mediaFiles) resolve(kind, field, s string) (string, *LineError) {
	if s == "" {
		return "", &LineError{Field: field, Msg: "empty " + kind}
	}
	if kind != kindAudio && strings.HasPrefix(strings.ToLower(s), "data:") {
		return s, nil
	}
	if kind == kindAudio {
		if f, _, ok := strings.Cut(s, ","); ok && audioFormats[strings.ToLower(f)] {
			return s, nil
		}
	}
	if u, err := url.Parse(s); err == nil && (u.Scheme != "" || u.Host != "") {
		if u.Scheme != "" && u.Host != "" {
			return s, nil
		}
		return "", &LineError{Field: field, Msg: fmt.Sprintf("%q: a URL needs both a scheme and a host", s)}
	}
	key := kind + "\x00" + s
	if v, ok := m.encoded[key]; ok {
		return v, nil
	}
	v, msg := encodeMediaFile(kind, s)
	if msg != "" {
		return "", &LineError{Field: field, Msg: msg}
	}
	if m.encoded == nil {
		m.encoded = make(map[string]string)
	}
	m.encoded[key] = v
	return v, nil
}

// encodeMediaFile reads the local file path and encodes it for kind. It
// returns a message on failure.
func encodeMediaFile(kind, path string) (string, string) {
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	// Check the extension before reading a possibly large file.
	switch {
	case kind == kindAudio && !audioFormats[ext]:
		return "", fmt.Sprintf("%q: not a URL, \"wav,<base64>\"/\"mp3,<base64>\", or a local .wav/.mp3 file", path)
	case kind == kindVideo && !videoFormats[ext]:
		return "", fmt.Sprintf("%q: not a URL, a data URL, or a local .mp4/.webm file", path)
	}
	// Only regular files: a device such as /dev/zero would never end.
	if st, err := os.Stat(path); err != nil {
		return "", fmt.Sprintf("%s file %q: %v", kind, path, unwrapPathError(err))
	} else if !st.Mode().IsRegular() {
		return "", fmt.Sprintf("%s file %q: not a regular file", kind, path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Sprintf("%s file %q: %v", kind, path, unwrapPathError(err))
	}
	b64 := base64.StdEncoding.EncodeToString(b)
	switch kind {
	case kindImage:
		mime := http.DetectContentType(b)
		if !imageMIMEs[mime] {
			return "", fmt.Sprintf("image file %q: not a png, jpeg, gif, webp or bmp image (looks like %s)", path, mime)
		}
		return "data:" + mime + ";base64," + b64, ""
	case kindAudio:
		return ext + "," + b64, ""
	default:
		return "data:video/" + ext + ";base64," + b64, ""
	}
}

// unwrapPathError drops the path an *os.PathError repeats.
func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
