package endpoint

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"

	"github.com/jmespath-community/go-jmespath"
	"github.com/nikolalohinski/gonja/v2"
	"github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/loaders"
	"github.com/valyala/fastjson"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/internal/pyjson"
)

// The template type sends a body rendered from a Jinja2 template (AIPerf's
// TemplateEndpoint). It has no default path: the run must give --endpoint.
func init() {
	Register(Endpoint{Name: "template", Title: "LLM Metrics",
		SupportsStreaming: true, ProducesTokens: true, TokenizesInput: true}, &templateCodec{})
}

// NamedTemplates are the template bodies --endpoint-template accepts by
// name, as in AIPerf 0.13.
var NamedTemplates = map[string]string{
	"nv-embedqa": `{"text": {{ texts|tojson }}}`,
}

// TemplateConfig is the per-run configuration of the template type.
type TemplateConfig struct {
	// Source is a name in NamedTemplates, the path of a regular file
	// holding the template, or else the template text itself, tried in
	// that order (AIPerf's --extra-inputs payload_template or config
	// endpoint.template.body).
	Source string
	// ResponseField is a JMESPath expression (https://jmespath.org) that
	// selects the response data; "" or "text" (AIPerf's default) selects
	// auto-detection. See templateCodec.Parse.
	ResponseField string
	// Streaming is the run's --streaming: when set, a stream message
	// without ResponseField is skipped (a role or usage chunk) instead of
	// being an error.
	Streaming bool
}

// ConfigureTemplate compiles the template and response field of cfg, once
// for the run, into e, which must be the template type from Lookup (its
// own copy: other lookups are not affected). The error names the template
// and says what is wrong: an empty source, an unreadable file, a template
// or JMESPath syntax error.
func (e *Endpoint) ConfigureTemplate(cfg TemplateConfig) error {
	if e.Name != "template" {
		return fmt.Errorf("endpoint: configure template: type is %q, not template", e.Name)
	}
	name, src, err := templateSource(cfg.Source)
	if err != nil {
		return err
	}
	// A memory loader: the template cannot include files by accident.
	loader, err := loaders.NewMemoryLoader(map[string]string{"/body": src})
	if err != nil {
		return fmt.Errorf("endpoint: template %s: %w", name, err)
	}
	tpl, err := exec.NewTemplate("/body", templateConfig, loader, gonja.DefaultEnvironment)
	if err != nil {
		return fmt.Errorf("endpoint: template %s: %w", name, err)
	}
	c := &templateCodec{name: name, tpl: tpl, streaming: cfg.Streaming}
	if f := strings.TrimSpace(cfg.ResponseField); f != "" && f != "text" {
		if c.field, err = jmespath.Compile(f); err != nil {
			return fmt.Errorf("endpoint: response field %q: %w", f, err)
		}
		c.fieldText = f
	}
	e.codec = c
	return nil
}

// templateConfig is Jinja2's configuration with autoescape on, as AIPerf's
// jinja2.Environment(autoescape=True): "{{ text }}" HTML-escapes, tojson
// output is marked safe.
var templateConfig = func() *config.Config {
	c := config.New()
	c.AutoEscape = true
	return c
}()

// templateSource resolves source to a display name and the template text.
func templateSource(source string) (name, text string, err error) {
	if strings.TrimSpace(source) == "" {
		return "", "", errors.New("endpoint: template: no template given: set --endpoint-template to a named template (nv-embedqa), a file or an inline Jinja2 body")
	}
	if t, ok := NamedTemplates[source]; ok {
		return fmt.Sprintf("%q", source), t, nil
	}
	if fi, err := os.Stat(source); err == nil && fi.Mode().IsRegular() {
		b, err := os.ReadFile(source)
		if err != nil {
			return "", "", fmt.Errorf("endpoint: template file: %w", err)
		}
		return fmt.Sprintf("file %q", source), string(b), nil
	}
	return fmt.Sprintf("%q", truncateString(source, 60)), source, nil
}

