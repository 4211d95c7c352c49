package sink

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"path"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// RunsPrefix is the key prefix under which every run of a store lives.
const RunsPrefix = "runs/"

// Object is one stored object of a run, as listed in the manifest.
type Object struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256,omitempty"` // not computed for record segments
}

// Run is one run's prefix in a store: runs/<id>/. Its methods are safe for
// concurrent use.
type Run struct {
	store  *Store
	ID     string
	prefix string

	mu      sync.Mutex
	objects map[string]Object

	retries atomic.Int64

	// put writes one object; tests replace it to inject storage faults.
	put func(ctx context.Context, key string, body io.Reader) error
}

// NewRunID returns a unique id that sorts by start time:
// 20261122T035800Z-1a2b3c4d.
func NewRunID(start time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return start.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// NewRun returns the run with the given id in the store.
func (s *Store) NewRun(id string) *Run {
	r := &Run{store: s, ID: id, prefix: RunsPrefix + id + "/", objects: map[string]Object{}}
	r.put = r.writeObject
	return r
}

// Key returns the bucket key of the run's object name.
func (r *Run) Key(name string) string { return r.prefix + name }

// Location describes where the run is stored, for messages.
func (r *Run) Location() string {
	if r.store.LocalDir != "" {
		return path.Join(r.store.LocalDir, r.prefix)
	}
	return r.store.Location + " " + r.prefix
}

// writeObject writes data to key with create-only semantics: the write
// commits only if no object of that name exists. Writes go through
// Bucket.Upload without ContentMD5 (which would divert it to Writer.Write):
// gocloud v0.47's azblob driver panics in Writer.Close when the upload
// failed (e.g. the object exists). The manifest's SHA-256 covers integrity.
func (r *Run) writeObject(ctx context.Context, key string, body io.Reader) error {
	return r.store.Bucket.Upload(ctx, key, body, &blob.WriterOptions{
		IfNotExist:  true,
		ContentType: contentType(key),
	})
}

func contentType(key string) string {
	switch path.Ext(key) {
	case ".json":
		return "application/json"
	case ".jsonl":
		return "application/x-ndjson"
	case ".csv":
		return "text/csv"
	}
	return "text/plain; charset=utf-8"
}

// Put stores data as the run's object name, create-only, retrying transient
// failures with backoff until it succeeds or ctx ends. An object that
// already exists with the same size counts as written (a retry after a lost
// reply); with other content it is an error.
func (r *Run) Put(ctx context.Context, name string, data []byte) error {
	_, err := r.putObject(ctx, name, bytesSource(data), true)
	return err
}

// PutStream stores what write writes as the run's object name, as Put
// does, streaming it to the store as it is written: an object of any size
// costs no memory. write is called once per attempt (and once more to
// measure an object found already stored) and must write the same bytes
// each time; an error of its own ends PutStream with that error, without
// retrying. It returns the object as the manifest lists it.
func (r *Run) PutStream(ctx context.Context, name string, write func(io.Writer) error) (Object, error) {
	return r.putObject(ctx, name, streamSource(write), true)
}

// source is an object's bytes, which can be read once per attempt: it
// returns a reader of them and a function to call once the reading is over,
// which releases the reader and returns the error of whatever produced the
// bytes. A producer that fails calls abort first, which cancels the upload:
// a store commits what it has read when its reader fails, unless the upload's
// context is cancelled.
type source func(abort func()) (io.Reader, func() error)

// bytesSource is the source of data.
func bytesSource(data []byte) source {
	return func(func()) (io.Reader, func() error) {
		return bytes.NewReader(data), func() error { return nil }
	}
}

// streamSource is the source of what write writes, through a pipe: write
// runs on its own goroutine, which the done function waits for.
func streamSource(write func(io.Writer) error) source {
	return func(abort func()) (io.Reader, func() error) {
		pr, pw := io.Pipe()
		errc := make(chan error, 1)
		go func() {
			err := write(pw)
			if err != nil {
				abort()
			}
			pw.CloseWithError(err) // nil: EOF for the reader
			errc <- err
		}()
		return pr, func() error {
			pr.Close() // a write blocked on an abandoned upload fails
			if err := <-errc; err != nil && !errors.Is(err, io.ErrClosedPipe) {
				return err
			}
			return nil
		}
	}
}

// measuringReader counts and, when h is set, hashes what is read through it.
type measuringReader struct {
	r io.Reader
	n int64
	h hash.Hash
}

func (m *measuringReader) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	m.n += int64(n)
	if m.h != nil {
		m.h.Write(p[:n])
	}
	return n, err
}

// object is what was read, as the manifest lists it.
func (m *measuringReader) object(name string) Object {
	o := Object{Name: name, Size: m.n}
	if m.h != nil {
		o.SHA256 = hex.EncodeToString(m.h.Sum(nil))
	}
	return o
}

// measure reads src through whole, for its size (and SHA-256 with hash).
func measure(name string, src source, hashed bool) (Object, error) {
	rd, done := src(func() {})
	m := &measuringReader{r: rd}
	if hashed {
		m.h = sha256.New()
	}
	_, err := io.Copy(io.Discard, m)
	if derr := done(); derr != nil {
		err = derr
	}
	return m.object(name), err
}

