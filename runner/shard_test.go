package runner

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aiperf-go/aiperf/mockserver"
	"github.com/aiperf-go/aiperf/mockserver/mocktest"
	"github.com/aiperf-go/aiperf/sink"
)

// bodyTap records the SHA-256 of every request body by X-Request-ID.
type bodyTap struct {
	mu     sync.Mutex
	hashes map[string]string
}

func (b *bodyTap) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		data, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		req.Body.Close()
		sum := sha256.Sum256(data)
		b.mu.Lock()
		b.hashes[req.Header.Get("X-Request-ID")] = hex.EncodeToString(sum[:8])
		b.mu.Unlock()
		req.Body = io.NopCloser(bytes.NewReader(data))
	}
	return http.DefaultTransport.RoundTrip(req)
}

// planned is one profiling send as the plan fixes it.
type planned struct {
	session, turn, request int
	conv, body             string
	// offset is the intended send time after the schedule's start.
	offset time.Duration
}

// sends reads the profiling sends of the run stored in dir, with the body
// hashes of tap and the request numbers of its raw export (the run needs
// ExportLevel "raw": the default 1.4 records carry no request_num); zero is
// the schedule's start (the earliest intended time when zero is nil).
func sends(t *testing.T, dir string, tap *bodyTap, zero *time.Time) []planned {
	t.Helper()
	recs := readRecords(t, dir)
	nums := requestNums(t, dir)
	if len(recs) > 0 && zero == nil {
		z := recs[0].Metadata.CreditIssuedNS
		for _, r := range recs {
			z = min(z, r.Metadata.CreditIssuedNS)
		}
		zt := time.Unix(0, z)
		zero = &zt
	}
	out := make([]planned, 0, len(recs))
	for _, r := range recs {
		if r.Error != nil {
			t.Fatalf("request failed: %+v", r.Error)
		}
		m := r.Metadata
		num, ok := nums[m.XRequestID]
		if !ok {
			t.Fatalf("record %s is not in the raw export", m.XRequestID)
		}
		tap.mu.Lock()
		body := tap.hashes[m.XRequestID]
		tap.mu.Unlock()
		out = append(out, planned{session: m.SessionNum, turn: m.TurnIndex, request: num, conv: m.ConversationID,
			body: body, offset: time.Unix(0, m.CreditIssuedNS).Sub(*zero)})
	}
	slices.SortFunc(out, func(a, b planned) int {
		if a.session != b.session {
			return a.session - b.session
		}
		return a.turn - b.turn
	})
	return out
}

// runShards runs n shards of cfg at once against one store, with a
// barrier, and returns the union of their sends, each offset from its
// shard's common start.
func runShards(t *testing.T, cfg *Config, n int) []planned {
	t.Helper()
	store := t.TempDir()
	tap := &bodyTap{hashes: map[string]string{}}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		c := *cfg
		c.ArtifactDir, c.SpoolDir = store, t.TempDir()
		c.ShardIndex, c.ShardCount, c.RunGroup, c.ShardBarrier = i, n, "g", true
		c.ShardBarrierTimeout = time.Minute
		if err := c.Validate(); err != nil {
			t.Fatal(err)
		}
		wg.Go(func() {
			_, errs[i] = Run(context.Background(), &c, Options{Version: "test", Transport: tap})
		})
	}
	wg.Wait()
	var all []planned
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("shard %d: %v", i, errs[i])
		}
		dir := filepath.Join(store, "runs", "g", "shards", fmt.Sprint(i))
		var m sink.Manifest
		data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		if m.Shard == nil || m.Shard.Index != i || m.Shard.Count != n || m.Shard.Group != "g" || m.Shard.StartAt == nil || m.Shard.ClockSkewMS == nil {
			t.Fatalf("shard %d manifest: %+v", i, m.Shard)
		}
		if len(m.Shard.Ready) != n {
			t.Errorf("shard %d saw ready shards %v, want all %d", i, m.Shard.Ready, n)
		}
		if _, err := os.Stat(filepath.Join(store, "runs", "g", "ready", fmt.Sprint(i))); err != nil {
			t.Errorf("shard %d ready object: %v", i, err)
		}
		all = append(all, sends(t, dir, tap, m.Shard.StartAt)...)
	}
	if _, err := os.Stat(filepath.Join(store, "profile_export.jsonl")); err == nil {
		t.Error("a shard linked its files at the top of the directory")
	}
	slices.SortFunc(all, func(a, b planned) int {
		if a.session != b.session {
			return a.session - b.session
		}
		return a.turn - b.turn
	})
	return all
}

