package tokenizer

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// LoadOptions configures Load. The zero value loads revision "main" from
// https://huggingface.co into ~/.cache/huggingface, anonymously. The
// command fills it from its flags and environment; this package reads no
// environment variables.
type LoadOptions struct {
	// Revision is the branch, tag or commit of a Hugging Face model;
	// "" means "main" (--tokenizer-revision).
	Revision string
	// TrustRemoteCode is accepted for AIPerf compatibility
	// (--tokenizer-trust-remote-code). No Python code is ever run: only
	// tokenizer.json (and tokenizer_config.json) are read, so it changes
	// nothing but a log line.
	TrustRemoteCode bool
	// HFHome is the Hugging Face home ($HF_HOME); models are cached under
	// HFHome/hub. "" means ~/.cache/huggingface.
	HFHome string
	// Token is the Hugging Face access token ($HF_TOKEN), sent as
	// "Authorization: Bearer" to the endpoint's host only. It never appears
	// in logs or errors. "" means anonymous.
	Token string
	// Offline uses the cache only and never touches the network
	// ($HF_HUB_OFFLINE=1).
	Offline bool
	// Endpoint is the hub's base URL ($HF_ENDPOINT); "" means
	// https://huggingface.co.
	Endpoint string
	// Client makes the hub requests; nil means a client with no overall
	// timeout (ctx and per-request deadlines bound each request).
	Client *http.Client
	// Logger receives download progress and notices; nil discards them.
	Logger *slog.Logger
}

// DefaultEndpoint is the Hugging Face hub used when LoadOptions.Endpoint is
// empty.
const DefaultEndpoint = "https://huggingface.co"

// ErrNoHFSupport is returned, wrapped with the tokenizer's name, by Load
// for any tokenizer but the builtin one when this binary was built without
// the hftokenizers build tag (and so without the Rust library).
var ErrNoHFSupport = errors.New("this aiperf was built without Hugging Face tokenizer support; " +
	"build it with 'make build' (or go build -tags hftokenizers with CGO_LDFLAGS=-L<libtokenizers dir>), " +
	"or pass --tokenizer builtin")

// Load returns the tokenizer called name:
//   - "builtin": Builtin();
//   - an existing file: that tokenizer.json, with a tokenizer_config.json
//     beside it when there is one;
//   - an existing directory: its tokenizer.json (required) and
//     tokenizer_config.json (optional);
//   - otherwise a Hugging Face model id ("org/name"), whose tokenizer.json
//     and tokenizer_config.json are taken from the Hugging Face cache under
//     o.HFHome, downloaded into it first when online (see LoadOptions).
//
// The returned tokenizer's Name is name as given, and it implements
// Specials. Load blocks for the download, which ctx cancels. Errors name
// the tokenizer and say what to do: a gated or unknown model, a revision
// or file that does not exist, a cache miss while offline, or (in a build
// without the hftokenizers tag) ErrNoHFSupport.
func Load(ctx context.Context, name string, o LoadOptions) (Tokenizer, error) {
	if name == BuiltinName {
		return Builtin()
	}
	if strings.TrimSpace(name) == "" {
		return nil, errors.New("tokenizer: empty name")
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if o.TrustRemoteCode {
		log.Info("tokenizer: trust-remote-code accepted, but no Python code is ever run; "+
			"only tokenizer.json and tokenizer_config.json are used", "tokenizer", name)
	}
	if !hfSupported {
		return nil, fmt.Errorf("tokenizer %q: %w", name, ErrNoHFSupport)
	}
	start := time.Now()
	files, err := locate(ctx, name, o, log)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %q: %w", name, err)
	}
	tokJSON, err := os.ReadFile(files.tokenizer)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %q: %w", name, err)
	}
	var cfgJSON []byte
	if files.config != "" {
		if cfgJSON, err = os.ReadFile(files.config); err != nil {
			return nil, fmt.Errorf("tokenizer %q: %w", name, err)
		}
	}
	tok, err := newHF(name, tokJSON, cfgJSON)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %q: load %s: %w", name, files.tokenizer, err)
	}
	log.Info("tokenizer: loaded", "tokenizer", name, "file", files.tokenizer,
		"elapsed", time.Since(start).Round(time.Millisecond))
	return tok, nil
}

// hfFiles are the paths of a tokenizer's files; config is "" when it has
// no tokenizer_config.json.
type hfFiles struct {
	tokenizer, config string
}

const (
	tokenizerFile = "tokenizer.json"
	configFile    = "tokenizer_config.json"
)

// locate finds name's files: on disk when name exists there, else in (and
// through) the Hugging Face cache.
func locate(ctx context.Context, name string, o LoadOptions, log *slog.Logger) (hfFiles, error) {
	st, err := os.Stat(name)
	switch {
	case err == nil && st.IsDir():
		files := hfFiles{tokenizer: filepath.Join(name, tokenizerFile)}
		if !isFile(files.tokenizer) {
			return hfFiles{}, fmt.Errorf("directory %s has no %s (only Hugging Face fast tokenizers, "+
				"saved as tokenizer.json, are supported)", name, tokenizerFile)
		}
		if cfg := filepath.Join(name, configFile); isFile(cfg) {
			files.config = cfg
		}
		return files, nil
	case err == nil:
		files := hfFiles{tokenizer: name}
		if cfg := filepath.Join(filepath.Dir(name), configFile); isFile(cfg) {
			files.config = cfg
		}
		return files, nil
	case !errors.Is(err, fs.ErrNotExist):
		return hfFiles{}, err
	}
	if err := validRepoID(name); err != nil {
		return hfFiles{}, fmt.Errorf("no such file or directory, and not a Hugging Face model id: %w", err)
	}
	h, err := newHub(o, log)
	if err != nil {
		return hfFiles{}, err
	}
	return h.files(ctx, name, o.Revision)
}

func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// validRepoID checks id the way huggingface_hub's validate_repo_id does:
// "name" or "namespace/name", each part 1 to 96 of [A-Za-z0-9_.-], neither
// starting nor ending with '.' or '-', with no "--" or "..", and not ending
// in ".git". Besides rejecting typos early, this keeps ids from escaping
// the cache directory.
func validRepoID(id string) error {
	parts := strings.Split(id, "/")
	if len(parts) > 2 {
		return fmt.Errorf("%q has more than one '/'", id)
	}
	for _, p := range parts {
		if len(p) == 0 || len(p) > 96 {
			return fmt.Errorf("%q: each part must be 1 to 96 characters", id)
		}
		for _, c := range p {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
				return fmt.Errorf("%q: only letters, digits, '_', '.', '-' and one '/' are allowed", id)
			}
		}
		if strings.ContainsAny(p[:1], ".-") || strings.ContainsAny(p[len(p)-1:], ".-") {
			return fmt.Errorf("%q: parts cannot start or end with '.' or '-'", id)
		}
	}
	if strings.Contains(id, "--") || strings.Contains(id, "..") || strings.HasSuffix(id, ".git") {
		return fmt.Errorf("%q: '--', '..' and a '.git' suffix are not allowed", id)
	}
	return nil
}