// putObject stores src as name; hash says whether to compute the object's
// SHA-256 for the manifest (record segments skip it: they are replaced by
// the composed file, which is hashed). The size and hash are taken from the
// bytes as they go to the store.
func (r *Run) putObject(ctx context.Context, name string, src source, hashed bool) (Object, error) {
	key := r.Key(name)
	for attempt := 0; ; attempt++ {
		actx, abort := context.WithCancel(ctx)
		rd, done := src(abort)
		m := &measuringReader{r: rd}
		if hashed {
			m.h = sha256.New()
		}
		err := r.put(actx, key, m)
		perr := done()
		abort()
		if perr != nil {
			return Object{}, fmt.Errorf("store %s: %w", name, perr)
		}
		if err == nil {
			obj := m.object(name)
			r.record(obj)
			return obj, nil
		}
		if gcerrors.Code(err) == gcerrors.FailedPrecondition {
			obj, merr := measure(name, src, hashed)
			if merr != nil {
				return Object{}, fmt.Errorf("store %s: %w", name, merr)
			}
			if a, aerr := r.store.Bucket.Attributes(ctx, key); aerr == nil && a.Size == obj.Size {
				r.record(obj)
				return obj, nil
			}
			return Object{}, fmt.Errorf("store %s: object exists with other content: %w", name, err)
		}
		if permanent(err) {
			return Object{}, fmt.Errorf("store %s: %w", name, err)
		}
		r.retries.Add(1)
		if !sleepCtx(ctx, backoff(attempt)) {
			return Object{}, fmt.Errorf("store %s: gave up: %w", name, err)
		}
	}
}

// record remembers a stored object for the manifest.
func (r *Run) record(o Object) {
	r.mu.Lock()
	r.objects[o.Name] = o
	r.mu.Unlock()
}

// forget drops an object from the manifest list (after it was deleted).
func (r *Run) forget(name string) {
	r.mu.Lock()
	delete(r.objects, name)
	r.mu.Unlock()
}

// Objects returns the run's stored objects, sorted by name.
func (r *Run) Objects() []Object {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Object, 0, len(r.objects))
	for _, o := range r.objects {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Retries returns how many storage operations were retried.
func (r *Run) Retries() int64 { return r.retries.Load() }

// CheckWritable writes and deletes a probe object, so that a read-only or
// unreachable store is a clear error before any request is sent.
func (r *Run) CheckWritable(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	key := r.Key(".write-probe")
	if err := r.writeObject(ctx, key, strings.NewReader("probe\n")); err != nil {
		// An error that knows its fix (s3url's missing credentials) says
		// only that; the SDK's chain of causes helps nobody.
		var fixer interface{ Fix() string }
		if errors.As(err, &fixer) {
			return fmt.Errorf("cannot write to the artifact store %s: %s", r.store.Location, fixer.Fix())
		}
		return fmt.Errorf("cannot write to the artifact store %s: %w", r.store.Location, err)
	}
	if err := r.store.Bucket.Delete(ctx, key); err != nil {
		return fmt.Errorf("cannot delete from the artifact store %s: %w", r.store.Location, err)
	}
	return nil
}

// Compose concatenates the objects parts (in order) into the object name,
// streaming, then deletes the parts. It is how segmented records become
// the single profile_export.jsonl AIPerf users expect. Transient failures
// are retried with backoff until ctx ends.
func (r *Run) Compose(ctx context.Context, name string, parts []string) error {
	for attempt := 0; ; attempt++ {
		obj, err := r.composeOnce(ctx, name, parts)
		if err == nil {
			r.mu.Lock()
			r.objects[name] = obj
			r.mu.Unlock()
			break
		}
		if permanent(err) {
			return fmt.Errorf("compose %s: %w", name, err)
		}
		r.retries.Add(1)
		if !sleepCtx(ctx, backoff(attempt)) {
			return fmt.Errorf("compose %s: gave up: %w", name, err)
		}
	}
	for _, p := range parts {
		if err := r.store.Bucket.Delete(ctx, r.Key(p)); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
			return fmt.Errorf("compose %s: delete %s: %w", name, p, err)
		}
		r.forget(p)
	}
	return nil
}

// composeOnce streams the parts into one new object.
func (r *Run) composeOnce(ctx context.Context, name string, parts []string) (Object, error) {
	cat := &concatReader{ctx: ctx, bucket: r.store.Bucket, keys: make([]string, len(parts))}
	for i, p := range parts {
		cat.keys[i] = r.Key(p)
	}
	defer cat.Close()
	h := sha256.New()
	counted := &countingReader{r: io.TeeReader(cat, h)}
	err := r.store.Bucket.Upload(ctx, r.Key(name), counted, &blob.WriterOptions{IfNotExist: true, ContentType: contentType(name)})
	if err != nil {
		return Object{}, err
	}
	return Object{Name: name, Size: counted.n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// concatReader reads the objects keys one after another, opening each only
// when the previous one is exhausted.
type concatReader struct {
	ctx    context.Context
	bucket *blob.Bucket
	keys   []string
	cur    *blob.Reader
}

func (c *concatReader) Read(p []byte) (int, error) {
	for {
		if c.cur == nil {
			if len(c.keys) == 0 {
				return 0, io.EOF
			}
			rd, err := c.bucket.NewReader(c.ctx, c.keys[0], nil)
			if err != nil {
				return 0, err
			}
			c.cur, c.keys = rd, c.keys[1:]
		}
		n, err := c.cur.Read(p)
		if errors.Is(err, io.EOF) {
			c.cur.Close()
			c.cur = nil
			if n > 0 {
				return n, nil
			}
			continue
		}
		return n, err
	}
}

// Close releases the object being read, if any.
func (c *concatReader) Close() error {
	if c.cur != nil {
		return c.cur.Close()
	}
	return nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
