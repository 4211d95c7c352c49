package sink

import (
	"context"
	"testing"
	"time"
)

// TestShardLayout: a shard's run lives under runs/<group>/shards/<i>/,
// and ready objects are create-only, listed by index with the time their
// shard wrote in them.
func TestShardLayout(t *testing.T) {
	ctx := context.Background()
	store, err := Open(ctx, "mem://", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	run := store.NewShardRun("g-1", 2)
	if got := run.Key("manifest.json"); got != "runs/g-1/shards/2/manifest.json" {
		t.Errorf("key %q", got)
	}
	if SpoolName(run.ID) != "g-1+shards+2" {
		t.Errorf("spool name %q", SpoolName(run.ID))
	}
	t0 := time.Date(2026, 11, 26, 4, 0, 0, 123, time.UTC)
	for _, i := range []int{2, 0, 2} { // the second 2: a retried shard
		if err := store.PutReady(ctx, "g-1", i, t0.Add(time.Duration(i))); err != nil {
			t.Fatal(err)
		}
	}
	marks, err := store.ListReady(ctx, "g-1", true)
	if err != nil {
		t.Fatal(err)
	}
	if len(marks) != 2 || marks[0].Index != 0 || marks[1].Index != 2 || !marks[1].Written.Equal(t0.Add(2)) {
		t.Errorf("marks %+v", marks)
	}
	for _, g := range []string{"", "a/b", "-x", "ok.group_1-2"} {
		if err := CheckGroup(g); (err == nil) != (g == "ok.group_1-2") {
			t.Errorf("CheckGroup(%q) = %v", g, err)
		}
	}
}