// TemplateFromExtra takes AIPerf's CLI spelling of the template settings,
// --extra-inputs payload_template:… and response_field:…, out of extra: it
// returns their string values ("" when absent) and the other fields, which
// are merged into the body as usual. A value that is not a JSON string is
// an error.
func TemplateFromExtra(extra []Field) (source, responseField string, rest []Field, err error) {
	rest = extra[:0:0]
	for _, f := range extra {
		var dst *string
		switch f.Key {
		case "payload_template":
			dst = &source
		case "response_field":
			dst = &responseField
		default:
			rest = append(rest, f)
			continue
		}
		if err := json.Unmarshal(f.Value, dst); err != nil {
			return "", "", nil, fmt.Errorf("endpoint: extra input %s: want a string: %w", f.Key, err)
		}
	}
	return source, responseField, rest, nil
}

// templateCodec renders the body of a template-type request; its zero
// value (the registered one, before ConfigureTemplate) fails every body
// and auto-detects responses.
type templateCodec struct {
	name      string         // for errors: `"nv-embedqa"`, `file "x.j2"`, or the inline text
	tpl       *exec.Template // nil until configured
	field     jmespath.JMESPath
	fieldText string
	streaming bool
}

// renderBufs reuses render buffers across requests.
var renderBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// Members renders the template for t and returns the top-level members of
// the rendered object, in order, each value re-encoded compactly as the
// other types encode (a key given twice keeps its first position and last
// value, as Python's json.loads). A render error, a result that is not
// valid JSON or not an object is an error naming the template.
func (c *templateCodec) Members(members []Member, t *dataset.Turn, _ *Context, streaming bool) ([]Member, error) {
	if c.tpl == nil {
		return nil, errors.New("endpoint: template: no template configured: set --endpoint-template")
	}
	buf := renderBufs.Get().(*bytes.Buffer)
	buf.Reset()
	defer renderBufs.Put(buf)
	if err := c.tpl.Execute(buf, exec.NewContext(templateVars(t, streaming))); err != nil {
		return nil, fmt.Errorf("endpoint: template %s: render: %w", c.name, err)
	}
	rendered := buf.Bytes()
	if err := fastjson.ValidateBytes(rendered); err != nil {
		return nil, fmt.Errorf("endpoint: template %s did not render valid JSON (%v): %s", c.name, err, truncate(rendered, 100))
	}
	p := parsers.Get()
	defer parsers.Put(p)
	v, err := p.ParseBytes(rendered)
	if err != nil {
		return nil, fmt.Errorf("endpoint: template %s did not render valid JSON (%v): %s", c.name, err, truncate(rendered, 100))
	}
	o, err := v.Object()
	if err != nil {
		return nil, fmt.Errorf("endpoint: template %s rendered a JSON %s, want an object: %s", c.name, v.Type(), truncate(rendered, 100))
	}
	o.Visit(func(key []byte, v *fastjson.Value) {
		val := appendValue(nil, v)
		for i := range members {
			if members[i].Key == string(key) {
				members[i].Value = val
				return
			}
		}
		members = append(members, Member{string(key), val})
	})
	return members, nil
}

// Authorize sets "Authorization: Bearer <key>" when key is not empty.
func (c *templateCodec) Authorize(h http.Header, key string) {
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
}

// appendValue appends v as compact JSON, strings escaped by pyjson as
// every other body, numbers as written.
func appendValue(b []byte, v *fastjson.Value) []byte {
	switch v.Type() {
	case fastjson.TypeString:
		return pyjson.AppendString(b, string(v.GetStringBytes()))
	case fastjson.TypeArray:
		b = append(b, '[')
		for i, item := range v.GetArray() {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendValue(b, item)
		}
		return append(b, ']')
	case fastjson.TypeObject:
		b = append(b, '{')
		n := 0
		v.GetObject().Visit(func(key []byte, item *fastjson.Value) {
			b = append(pyjson.AppendString(sep(b, n), string(key)), ':')
			b = appendValue(b, item)
			n++
		})
		return append(b, '}')
	case fastjson.TypeNumber:
		// Python's json.loads then dumps: integers as written, other
		// numbers by float repr (1.50 is 1.5, 1e3 is 1000.0).
		raw := v.MarshalTo(nil)
		if bytes.ContainsAny(raw, ".eE") {
			return pyjson.AppendFloat(b, v.GetFloat64())
		}
		return append(b, raw...)
	default: // true, false, null
		return v.MarshalTo(b)
	}
}

// truncate returns b as a string of at most n bytes, with "…" when cut.
func truncate(b []byte, n int) string {
	return truncateString(string(b), n)
}

func truncateString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
