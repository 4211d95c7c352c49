package public

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/aiperf-go/aiperf/dataset"
	"github.com/aiperf-go/aiperf/tokenizer"
)

// ShareGPTURL is where AIPerf downloads ShareGPT from (§4.6), and
// ShareGPTFile the name it is cached under.
const (
	ShareGPTURL  = "https://huggingface.co/datasets/anon8231489123/ShareGPT_Vicuna_unfiltered/resolve/main/ShareGPT_V3_unfiltered_cleaned_split.json"
	ShareGPTFile = "ShareGPT_V3_unfiltered_cleaned_split.json"
)

// The vLLM length filter AIPerf applies to every prompt/completion pair.
const (
	minSeqLen    = 4    // prompt and completion at least
	maxPromptLen = 1024 // prompt at most
	maxTotalLen  = 2048 // prompt + completion at most
)

// ShareGPTOptions configure LoadShareGPT.
type ShareGPTOptions struct {
	// Path is a local copy of the dataset; when set, nothing is downloaded
	// and CacheDir, URL, Offline and Client are unused.
	Path string
	// CacheDir holds the download (see DefaultCacheDir); the file is
	// CacheDir/ShareGPTFile.
	CacheDir string
	// URL is where to download from; empty means ShareGPTURL.
	URL string
	// Offline forbids downloading: the file must be cached already.
	Offline bool
	// Client downloads; nil means http.DefaultClient.
	Client *http.Client
	// Tokenizer counts prompt and completion tokens; required.
	Tokenizer tokenizer.Tokenizer
	// Models and ModelStrategy assign each turn's model
	// (dataset.ModelRoundRobin, the default, or dataset.ModelRandom drawn
	// with Seed).
	Models        []string
	ModelStrategy string
	Seed          uint64
	// NumEntries, when > 0, stops after that many conversations.
	NumEntries int
	// OSLSet reports that --osl was given: AIPerf then skips the minimum
	// completion length check.
	OSLSet bool
	// Stats, when not nil, receives what was read and filtered.
	Stats *ShareGPTStats
}

// ShareGPTStats counts the entries LoadShareGPT examined and why it
// dropped some: Entries = Kept + NoPairs + Filtered. With NumEntries set,
// entries after the last one kept are not examined.
type ShareGPTStats struct {
	Entries  int // array elements examined
	Kept     int // conversations returned
	NoPairs  int // entries with no usable human→gpt pair
	Filtered int // entries with a pair outside the length limits
}

