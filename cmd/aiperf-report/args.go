package main

import (
	"strings"

	"github.com/peterbourgon/ff/v4"
)

// flagsFirst returns args with each subcommand's flags moved before its
// positional arguments, so that `show RUN --format csv` parses as
// `show --format csv RUN`: ff's flag sets stop at the first positional
// argument, and a user should not have to know that. Everything after a
// "--" stays positional, in order, and "--" itself is kept, so a query or
// a path that starts with "-" can still be given. An unknown flag is left
// where it is, for the parser to report.
func flagsFirst(root *ff.Command, args []string) []string {
	var out []string
	for cmd := root; ; {
		flags, pos, rest, sub := splitArgs(cmd, args)
		out = append(out, flags...)
		if sub != nil {
			out = append(out, sub.Name)
			cmd, args = sub, rest
			continue
		}
		if len(pos) == 0 && rest == nil {
			return out
		}
		out = append(out, "--")
		out = append(out, pos...)
		return append(out, rest...)
	}
}

// splitArgs separates args into cmd's flags (with their values) and
// positional arguments. It stops at a first positional argument that
// names a subcommand (sub, with rest the arguments after it) or at "--"
// (rest holds what follows it).
func splitArgs(cmd *ff.Command, args []string) (flags, pos, rest []string, sub *ff.Command) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return flags, pos, append([]string{}, args[i+1:]...), nil
		case len(a) < 2 || a[0] != '-':
			// A positional argument ("-" means standard input).
			if s := subcommand(cmd, a); s != nil && len(pos) == 0 {
				return flags, nil, args[i+1:], s
			}
			pos = append(pos, a)
		default:
			flags = append(flags, a)
			if takesValue(cmd.Flags, a) && i+1 < len(args) {
				i++
				flags = append(flags, args[i])
			}
		}
	}
	return flags, pos, nil, nil
}

// takesValue reports whether the flag arg (without an inline "=value")
// consumes the next argument as its value: every flag but a bool one.
func takesValue(fs ff.Flags, arg string) bool {
	if strings.Contains(arg, "=") || fs == nil {
		return false
	}
	name := strings.TrimLeft(arg, "-")
	f, ok := fs.GetFlag(name)
	if !ok {
		return false
	}
	// ff gives a bool flag that defaults to false no placeholder; it has
	// no other way to tell.
	return f.GetPlaceholder() != ""
}

// subcommand returns cmd's subcommand called name, or nil.
func subcommand(cmd *ff.Command, name string) *ff.Command {
	for _, s := range cmd.Subcommands {
		if strings.EqualFold(s.Name, name) {
			return s
		}
	}
	return nil
}
