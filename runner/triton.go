package runner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aiperf-go/aiperf/endpoint"
)

// The --service-kind values of GenAI-Perf's scripts: the ones aiperf maps
// onto endpoint types, and the ones it cannot serve (they need gRPC or an
// in-process engine; aiperf speaks HTTP only).
var (
	serviceKinds            = []string{"triton", "openai"}
	unsupportedServiceKinds = []string{"dynamic_grpc", "tensorrtllm_engine", "triton_c_api"}
)

// tritonTypes are the endpoint types a Triton server answers: KServe v2
// infer, the generate extension and a custom template.
var tritonTypes = []string{"kserve", "generate", "template"}

// ApplyServiceKind maps GenAI-Perf's --service-kind onto the endpoint type,
// as GenAI-Perf does: `--service-kind triton` without --endpoint-type (not
// in FlagsSet) means --endpoint-type kserve; `--service-kind openai` keeps
// the endpoint type. It lower-cases ServiceKind and Backend and leaves
// invalid combinations to Validate. Call it after FlagsSet is filled and
// before Validate; calling it twice changes nothing.
func (c *Config) ApplyServiceKind() {
	c.ServiceKind = strings.ToLower(strings.TrimSpace(c.ServiceKind))
	c.Backend = strings.ToLower(strings.TrimSpace(c.Backend))
	if c.ServiceKind == "triton" && !c.flagSet("endpoint-type") {
		c.EndpointType = "kserve"
	}
}

// pathModel is the model named in a path template's {model}: the first
// --model (GenAI-Perf's model_names[0]), or "" when there is none.
func (c *Config) pathModel() string {
	if len(c.Models) == 0 {
		return ""
	}
	return c.Models[0]
}

// tritonProblems lists what is wrong with the Triton settings, in
// Validate's style.
func (c *Config) tritonProblems() []string {
	var p []string
	add := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	kind := strings.ToLower(strings.TrimSpace(c.ServiceKind))
	typ := strings.ToLower(strings.TrimSpace(c.EndpointType))
	switch {
	case kind == "" || slices.Contains(serviceKinds, kind):
	case slices.Contains(unsupportedServiceKinds, kind):
		add("--service-kind %s is not supported: aiperf speaks HTTP only (no gRPC, dynamic_grpc or in-process tensorrtllm_engine); "+
			"use --service-kind triton (--endpoint-type kserve or generate) against Triton's HTTP port, e.g. --url localhost:8000", kind)
	default:
		add("--service-kind %q is not valid: use one of %s", c.ServiceKind, strings.Join(serviceKinds, ", "))
	}
	switch {
	case kind == "triton" && !slices.Contains(tritonTypes, typ):
		add("--service-kind triton works with --endpoint-type kserve (its default), generate or template, not %q: "+
			"drop --endpoint-type, or use --service-kind openai for the OpenAI types", c.EndpointType)
	case kind == "openai" && typ == "kserve":
		add("--endpoint-type kserve is Triton's KServe v2 protocol: use --service-kind triton, or leave --service-kind out")
	}
	backend := strings.ToLower(strings.TrimSpace(c.Backend))
	switch {
	case backend == "":
	case !slices.Contains(endpoint.Backends, backend):
		add("--backend %q is not valid: use one of %s (tensorrtllm_engine, which runs in process, is not supported)",
			c.Backend, strings.Join(endpoint.Backends, ", "))
	case typ != "kserve":
		add("--backend applies only to --endpoint-type kserve (GenAI-Perf: --service-kind triton), not %q", c.EndpointType)
	}
	if typ != "kserve" && typ != "generate" {
		return p
	}
	if c.EndpointPath == "" && len(c.Models) > 1 {
		add("--endpoint-type %s puts the model in the URL path (/v2/models/{model}/…): give one --model, not %d", typ, len(c.Models))
	}
	if typ == "kserve" && c.PromptBatchSize > 1 {
		add("--prompt-batch-size %d is not supported by --endpoint-type kserve (one text_input per request, as GenAI-Perf's --batch-size-text)", c.PromptBatchSize)
	}
	return p
}
