package report

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/duckdb/duckdb-go/v2"
)

// CheckFormat returns an error naming the valid formats unless format is
// one Write accepts, so that a command can refuse a bad --format before it
// does any work.
func CheckFormat(format string) error {
	if format == "" || slices.Contains(Formats, format) {
		return nil
	}
	return fmt.Errorf("unknown format %q: use one of %s", format, strings.Join(Formats, ", "))
}

// mapCell renders a map (runs.labels, a DuckDB MAP) as "k=v,k=v" in key
// order, the form aiperf profile --label takes; ok is false for a value
// that is not a map.
func mapCell(v any) (s string, ok bool) {
	if om, isOM := v.(duckdb.OrderedMap); isOM {
		v = orderedMap(om)
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Map {
		return "", false
	}
	parts := make([]string, 0, rv.Len())
	for it := rv.MapRange(); it.Next(); {
		parts = append(parts, Cell(it.Key().Interface())+"="+Cell(it.Value().Interface()))
	}
	sort.Strings(parts)
	return strings.Join(parts, ","), true
}

// mapJSON returns a map with keys of any type as a map of strings to
// values, which encoding/json can write (it refuses map[any]any); ok is
// false for a value that is not a map.
func mapJSON(v any) (m map[string]any, ok bool) {
	if om, isOM := v.(duckdb.OrderedMap); isOM {
		v = orderedMap(om)
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Map {
		return nil, false
	}
	m = make(map[string]any, rv.Len())
	for it := rv.MapRange(); it.Next(); {
		m[Cell(it.Key().Interface())] = jsonValue(it.Value().Interface())
	}
	return m, true
}

// orderedMap returns the entries of a DuckDB MAP that the driver scanned
// as an OrderedMap (a map() expression) as a Go map.
func orderedMap(om duckdb.OrderedMap) map[any]any {
	m := make(map[any]any, om.Len())
	for i, k := range om.Keys() {
		m[k] = om.Values()[i]
	}
	return m
}