// LoadShareGPT reads ShareGPT (a JSON array of {"conversations": [{"from",
// "value"}, …]}) from o.Path, or else from the cache, downloading it first
// when it is missing and o.Offline is false (see Fetch). It streams the file,
// one entry at a time, and counts tokens on up to GOMAXPROCS goroutines,
// which it waits for.
//
// Each entry becomes one conversation whose turns are its adjacent
// human→gpt pairs, in order (only messages from "human" and "gpt" count;
// pairs with an empty prompt or completion are left out; an entry with no
// such roles uses its first two messages as one pair). An entry is dropped
// when it has no pair, or when any pair fails the vLLM filter: prompt of 4
// to 1024 tokens, completion of at least 4 (not checked when o.OSLSet), at
// most 2048 together. A turn's text is the prompt, InputTokens its count and
// MaxTokens the completion's count. Conversations are named session_000000,
// … in file order; the Dataset's sampling is sequential and every
// conversation's context mode deltas_without_responses.
//
// Unlike AIPerf, which fails on them, an entry that is not an object and a
// message value that is not a string are treated as missing. A file that is
// not a JSON array, or is truncated, is an error naming the path.
func LoadShareGPT(ctx context.Context, o ShareGPTOptions) (*dataset.Dataset, error) {
	if o.Tokenizer == nil {
		return nil, errors.New("sharegpt: nil tokenizer")
	}
	if len(o.Models) == 0 {
		return nil, errors.New("sharegpt: no model names")
	}
	switch o.ModelStrategy {
	case "", dataset.ModelRoundRobin, dataset.ModelRandom:
	default:
		return nil, fmt.Errorf("sharegpt: model strategy %q: want %s or %s", o.ModelStrategy, dataset.ModelRoundRobin, dataset.ModelRandom)
	}
	path := o.Path
	if path == "" {
		if o.CacheDir == "" {
			return nil, errors.New("sharegpt: no file path and no cache directory")
		}
		url := o.URL
		if url == "" {
			url = ShareGPTURL
		}
		path = filepath.Join(o.CacheDir, ShareGPTFile)
		if err := Fetch(ctx, o.Client, url, path, o.Offline); err != nil {
			return nil, fmt.Errorf("sharegpt: %w", err)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("sharegpt: %w", err)
	}
	defer f.Close()
	l := &shareGPTLoader{o: &o, picker: newModelPicker(&o)}
	if err := l.read(ctx, bufio.NewReaderSize(f, 1<<20)); err != nil {
		return nil, fmt.Errorf("sharegpt %s: %w", path, err)
	}
	if o.Stats != nil {
		*o.Stats = l.stats
	}
	return &dataset.Dataset{Conversations: l.convs, Sampling: dataset.SamplingSequential}, nil
}

// shareGPTBatch is how many entries are read before their tokens are
// counted in parallel.
const shareGPTBatch = 256

type shareGPTLoader struct {
	o      *ShareGPTOptions
	picker *modelPicker
	convs  []dataset.Conversation
	stats  ShareGPTStats
}

func (l *shareGPTLoader) read(ctx context.Context, r io.Reader) error {
	dec := json.NewDecoder(r)
	if t, err := dec.Token(); err != nil {
		return fmt.Errorf("not a JSON array: %w", err)
	} else if t != json.Delim('[') {
		return fmt.Errorf("not a JSON array: starts with %v", t)
	}
	var batch [][]pair
	for n := 0; dec.More(); n++ {
		var e entry
		if err := dec.Decode(&e); err != nil {
			var typeErr *json.UnmarshalTypeError
			if !errors.As(err, &typeErr) {
				return fmt.Errorf("entry %d: %w", n, err)
			}
			e = entry{} // not an object, or "conversations" not a list
		}
		batch = append(batch, e.pairs())
		if len(batch) == shareGPTBatch {
			if err := l.add(ctx, batch); err != nil || l.full() {
				return err
			}
			batch = batch[:0]
		}
	}
	if err := l.add(ctx, batch); err != nil || l.full() {
		return err
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("after the last entry: %w", err)
	}
	return nil
}

func (l *shareGPTLoader) full() bool {
	return l.o.NumEntries > 0 && len(l.convs) >= l.o.NumEntries
}

// counted is one entry's pairs with their token counts, or ok false when a
// pair fails the filter (counting stops there).
type counted struct {
	pairs        []pair
	prompt, done []int
	ok           bool
}

// add counts the tokens of a batch of entries in parallel, then keeps the
// entries that pass the filter, in order, up to NumEntries.
func (l *shareGPTLoader) add(ctx context.Context, batch [][]pair) error {
	res := make([]counted, len(batch))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(batch)) {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= len(batch) {
					return
				}
				res[i] = l.count(batch[i])
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, c := range res {
		if l.full() {
			return nil
		}
		l.stats.Entries++
		switch {
		case len(c.pairs) == 0:
			l.stats.NoPairs++
			continue
		case !c.ok:
			l.stats.Filtered++
			continue
		}
		conv := dataset.Conversation{
			SessionID:   fmt.Sprintf("session_%06d", len(l.convs)),
			Turns:       make([]dataset.Turn, len(c.pairs)),
			ContextMode: dataset.DeltasWithoutResponses,
		}
		for k, p := range c.pairs {
			conv.Turns[k] = dataset.Turn{Role: "user", Texts: []string{p.prompt}, Model: l.picker.pick(),
				MaxTokens: c.done[k], InputTokens: c.prompt[k]}
		}
		l.convs = append(l.convs, conv)
		l.stats.Kept++
	}
	return nil
}

// count applies the vLLM filter to each pair in turn.
func (l *shareGPTLoader) count(pairs []pair) counted {
	c := counted{pairs: pairs, prompt: make([]int, len(pairs)), done: make([]int, len(pairs))}
	tok := l.o.Tokenizer
	for k, p := range pairs {
		in := tok.Count(p.prompt)
		if in < minSeqLen || in > maxPromptLen {
			return c
		}
		out := tok.Count(p.completion)
		if (!l.o.OSLSet && out < minSeqLen) || in+out > maxTotalLen {
			return c
		}
		c.prompt[k], c.done[k] = in, out
	}
	c.ok = true
	return c
}
