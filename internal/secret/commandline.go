package secret

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/google/shlex"
)

// CommandLine returns a shell command line, as stored in cli_command, with
// its secrets hidden: it splits s as a POSIX shell does, applies Args and
// URL (to every argument holding "://"), and when anything changed renders
// the arguments again with Quote. A line that does not split (unbalanced
// quotes) is redacted on its text, conservatively: the value of --api-key,
// of a header or extra input that mentions a secret name, up to the next
// flag, and the userinfo of every word holding '@'. A line without
// secrets comes back unchanged.
func CommandLine(s string) string {
	args, err := split(s)
	if err != nil {
		return unsplit(s)
	}
	out := Args(args)
	for i, a := range out {
		if strings.Contains(a, "://") {
			out[i] = URL(a)
		}
	}
	if slices.Equal(out, args) {
		return s
	}
	return Quote(out)
}

// hash stands in for '#' while a line is split, so that shlex reads a
// shell comment as words: a stored line shows them as it shows the others.
const hash = "\uE000"

// errHash reports a line that already holds hash.
var errHash = errors.New("command line holds U+E000")

// split splits s into arguments as a POSIX shell does, comments included.
func split(s string) ([]string, error) {
	if strings.Contains(s, hash) {
		return nil, errHash
	}
	args, err := shlex.Split(strings.ReplaceAll(s, "#", hash))
	for i, a := range args {
		args[i] = strings.ReplaceAll(a, hash, "#")
	}
	return args, err
}

// secretFlagText matches, in a command line's text, a flag whose value
// may be secret (a short bundle ending in H included) and the separator
// before its value.
var secretFlagText = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|\s)(--api-key|--header|--extra-inputs|-[A-Za-z]*H)(=\s*|\s+|)`)
})

// nextFlag matches the start of the next flag after a value.
var nextFlag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s-`) })

// userinfoWord matches a word holding '@', which may be a URL with
// credentials.
var userinfoWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\S*@\S*`) })

// unsplit redacts a command line that does not split into arguments.
func unsplit(s string) string {
	var b strings.Builder
	rest := s
	for {
		m := secretFlagText().FindStringSubmatchIndex(rest)
		if m == nil {
			b.WriteString(rest)
			break
		}
		start := m[1] // the value begins after the separator
		end := len(rest)
		if n := nextFlag().FindStringIndex(rest[start:]); n != nil {
			end = start + n[0]
		}
		value := rest[start:end]
		b.WriteString(rest[:start])
		if rest[m[2]:m[3]] == "--api-key" || mentionsName(value) {
			b.WriteString(Redacted)
		} else {
			b.WriteString(value)
		}
		rest = rest[end:]
	}
	out := userinfoWord().ReplaceAllStringFunc(b.String(), URL)
	if out == s {
		return s
	}
	return out
}
