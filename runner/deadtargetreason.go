package runner

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/aiperf-go/aiperf/metrics"
	"github.com/aiperf-go/aiperf/record"
)

// errorTally counts failed requests by kind (HTTP status and error type,
// not the message, which often carries a port or a request id), for the
// one-line reasons a failed run's manifest and console carry.
type errorTally struct {
	total int
	kinds map[string]int
}

// maxReasonKinds bounds how many kinds a reason names.
const maxReasonKinds = 3

// add counts one error.
func (t *errorTally) add(e *record.Error) { t.addN(e, 1) }

// addN counts n errors like e.
func (t *errorTally) addN(e *record.Error, n int) {
	if t.kinds == nil {
		t.kinds = map[string]int{}
	}
	t.kinds[errorKind(e)] += n
	t.total += n
}

// String lists the kinds, most frequent first (then by name), as
// "37 × ConnectionRefusedError, 3 × 500 Internal Server Error"; past
// maxReasonKinds the rest are summed as "n × other".
func (t errorTally) String() string {
	type kc struct {
		kind  string
		count int
	}
	var all []kc
	for k, c := range t.kinds {
		all = append(all, kc{k, c})
	}
	slices.SortFunc(all, func(a, b kc) int {
		return cmp.Or(cmp.Compare(b.count, a.count), strings.Compare(a.kind, b.kind))
	})
	var parts []string
	other := 0
	for i, e := range all {
		if i < maxReasonKinds {
			parts = append(parts, fmt.Sprintf("%d × %s", e.count, e.kind))
		} else {
			other += e.count
		}
	}
	if other > 0 {
		parts = append(parts, fmt.Sprintf("%d × other", other))
	}
	return strings.Join(parts, ", ")
}

// errorKind names an error by its HTTP status, when it has one, and type:
// "500 Internal Server Error", "ConnectionRefusedError".
func errorKind(e *record.Error) string {
	typ := e.Type
	if typ == "" {
		typ = "Error"
	}
	if e.Code == 0 || strings.HasPrefix(typ, strconv.Itoa(e.Code)) {
		return typ
	}
	return strconv.Itoa(e.Code) + " " + typ
}

// allFailedReason is the manifest's reason for a run whose profiling
// requests all failed: "all 40 requests failed: 40 × ConnectionRefusedError".
func allFailedReason(s *metrics.Summary) string {
	var t errorTally
	for _, e := range s.Errors {
		t.addN(&e.Error, e.Count)
	}
	head := fmt.Sprintf("all %d requests failed", s.Failed)
	if s.Failed == 1 {
		head = "the only request failed"
	}
	if t.total == 0 {
		return head
	}
	return head + ": " + t.String()
}
