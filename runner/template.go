package runner

import (
	"fmt"
	"strings"

	"github.com/aiperf-go/aiperf/endpoint"
)

// templateSettings returns the template type's body source and response
// field: --endpoint-template and --endpoint-response-field, else AIPerf's
// CLI spelling --extra-inputs payload_template:… and response_field:…
// (flags win). rest is the extra inputs without those two keys, which are
// settings, not body fields, for the template type. For other types it
// returns extra unchanged.
func (c *Config) templateSettings(extra []endpoint.Field) (source, field string, rest []endpoint.Field, err error) {
	if !c.isTemplate() {
		return "", "", extra, nil
	}
	source, field, rest, err = endpoint.TemplateFromExtra(extra)
	if err != nil {
		return "", "", nil, err
	}
	if c.EndpointTemplate != "" {
		source = c.EndpointTemplate
	}
	if c.EndpointResponseField != "" {
		field = c.EndpointResponseField
	}
	return source, field, rest, nil
}

func (c *Config) isTemplate() bool {
	return strings.EqualFold(strings.TrimSpace(c.EndpointType), "template")
}

// templateProblems lists what is wrong with the template settings, in
// Validate's style: the template type needs --endpoint (it has no default
// path) and a template that compiles, with a response field that does;
// other types take no template.
func (c *Config) templateProblems() []string {
	if !c.isTemplate() {
		if c.EndpointTemplate != "" || c.EndpointResponseField != "" {
			return []string{"--endpoint-template and --endpoint-response-field apply only to --endpoint-type template: remove them or use --endpoint-type template"}
		}
		return nil
	}
	var p []string
	if c.EndpointPath == "" {
		p = append(p, "--endpoint-type template has no default path: give the server's path with --endpoint, e.g. --endpoint /v1/embeddings")
	}
	extra, err := endpoint.ParseExtraInputs(c.ExtraInputs)
	if err != nil {
		return p // Validate reports the extra inputs
	}
	source, field, _, err := c.templateSettings(extra)
	switch {
	case err != nil:
		p = append(p, fmt.Sprintf("--extra-inputs: %v: give payload_template and response_field as strings", err))
	case source == "":
		p = append(p, "--endpoint-type template needs --endpoint-template: a named template (nv-embedqa), a template file, or an inline Jinja2 body")
	default:
		ep, err := endpoint.Lookup("template")
		if err == nil {
			err = ep.ConfigureTemplate(endpoint.TemplateConfig{Source: source, ResponseField: field})
		}
		if err != nil {
			p = append(p, fmt.Sprintf("--endpoint-template: %v: fix the template or --endpoint-response-field", err))
		}
	}
	return p
}

// configureTemplate compiles the run's template into r.ep (template type
// only) and returns the extra inputs left to merge into bodies.
func (r *run) configureTemplate(extra []endpoint.Field) ([]endpoint.Field, error) {
	if r.ep.Name != "template" {
		return extra, nil
	}
	source, field, rest, err := r.cfg.templateSettings(extra)
	if err != nil {
		return nil, err
	}
	err = r.ep.ConfigureTemplate(endpoint.TemplateConfig{Source: source, ResponseField: field, Streaming: r.cfg.Streaming})
	return rest, err
}
