package plot

import (
	"errors"
	"fmt"
	"strings"
)

// ErrGroupBy is returned (wrapped, with the value) for an Options.GroupBy
// that is neither "model" nor "label:KEY".
var ErrGroupBy = errors.New(`invalid group-by: want "model" or "label:KEY"`)

// Options tune Render. The zero value groups runs by model.
type Options struct {
	// GroupBy picks the legend groups of the Pareto charts and the group
	// column of the run table: "model" (or "") for the run's model,
	// "label:KEY" for the value of the run's --label KEY. Runs without a
	// model, or without that label, form one group named "(unknown model)"
	// or "(no KEY)".
	GroupBy string
}

// groupSQL is the SQL expression over run_summary that names a run's group,
// with its bound arguments.
type groupSQL struct {
	expr string
	args []any
}

func (o Options) labelKey() (string, bool) {
	return strings.CutPrefix(o.GroupBy, "label:")
}

func (o Options) groupSQL() (groupSQL, error) {
	if o.GroupBy == "" || o.GroupBy == "model" {
		return groupSQL{expr: "model"}, nil
	}
	key, ok := o.labelKey()
	if !ok || key == "" {
		return groupSQL{}, fmt.Errorf("%q: %w", o.GroupBy, ErrGroupBy)
	}
	// A JSON pointer names the key exactly, whatever characters it holds.
	pointer := "/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(key)
	return groupSQL{expr: "json_extract_string(labels, ?)", args: []any{pointer}}, nil
}

// groupName is the heading of the run table's group column.
func (o Options) groupName() string {
	if key, ok := o.labelKey(); ok {
		return key
	}
	return "model"
}

// missingGroup names the group of runs that lack the grouping value.
func (o Options) missingGroup() string {
	if key, ok := o.labelKey(); ok {
		return "(no " + key + ")"
	}
	return "(unknown model)"
}