// TestShardUnionIsThePlan: for rate, fixed-schedule, concurrency and
// multi-turn workloads, the union of 1, 2, 3 and 7 shards' sends is the
// single process's plan: the same sessions, conversations, turns and
// payloads, and, where the schedule fixes them, request numbers and
// intended send times.
func TestShardUnionIsThePlan(t *testing.T) {
	barrierMargin, barrierPoll = 500*time.Millisecond, 20*time.Millisecond
	srv := mocktest.Start(t, mockserver.Config{OutputTokens: 2})
	trace := writeFile(t, "trace.jsonl", func() string {
		var b bytes.Buffer
		for i := range 15 {
			fmt.Fprintf(&b, `{"timestamp": %d, "input_length": %d, "output_length": 2}`+"\n", 1000+i*13, 10+i)
		}
		return b.String()
	}())
	tests := []struct {
		name string
		set  func(*Config)
		// open: the schedule fixes the intended times and the pairing of
		// sessions and conversations; requests: it fixes request numbers.
		open, requests bool
	}{
		{"rate", func(c *Config) { c.RequestRate, c.RequestCount = 150, 30 }, true, true},
		{"fixed-schedule", func(c *Config) {
			c.InputFile, c.FixedSchedule, c.FixedScheduleAutoOffset = trace, true, true
		}, true, true},
		{"concurrency", func(c *Config) { c.Concurrency, c.RequestCount = 7, 30 }, false, false},
		{"multi-turn", func(c *Config) {
			c.Concurrency, c.NumSessions, c.SessionTurnsMean = 7, 10, 3
		}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig(t, srv.URL())
			tt.set(cfg)
			cfg.ExportLevel = "raw" // for the request numbers (see sends)
			tap := &bodyTap{hashes: map[string]string{}}
			c := *cfg
			c.ArtifactDir = t.TempDir()
			res, err := Run(context.Background(), &c, Options{Version: "test", Transport: tap})
			if err != nil || res == nil {
				t.Fatal(err)
			}
			want := sends(t, c.ArtifactDir, tap, nil)
			for _, n := range []int{1, 2, 3, 7} {
				got := runShards(t, cfg, n)
				compareSends(t, n, got, want, tt.open, tt.requests)
			}
		})
	}
}

// compareSends checks that the shards' union got equals the single
// process's sends want.
func compareSends(t *testing.T, n int, got, want []planned, open, requests bool) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d shards: %d sends, want %d", n, len(got), len(want))
	}
	// Closed loop: which worker draws which conversation first is a race
	// on one machine too; the multiset of what is sent is the plan.
	// A later turn of a multi-turn conversation carries the live replies:
	// its payload is not part of the plan.
	key := func(p planned) string {
		if p.turn > 0 {
			return fmt.Sprintf("%s/%d", p.conv, p.turn)
		}
		return fmt.Sprintf("%s/%d/%s", p.conv, p.turn, p.body)
	}
	var gk, wk []string
	for i := range got {
		gk, wk = append(gk, key(got[i])), append(wk, key(want[i]))
		if got[i].session != want[i].session {
			t.Errorf("%d shards: send %d is of session %d, want %d", n, i, got[i].session, want[i].session)
		}
		if !open {
			continue
		}
		if key(got[i]) != key(want[i]) {
			t.Errorf("%d shards: session %d turn %d sent %s, want %s", n, got[i].session, got[i].turn, key(got[i]), key(want[i]))
		}
		// A shard numbers tick k request k (the plan). One process numbers
		// requests as they are sent, so two ticks due together may swap
		// numbers there under load: the plan, not that run, is the truth.
		if requests && got[i].request != got[i].session {
			t.Errorf("%d shards: session %d is request %d, want %d", n, got[i].session, got[i].request, got[i].session)
		}
		if d := (got[i].offset - want[i].offset).Abs(); got[i].turn == 0 && d > time.Millisecond {
			t.Errorf("%d shards: session %d intended at %v, want %v", n, got[i].session, got[i].offset, want[i].offset)
		}
	}
	slices.Sort(gk)
	slices.Sort(wk)
	if !slices.Equal(gk, wk) {
		t.Errorf("%d shards: sent\n%v\nwant\n%v", n, gk, wk)
	}
}

