package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/peterbourgon/ff/v4"
)

// envPrefix starts the name of every environment variable the commands
// read, as ff.WithEnvVarPrefix("AIPERF") derives it from a flag name.
const envPrefix = "AIPERF_"

// foreignEnvPrefixes start AIPERF_* variables that are not aiperf settings:
// aiperf-report's own (AIPERF_REPORT_*) and the test suites' (AIPERF_TEST_*).
var foreignEnvPrefixes = []string{"AIPERF_REPORT_", "AIPERF_TEST_"}

// envSetting is the environment variable of one flag.
type envSetting struct {
	key  string // e.g. AIPERF_REQUEST_COUNT
	flag string // e.g. --request-count, or -m for a short name
	// boolean: the flag takes true or false.
	boolean bool
	// long: the key comes from a long name, so it is worth suggesting.
	long bool
}

// envSettings returns the environment variables that cmd and its
// subcommands read, one per flag name, as ff derives them. It may set
// flags of cmd: pass a tree built for this alone.
func envSettings(cmd *ff.Command) []envSetting {
	var out []envSetting
	var walk func(c *ff.Command)
	walk = func(c *ff.Command) {
		if c.Flags != nil {
			_ = c.Flags.WalkFlags(func(f ff.Flag) error {
				// ff.Flag does not say whether a flag is boolean: its
				// value reads true or false and refuses other words.
				// Probing is safe: cmd is a throwaway tree.
				v := f.GetValue()
				boolean := (v == "true" || v == "false") && f.SetValue("not-a-boolean") != nil
				if long, ok := f.GetLongName(); ok {
					out = append(out, envSetting{key: envKey(long), flag: "--" + long, boolean: boolean, long: true})
				}
				if short, ok := f.GetShortName(); ok {
					out = append(out, envSetting{key: envKey(string(short)), flag: "-" + string(short), boolean: boolean})
				}
				return nil
			})
		}
		for _, sub := range c.Subcommands {
			walk(sub)
		}
	}
	walk(cmd)
	return out
}

// envKey is the variable ff reads for a flag name: upper case, '-', '.'
// and '/' as '_', after the prefix.
func envKey(name string) string {
	return envPrefix + strings.NewReplacer("-", "_", ".", "_", "/", "_").Replace(strings.ToUpper(name))
}

// checkEnv reviews the AIPERF_* variables of environ ("KEY=value" pairs, as
// os.Environ gives them) against settings. It writes one warning to stderr
// per variable, in name order, that names no setting but is a few edits
// away from one, naming the nearest; variables far from every name are
// taken to belong to something else and left alone. It returns an error
// naming the variable and the accepted forms when a boolean setting's value
// does not parse (ff would refuse it with only strconv's text).
func checkEnv(environ []string, settings []envSetting, stderr io.Writer) error {
	known := make(map[string]envSetting, len(settings))
	for _, s := range settings {
		// A variable that several commands read is boolean only if it is
		// for all of them.
		if k, ok := known[s.key]; ok {
			s.boolean = s.boolean && k.boolean
		}
		known[s.key] = s
	}
	seen := map[string]bool{}
	var keys []string
	values := map[string]string{}
	for _, kv := range environ {
		key, value, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(key, envPrefix) || seen[key] {
			continue
		}
		seen[key] = true
		keys = append(keys, key)
		values[key] = value
	}
	slices.Sort(keys)
	var problems []string
	for _, key := range keys {
		value := values[key]
		if s, ok := known[key]; ok {
			if _, err := strconv.ParseBool(value); s.boolean && value != "" && err != nil {
				problems = append(problems, fmt.Sprintf("%s=%q is not a boolean (%s): use true or false (also accepted: 1/0, t/f, T/F, TRUE/FALSE, True/False)", key, value, s.flag))
			}
			continue
		}
		if slices.ContainsFunc(foreignEnvPrefixes, func(p string) bool { return strings.HasPrefix(key, p) }) {
			continue
		}
		if near, ok := nearestSetting(key, settings); ok {
			fmt.Fprintf(stderr, "aiperf: warning: %s is not an aiperf setting and is ignored; did you mean %s (%s)?\n", key, near.key, near.flag)
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("environment: %s", strings.Join(problems, "; "))
	}
	return nil
}

// nearestSetting returns the long-named setting whose variable is fewest
// edits from key, when that is close enough to be a misspelling: at most a
// quarter of the name after the prefix, and at least 2 edits allowed.
func nearestSetting(key string, settings []envSetting) (envSetting, bool) {
	name := strings.TrimPrefix(key, envPrefix)
	byName := map[string]envSetting{}
	var names []string
	for _, s := range settings {
		if s.long {
			n := strings.TrimPrefix(s.key, envPrefix)
			byName[n] = s
			names = append(names, n)
		}
	}
	best, ok := nearest(name, names, max(2, len(name)/4))
	return byName[best], ok
}

// nearest returns the candidate fewest edits from key (editDistance), when
// at most limit edits; ties go to the earlier candidate in sort order.
func nearest(key string, candidates []string, limit int) (string, bool) {
	best, bestD := "", limit+1
	for _, c := range candidates {
		if d := editDistance(key, c); d < bestD || d == bestD && c < best {
			best, bestD = c, d
		}
	}
	return best, bestD <= limit
}

// editDistance is the Levenshtein distance between a and b, in bytes (the
// names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
