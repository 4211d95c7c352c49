package secret

import (
	"regexp"
	"strings"
	"sync"
)

// shortBoolFlags are the profile command's one-letter flags that take no
// value, so that a bundle such as -vH'Authorization: x' reads as -v then
// -H with a glued value. Every other letter takes the rest of its argument,
// or the next argument, as its value, as the getopt-style parser does.
// cmd/aiperf's tests check this against its flag set.
const shortBoolFlags = "v"

// flagRedactor returns how to redact the value of a flag that may hold
// secrets, by its long name or short letter, or nil for other flags. (A
// switch, not a map: the redactors reach back to Args through Document.)
func flagRedactor(name string) func(string) string {
	switch name {
	case "--api-key":
		return func(string) string { return Redacted }
	case "--header", "-H":
		return Header
	case "--extra-inputs":
		return Extra
	case "--url", "-u":
		return URL
	case "--server-metrics", "--gpu-telemetry":
		// Telemetry endpoints may carry credentials too; URL hides the
		// userinfo of a list of them (at worst all before the last @).
		return URL
	}
	return nil
}

// Args returns a copy of the command-line arguments with the secrets in
// flag values replaced by Redacted: the API key, secret headers, secret
// extra inputs (at any depth) and URL credentials. It reads every form the
// flag parser accepts: "--flag value", "--flag=value", "--flag= value" (an
// empty glued value takes the next argument), "-H value", "-Hvalue" and
// bundles after value-less letters ("-vHvalue", "-v -H value").
func Args(args []string) []string {
	out := make([]string, len(args))
	copy(out, args)
	for i := 0; i < len(out); i++ {
		a := out[i]
		switch {
		case strings.HasPrefix(a, "--"):
			name, val, hasEq := strings.Cut(a, "=")
			redact := flagRedactor(name)
			switch {
			case redact == nil:
			case hasEq && val != "":
				out[i] = name + "=" + redact(val)
			case i+1 < len(out):
				out[i+1] = redact(out[i+1])
				i++
			}
		case len(a) > 1 && a[0] == '-':
			glued, next := redactShort(a[1:])
			out[i] = "-" + glued
			if next != nil && i+1 < len(out) {
				out[i+1] = next(out[i+1])
				i++
			}
		}
	}
	return out
}

// redactShort redacts a bundle of short flags (the argument without its
// dash). It returns the bundle, its glued value redacted, and, when the
// last flag's value is the next argument, how to redact that (nil when the
// next argument is not a value or holds no secret).
func redactShort(bundle string) (string, func(string) string) {
	for i, r := range bundle {
		if strings.ContainsRune(shortBoolFlags, r) {
			continue
		}
		// A letter that holds no secret takes the rest as its value, or
		// the next argument, which is then read as an argument of its own:
		// at worst a value that looks like a secret flag is redacted too.
		redact := flagRedactor("-" + string(r))
		value := bundle[i+1:]
		switch {
		case redact == nil:
			return bundle, nil
		case value == "":
			return bundle, redact
		}
		return bundle[:i+1] + redact(value), nil
	}
	return bundle, nil
}

// number matches a plain decimal number, which AIPerf prints unquoted.
var number = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$`) })

// Quote renders a command line as AIPerf prints it: flag names, numbers
// and the words aiperf and profile bare, other values in single quotes (a
// quote inside as '\”), so that a POSIX shell splits it back into args.
func Quote(args []string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if number().MatchString(a) || strings.HasPrefix(a, "-") || a == "aiperf" || a == "profile" {
			b.WriteString(a)
			continue
		}
		b.WriteByte('\'')
		b.WriteString(strings.ReplaceAll(a, "'", `'\''`))
		b.WriteByte('\'')
	}
	return b.String()
}
