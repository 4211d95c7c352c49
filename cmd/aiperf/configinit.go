package main

import (
	"bufio"
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/peterbourgon/ff/v4"

	"github.com/aiperf-go/aiperf/internal/command"
)

// configTemplatesFS holds the starter files of `aiperf config init`.
//
//go:embed configtemplates/*.yaml
var configTemplatesFS embed.FS

// starter is one bundled config template.
type starter struct {
	name, title, description, category string
	body                               []byte
}

// starters reads the bundled templates, sorted by name; each file starts
// with "# title:", "# description:" and "# category:" comment lines.
func starters() []starter {
	entries, _ := configTemplatesFS.ReadDir("configtemplates")
	var out []starter
	for _, e := range entries {
		body, _ := configTemplatesFS.ReadFile(path.Join("configtemplates", e.Name()))
		s := starter{name: strings.TrimSuffix(e.Name(), ".yaml"), body: body}
		sc := bufio.NewScanner(bytes.NewReader(body))
		for sc.Scan() {
			line, ok := strings.CutPrefix(sc.Text(), "# ")
			if !ok {
				break
			}
			if k, v, ok := strings.Cut(line, ": "); ok {
				switch k {
				case "title":
					s.title = v
				case "description":
					s.description = v
				case "category":
					s.category = v
				}
			}
		}
		out = append(out, s)
	}
	return out
}

// Lines of a template that --model and --url replace: the flat layout's
// model and url keys, the nested layout's model_names and endpoint url.
var (
	starterModelLine = regexp.MustCompile(`(?m)^(model|model_names): .*$`)
	starterURLLine   = regexp.MustCompile(`(?m)^(url|  url): .*$`)
)

// customize returns body with its model and url values replaced by the
// given ones (empty: kept).
func customize(body []byte, model, url string) []byte {
	quote := func(s string) string { b, _ := json.Marshal(s); return string(b) } // a JSON string is a YAML one
	if model != "" {
		body = starterModelLine.ReplaceAll(body, []byte("${1}: "+strings.ReplaceAll(quote(model), "$", "$$")))
	}
	if url != "" {
		body = starterURLLine.ReplaceAll(body, []byte("${1}: "+strings.ReplaceAll(quote(url), "$", "$$")))
	}
	return body
}

// newConfigInitCommand is `aiperf config init`: print or write a bundled
// starter config, or list them.
func newConfigInitCommand(stdout io.Writer) *ff.Command {
	fs := ff.NewFlagSet("init")
	name := fs.String('t', "template", "minimal", "the template `NAME` to write (see --list)")
	list := fs.Bool('l', "list", "list the bundled templates and exit")
	search := fs.String('s', "search", "", "with --list: only templates whose name, title or description holds `WORD`")
	category := fs.String('c', "category", "", "with --list: only templates of `CATEGORY`")
	model := fs.String('m', "model", "", "put `MODEL` in the template")
	url := fs.String('u', "url", "", "put `URL` in the template")
	output := fs.String('o', "output", "", "write to `FILE` (which must not exist) instead of stdout")
	return &ff.Command{
		Name:      "init",
		Usage:     "aiperf config init [-t NAME] [-m MODEL] [-u URL] [-o FILE] | aiperf config init --list",
		ShortHelp: "print or write a starter config file, or list the bundled ones",
		Flags:     fs,
		Exec: func(_ context.Context, rest []string) error {
			if len(rest) > 0 {
				return command.Usage(fmt.Errorf("unexpected argument %q: the template is chosen with -t NAME", rest[0]))
			}
			all := starters()
			if *list {
				return listStarters(stdout, all, *search, *category)
			}
			i := slices.IndexFunc(all, func(s starter) bool { return s.name == *name })
			if i < 0 {
				names := make([]string, len(all))
				for j, s := range all {
					names[j] = s.name
				}
				return command.Usage(fmt.Errorf("--template %q is not a bundled template: use one of %s", *name, strings.Join(names, ", ")))
			}
			body := customize(all[i].body, *model, *url)
			if *output == "" {
				_, err := stdout.Write(body)
				return err
			}
			if err := writeNewFile(*output, body); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "wrote %s (template %s)\n", *output, *name)
			return nil
		},
	}
}

// listStarters prints the templates matching search and category, grouped
// by category.
func listStarters(w io.Writer, all []starter, search, category string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tCATEGORY\tDESCRIPTION")
	slices.SortStableFunc(all, func(a, b starter) int { return strings.Compare(a.category, b.category) })
	for _, s := range all {
		text := strings.ToLower(s.name + " " + s.title + " " + s.description)
		if search != "" && !strings.Contains(text, strings.ToLower(search)) {
			continue
		}
		if category != "" && !strings.EqualFold(category, s.category) {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.name, s.category, s.description)
	}
	return tw.Flush()
}

// writeNewFile writes body to a file that must not exist yet.
func writeNewFile(name string, body []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return command.Usage(fmt.Errorf("file %q already exists: give a different file name", name))
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
