package query

import (
	"encoding/json"
	"fmt"
)

// configFacts are the workload facts of a run, read from its input_config.
// A nil pointer or "" is unknown (NULL).
type configFacts struct {
	Models         []string
	EndpointType   string
	Streaming      *bool
	LoadMode       string // "concurrency" or "request_rate"
	Concurrency    *int
	RequestRate    *float64
	ArrivalPattern string
	RequestCount   *int64
	ISLMean        *float64
	ISLStddev      *float64
	OSLMean        *float64
	OSLStddev      *float64
	// ExportPrefix is artifacts.prefix (--profile-export-prefix), "" for the
	// default file names.
	ExportPrefix string
}

// Model returns the first model, or "".
func (c *configFacts) Model() string {
	if len(c.Models) == 0 {
		return ""
	}
	return c.Models[0]
}

// wireConfig is the part of input_config read here. It accepts aiperf-go's
// shape (runner/inputconfig.go) and AIPerf's (fixture baseline-chat), which
// agree on models.items[].name, endpoint.type, datasets[].prompts.isl/osl
// and phases[], and AIPerf's before 0.8 (endpoint.model_names,
// input.prompt.input_tokens/output_tokens, loadgen.*).
type wireConfig struct {
	Models   json.RawMessage `json:"models"`
	Endpoint struct {
		Type      string `json:"type"`
		Streaming *bool  `json:"streaming"`
		// ModelNames is where AIPerf before 0.8 kept the models.
		ModelNames []string `json:"model_names"`
	} `json:"endpoint"`
	// Input and Loadgen are AIPerf's layout before 0.8 (the 0.7-era
	// examples/artifacts/run1): prompt lengths under input.prompt and the
	// load under loadgen.
	Input struct {
		Prompt struct {
			InputTokens  *meanStd `json:"input_tokens"`
			OutputTokens *meanStd `json:"output_tokens"`
		} `json:"prompt"`
	} `json:"input"`
	Loadgen *struct {
		Concurrency  *int     `json:"concurrency"`
		RequestRate  *float64 `json:"request_rate"`
		RequestCount *int64   `json:"request_count"`
	} `json:"loadgen"`
	Datasets []struct {
		Prompts struct {
			ISL *meanStd `json:"isl"`
			OSL *meanStd `json:"osl"`
		} `json:"prompts"`
	} `json:"datasets"`
	Phases []struct {
		Name           string   `json:"name"`
		Type           string   `json:"type"`
		Requests       *int64   `json:"requests"`
		Concurrency    *int     `json:"concurrency"`
		Rate           *float64 `json:"rate"`
		RequestRate    *float64 `json:"request_rate"`
		ArrivalPattern string   `json:"arrival_pattern"`
	} `json:"phases"`
	Artifacts struct {
		Prefix string `json:"prefix"`
	} `json:"artifacts"`
}

type meanStd struct {
	Mean   *float64 `json:"mean"`
	Stddev *float64 `json:"stddev"`
}

// parseConfig reads the workload facts from input_config JSON. Empty input
// gives empty facts; fields of unexpected types are an error.
func parseConfig(data []byte) (configFacts, error) {
	var f configFacts
	if len(data) == 0 || string(data) == "null" {
		return f, nil
	}
	var w wireConfig
	if err := json.Unmarshal(data, &w); err != nil {
		return f, fmt.Errorf("input_config: %w", err)
	}
	f.Models = parseModels(w.Models)
	if len(f.Models) == 0 {
		f.Models = w.Endpoint.ModelNames
	}
	f.EndpointType, f.Streaming = w.Endpoint.Type, w.Endpoint.Streaming
	f.ExportPrefix = w.Artifacts.Prefix
	if len(w.Datasets) > 0 {
		p := w.Datasets[0].Prompts
		if p.ISL != nil {
			f.ISLMean, f.ISLStddev = p.ISL.Mean, p.ISL.Stddev
		}
		if p.OSL != nil {
			f.OSLMean, f.OSLStddev = p.OSL.Mean, p.OSL.Stddev
		}
	}
	if f.ISLMean == nil && w.Input.Prompt.InputTokens != nil {
		f.ISLMean, f.ISLStddev = w.Input.Prompt.InputTokens.Mean, w.Input.Prompt.InputTokens.Stddev
	}
	if f.OSLMean == nil && w.Input.Prompt.OutputTokens != nil {
		f.OSLMean, f.OSLStddev = w.Input.Prompt.OutputTokens.Mean, w.Input.Prompt.OutputTokens.Stddev
	}
	if l := w.Loadgen; l != nil && len(w.Phases) == 0 {
		f.Concurrency, f.RequestRate, f.RequestCount = l.Concurrency, l.RequestRate, l.RequestCount
		switch {
		case l.RequestRate != nil && *l.RequestRate > 0:
			f.LoadMode = "request_rate"
		case l.Concurrency != nil && *l.Concurrency > 0:
			f.LoadMode = "concurrency"
		}
	}
	// The profiling phase describes the load; warmup does not.
	idx := len(w.Phases) - 1
	for i, p := range w.Phases {
		if p.Name == "profiling" {
			idx = i
		}
	}
	if idx >= 0 {
		p := w.Phases[idx]
		rate := p.Rate
		if rate == nil {
			rate = p.RequestRate
		}
		f.Concurrency, f.RequestRate, f.RequestCount, f.ArrivalPattern = p.Concurrency, rate, p.Requests, p.ArrivalPattern
		switch {
		case p.Type == "concurrency" || p.Type == "request_rate":
			f.LoadMode = p.Type
		case rate != nil && *rate > 0:
			f.LoadMode = "request_rate"
		case p.Concurrency != nil && *p.Concurrency > 0:
			f.LoadMode = "concurrency"
		}
	}
	return f, nil
}

// parseModels accepts {"items":[{"name":…}]}, ["a","b"] and
// {"model_names":["a"]}; anything else gives none.
func parseModels(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var names []string
	if json.Unmarshal(raw, &names) == nil {
		return names
	}
	var obj struct {
		Items []struct {
			Name string `json:"name"`
		} `json:"items"`
		ModelNames []string `json:"model_names"`
	}
	if json.Unmarshal(raw, &obj) != nil {
		return nil
	}
	for _, it := range obj.Items {
		if it.Name != "" {
			names = append(names, it.Name)
		}
	}
	if len(names) == 0 {
		names = obj.ModelNames
	}
	return names
}