// TestShardBarrierTimeout: a barrier whose other shards never come fails
// with ErrShardBarrier naming the missing ones, after writing its own
// ready object.
func TestShardBarrierTimeout(t *testing.T) {
	srv := mocktest.Start(t, mockserver.Config{OutputTokens: 2})
	cfg := testConfig(t, srv.URL())
	cfg.RequestCount, cfg.Concurrency = 3, 3
	cfg.ShardIndex, cfg.ShardCount, cfg.RunGroup, cfg.ShardBarrier = 1, 3, "lonely", true
	cfg.ShardBarrierTimeout = 300 * time.Millisecond
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), cfg, Options{Version: "test"})
	if !errors.Is(err, ErrShardBarrier) || !bytes.Contains([]byte(err.Error()), []byte("missing shards [0 2]")) {
		t.Fatalf("err = %v, want the barrier timeout naming shards 0 and 2", err)
	}
	if _, err := os.Stat(filepath.Join(cfg.ArtifactDir, "runs", "lonely", "ready", "1")); err != nil {
		t.Errorf("ready object: %v", err)
	}
}

// TestShardProblems: the sharding flags' rules.
func TestShardProblems(t *testing.T) {
	tests := []struct {
		name string
		set  func(*Config)
		want string // "" = valid
	}{
		{"not sharded", func(c *Config) {}, ""},
		{"one shard, no group", func(c *Config) { c.ShardCount = 1 }, ""},
		{"shards with group", func(c *Config) { c.ShardCount, c.ShardIndex, c.RunGroup, c.Concurrency = 3, 2, "g", 3 }, ""},
		{"index without count", func(c *Config) { c.ShardIndex = 1 }, "--shard-index 1 needs --shard-count"},
		{"index out of range", func(c *Config) { c.ShardCount, c.ShardIndex, c.RunGroup = 2, 2, "g" }, "out of range"},
		{"no group", func(c *Config) { c.ShardCount = 2 }, "--run-group is required"},
		{"bad group", func(c *Config) { c.ShardCount, c.RunGroup = 2, "a/b" }, "not valid"},
		{"barrier unsharded", func(c *Config) { c.ShardBarrier = true }, "--shard-barrier needs"},
		{"both starts", func(c *Config) {
			c.ShardCount, c.RunGroup, c.ShardBarrier, c.StartAt = 2, "g", true, time.Now()
		}, "use one"},
		{"concurrency below shards", func(c *Config) { c.ShardCount, c.RunGroup, c.Concurrency = 4, "g", 3 }, "below --shard-count"},
		{"user-centric", func(c *Config) {
			c.ShardCount, c.RunGroup, c.UserCentricRate, c.NumUsers, c.Concurrency = 2, "g", 5, 4, 0
		}, "cannot be sharded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Defaults()
			c.Models = []string{"m"}
			tt.set(&c)
			p := fmt.Sprint(c.shardProblems())
			if tt.want == "" && p != "[]" || tt.want != "" && !bytes.Contains([]byte(p), []byte(tt.want)) {
				t.Errorf("problems %s, want %q", p, tt.want)
			}
		})
	}
}

// TestShare: counts split exactly, the remainder to the low indices.
func TestShare(t *testing.T) {
	for _, total := range []int{0, 1, 6, 7, 30, 101} {
		for _, n := range []int{1, 2, 3, 7} {
			sum := 0
			for i := range n {
				s := share(total, i, n)
				if s < total/n || s > total/n+1 || (i > 0 && s > share(total, i-1, n)) {
					t.Errorf("share(%d, %d, %d) = %d", total, i, n, s)
				}
				sum += s
			}
			if sum != total {
				t.Errorf("%d over %d shards sums to %d", total, n, sum)
			}
		}
	}
}
