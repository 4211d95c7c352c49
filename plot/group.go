package plot

import (
	"errors"
	"fmt"
	"strings"
)

// ErrGroupBy is returned (wrapped, with the value) for an Options.GroupBy
// that is none of "", "model" and "label:KEY".
var ErrGroupBy = errors.New(`invalid group-by: want "" (model, endpoint and labels), "model" or "label:KEY"`)

// Options tune Render. The zero value groups runs by model, endpoint and
// labels and keeps every run.
type Options struct {
	// GroupBy picks the legend groups of the sweep and Pareto charts and
	// the group column of the run table. "" groups by model + endpoint +
	// labels, so that runs of different models, endpoints or labelled
	// setups are never joined into one sweep by accident; "model" by the
	// run's model alone; "label:KEY" by the value of the run's --label KEY.
	// Runs without the value form one group named "(unknown model)" or
	// "(no KEY)".
	GroupBy string
	// Where is an SQL predicate over the runs table that keeps only the
	// runs it holds for ("" keeps every run); anything but one predicate
	// is ErrWhere.
	Where string
	// Theme is the look of the charts and report.html: "" or ThemeLight,
	// or ThemeDark (light ink on a dark ground); anything else is
	// ErrTheme.
	Theme string
}

func (o Options) labelKey() (string, bool) {
	return strings.CutPrefix(o.GroupBy, "label:")
}

// check returns ErrGroupBy for an invalid GroupBy.
func (o Options) check() error {
	if _, err := parseTheme(o.Theme); err != nil {
		return err
	}
	switch o.GroupBy {
	case "", "model":
		return nil
	}
	if key, ok := o.labelKey(); !ok || key == "" {
		return fmt.Errorf("%q: %w", o.GroupBy, ErrGroupBy)
	}
	return nil
}

// group names a run's group.
func (o Options) group(r runInfo) string {
	switch key, ok := o.labelKey(); {
	case ok:
		if v, ok := r.Labels[key]; ok {
			return v
		}
		return "(no " + key + ")"
	case o.GroupBy == "model":
		if r.Model == "" {
			return "(unknown model)"
		}
		return r.Model
	}
	var parts []string
	for _, s := range []string{r.Model, r.Endpoint, labelString(r.Labels)} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 {
		return "(unknown model)"
	}
	return strings.Join(parts, " · ")
}

// groupName is the heading of the run table's group column.
func (o Options) groupName() string {
	if key, ok := o.labelKey(); ok {
		return key
	}
	if o.GroupBy == "model" {
		return "model"
	}
	return "model · endpoint · labels"
}
