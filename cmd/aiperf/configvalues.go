package main

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// jsonable turns YAML's decoded maps (map[string]any from yaml.v3, but
// map[any]any for non-string keys) into values encoding/json takes.
func jsonable(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = jsonable(x)
		}
		return v
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[fmt.Sprint(k)] = jsonable(x)
		}
		return out
	case []any:
		for i, x := range v {
			v[i] = jsonable(x)
		}
		return v
	}
	return v
}

// maxSweepValues bounds an analyze sweep (one benchmark per value).
const maxSweepValues = 1000

// sweepList reads an analyze sweep: {start, stop, step} is start, start +
// step, … up to stop; {start, stop} alone is the powers of two from start
// to stop, as GenAI-Perf's analyze searches concurrency and request rate; a
// list is itself. The result is the comma list the flag takes.
func sweepList(v *yaml.Node) (string, error) {
	if v.Kind == yaml.SequenceNode {
		items := make([]string, 0, len(v.Content))
		for _, item := range v.Content {
			s, err := scalarOf(resolveAlias(item))
			if err != nil {
				return "", err
			}
			items = append(items, s)
		}
		return strings.Join(items, ","), nil
	}
	if v.Kind != yaml.MappingNode {
		return "", errors.New("give {start: N, stop: M} or {start, stop, step}")
	}
	r := map[string]int{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k := v.Content[i].Value
		if k != "start" && k != "stop" && k != "step" {
			return "", fmt.Errorf("unknown key %q: use start, stop and step", k)
		}
		var n int
		if err := v.Content[i+1].Decode(&n); err != nil || n < 1 {
			return "", fmt.Errorf("%s must be an integer >= 1", k)
		}
		r[k] = n
	}
	start, stop := r["start"], r["stop"]
	if start == 0 || stop == 0 || stop < start {
		return "", errors.New("give start and stop, with start <= stop")
	}
	var items []string
	if step := r["step"]; step > 0 {
		if (stop-start)/step >= maxSweepValues {
			return "", fmt.Errorf("more than %d values: use a larger step", maxSweepValues)
		}
		for n := start; n <= stop; n += step {
			items = append(items, strconv.Itoa(n))
		}
	} else {
		for e := math.Floor(math.Log2(float64(start))); math.Pow(2, e) <= float64(stop); e++ {
			items = append(items, strconv.Itoa(int(math.Pow(2, e))))
		}
	}
	return strings.Join(items, ","), nil
}

// sweepRange turns analyze's {start, stop[, step]} mapping into the flag's
// range "start:stop[:step]" (which the flag expands by its own rule), or a
// list into "a,b,c".
func sweepRange(v *yaml.Node) (string, error) {
	if v.Kind == yaml.SequenceNode {
		return sweepList(v)
	}
	if v.Kind != yaml.MappingNode {
		return "", errors.New("give {start: N, stop: M} or {start, stop, step}")
	}
	r := map[string]string{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k := v.Content[i].Value
		if k != "start" && k != "stop" && k != "step" {
			return "", fmt.Errorf("unknown key %q: use start, stop and step", k)
		}
		s, err := scalarOf(resolveAlias(v.Content[i+1]))
		if err != nil {
			return "", fmt.Errorf("%s: %w", k, err)
		}
		r[k] = s
	}
	if r["start"] == "" || r["stop"] == "" {
		return "", errors.New("give start and stop")
	}
	out := r["start"] + ":" + r["stop"]
	if r["step"] != "" {
		out += ":" + r["step"]
	}
	return out, nil
}

// scalarOf is v's value as text, or an error when v is a list or mapping.
func scalarOf(v *yaml.Node) (string, error) {
	if v.Kind != yaml.ScalarNode {
		return "", errors.New("takes a single value")
	}
	return scalarText(v), nil
}

// isNull reports whether v is YAML null (an empty value included).
func isNull(v *yaml.Node) bool { return v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" }

// sameValue reports whether two flag values mean the same: equal numbers,
// equal booleans, equal text ignoring case, or the same path (./artifacts
// is artifacts).
func sameValue(a, b string) bool {
	if strings.EqualFold(a, b) || a != "" && b != "" && filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	if x, err := strconv.ParseFloat(a, 64); err == nil {
		y, err := strconv.ParseFloat(b, 64)
		return err == nil && x == y
	}
	if x, err := strconv.ParseBool(a); err == nil {
		y, err := strconv.ParseBool(b)
		return err == nil && x == y
	}
	return false
}
