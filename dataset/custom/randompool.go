package custom

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/aiperf-go/aiperf/dataset"
)

// randomPoolFormat is the random_pool type (§4.2): entries with the
// single_turn content fields, drawn with replacement into
// Options.NumConversations single-turn conversations. The path may be a
// directory: each file is a pool named by its stem, and every request
// merges one entry of each pool (e.g. queries.jsonl + passages.jsonl for
// rankings).
var randomPoolFormat = format{
	name:   "random_pool",
	detect: detectRandomPool,
	load:   loadRandomPool,
}

// detectRandomPool accepts a directory holding at least one pool file whose
// first record has content, or a file whose first record says "type":
// "random_pool" (a plain file is otherwise single_turn, as in AIPerf).
func detectRandomPool(path string) bool {
	st, err := os.Stat(path)
	if err != nil {
		return false
	}
	if !st.IsDir() {
		obj, ok := firstJSONObject(path)
		t, _, _ := obj.getString("", "type")
		return ok && t == "random_pool"
	}
	pools, err := poolFiles(path)
	if err != nil {
		return false
	}
	for _, p := range pools {
		if obj, ok := firstJSONObject(p.path); ok && hasModality(obj) {
			return true
		}
	}
	return false
}

// entryPool is one pool: its name ("" for a single file) and its entries.
type entryPool struct {
	name, path string
	rows       []*turnRow
}

// poolFiles lists the pools of a directory: its regular files (symbolic
// links followed) in name order. Subdirectories and hidden files (".name")
// are skipped.
func poolFiles(dir string) ([]*entryPool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var pools []*entryPool
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		path := filepath.Join(dir, name)
		if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
			continue
		}
		pools = append(pools, &entryPool{name: strings.TrimSuffix(name, filepath.Ext(name)), path: path})
	}
	return pools, nil
}

// loadRandomPool reads the pools and draws the conversations. With one
// pool, Options.BatchSize > 1 draws that many texts per request (and one
// image, audio and video each, when the pool has them) from the pool's
// flattened contents, as AIPerf's batched mode; a directory refuses it.
// Draws come from a PCG stream of Options.Seed, so the same seed gives the
// same dataset.
func loadRandomPool(ctx context.Context, o *Options) (*dataset.Dataset, error) {
	pools, err := readPools(ctx, o)
	if err != nil {
		return nil, err
	}
	rng := seededPCG(o.Seed, streamPoolDraw)
	var rows []*turnRow
	if o.BatchSize > 1 {
		rows = drawBatches(pools[0].rows, o.NumConversations, o.BatchSize, rng)
	} else {
		rows = drawMerged(pools, o.NumConversations, rng)
	}
	var names sessionNamer
	convs := make([]rowConv, len(rows))
	for i, r := range rows {
		convs[i] = rowConv{id: names.name(), rows: []*turnRow{r}}
	}
	out := newTurnMaker(o).conversations(convs, "")
	return &dataset.Dataset{Conversations: out, Sampling: dataset.SamplingSequential}, nil
}

// readPools reads every pool of o.Path, reporting all bad lines of all
// files in one *FileError.
func readPools(ctx context.Context, o *Options) ([]*entryPool, error) {
	st, err := os.Stat(o.Path)
	if err != nil {
		return nil, err
	}
	dir := st.IsDir()
	pools := []*entryPool{{path: o.Path}}
	if dir {
		if pools, err = poolFiles(o.Path); err != nil {
			return nil, err
		}
		if len(pools) == 0 {
			return nil, errors.New("no pool files in the directory")
		}
		if o.BatchSize > 1 {
			return nil, fmt.Errorf("prompt batch size %d applies to a single pool file, not a directory of pools", o.BatchSize)
		}
	}
	bad := newBadLines(o)
	var files mediaFiles
	counts := make([]int, len(pools))
	for i, p := range pools {
		counts[i], err = readRecords(ctx, p.path, bad, func(line int, obj jsonObject) *LineError {
			r, lerr := parseTurnRow(obj, "", rowPool, p.name, &files)
			if lerr == nil {
				r.line = line
				p.rows = append(p.rows, r)
			}
			return lerr
		})
		if err != nil {
			return nil, err
		}
	}
	if err := bad.err(); err != nil {
		return nil, err
	}
	for i, p := range pools {
		if counts[i] == 0 && dir {
			return nil, fmt.Errorf("pool %s: %w", p.path, errBlankFile)
		} else if counts[i] == 0 {
			return nil, errBlankFile
		}
	}
	return pools, checkPoolQueries(pools)
}

// checkPoolQueries refuses two pools that both hold rankings queries, since
// a merged request carries one.
func checkPoolQueries(pools []*entryPool) error {
	first := ""
	for _, p := range pools {
		if !poolHasQuery(p) {
			continue
		}
		if first != "" {
			return fmt.Errorf("pools %s and %s both hold texts named query/queries: a rankings request carries one", first, p.path)
		}
		first = p.path
	}
	return nil
}

func poolHasQuery(p *entryPool) bool {
	for _, r := range p.rows {
		for _, t := range r.content.texts {
			if t.name == nameQuery || t.name == nameQueries {
				return true
			}
		}
	}
	return false
}

// drawMerged draws n entries with replacement from each pool, pool by pool
// (as AIPerf: all of pool 1's draws, then pool 2's), and merges the i-th
// draw of every pool into request i, contents in pool order.
func drawMerged(pools []*entryPool, n int, rng *rand.Rand) []*turnRow {
	picks := make([][]int, len(pools))
	for p, pool := range pools {
		picks[p] = make([]int, n)
		for i := range picks[p] {
			picks[p][i] = rng.IntN(len(pool.rows))
		}
	}
	rows := make([]*turnRow, n)
	for i := range rows {
		if len(pools) == 1 {
			rows[i] = pools[0].rows[picks[0][i]]
			continue
		}
		merged := &turnRow{}
		m := &merged.content
		for p, pool := range pools {
			e := &pool.rows[picks[p][i]].content
			m.texts = append(m.texts, e.texts...)
			m.images = append(m.images, e.images...)
			m.audios = append(m.audios, e.audios...)
			m.videos = append(m.videos, e.videos...)
		}
		rows[i] = merged
	}
	return rows
}

// drawBatches draws n requests from the flattened contents of entries:
// batch texts each, and one image, audio and video each when the pool has
// any, in AIPerf's order (images, texts, audios, videos). Text names are
// dropped, as AIPerf's batched mode does.
func drawBatches(entries []*turnRow, n, batch int, rng *rand.Rand) []*turnRow {
	var texts, images, audios, videos []string
	for _, e := range entries {
		for _, t := range e.content.texts {
			texts = append(texts, t.text)
		}
		images = append(images, e.content.images...)
		audios = append(audios, e.content.audios...)
		videos = append(videos, e.content.videos...)
	}
	draw := func(from []string, k int) []string {
		if len(from) == 0 {
			return nil
		}
		out := make([]string, k)
		for i := range out {
			out[i] = from[rng.IntN(len(from))]
		}
		return out
	}
	rows := make([]*turnRow, n)
	for i := range rows {
		r := &turnRow{}
		r.content.images = draw(images, 1)
		for _, t := range draw(texts, batch) {
			r.content.texts = append(r.content.texts, namedText{text: t})
		}
		r.content.audios = draw(audios, 1)
		r.content.videos = draw(videos, 1)
		rows[i] = r
	}
	return rows
}
