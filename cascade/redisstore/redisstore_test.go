package redisstore_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/cascade/redisstore"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/internal/redistest"
)

func TestNewValidates(t *testing.T) {
	if _, err := redisstore.New(nil, redisstore.Options{}); err == nil {
		t.Error("New(nil) succeeded")
	}
	plain := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer plain.Close()
	if _, err := redisstore.New(plain, redisstore.Options{}); err == nil || !strings.Contains(err.Error(), "ContextTimeoutEnabled") {
		t.Errorf("New with a client that ignores deadlines: %v; want an error naming ContextTimeoutEnabled", err)
	}
	ok := redis.NewClient(redisstore.ClientOptions("127.0.0.1:1"))
	defer ok.Close()
	if _, err := redisstore.New(ok, redisstore.Options{TTL: -time.Second}); err == nil {
		t.Error("New with a negative TTL succeeded")
	}
}

// N replicas — separate cascades, separate clients — escalating at once
// never make more fallback calls than one budget allows, and use all of it.
func TestFleetSpendsOneBudget(t *testing.T) {
	srv := redistest.Start(t)
	const replicas, workers, each, limit = 4, 8, 12, 25
	b := cascade.Budget{Window: time.Hour, MaxCalls: limit}
	fb := &judge{P: 0.9}
	var rs []replica
	for range replicas {
		rs = append(rs, newReplica(t, srv, fb, redisstore.Options{}, slow, cascade.WithBudget(b)))
	}
	var wg sync.WaitGroup
	for r := range replicas {
		for w := range workers {
			wg.Go(func() {
				for i := range each {
					out, err := rs[r].c.Escalate(context.Background(), escalation(sample((r*workers+w)*each+i)))
					if err != nil {
						t.Error(err)
						return
					}
					if out[0].Abstained && out[0].Cause != guard.CauseBudget {
						t.Errorf("abstained for another reason: %s", out[0].Reason)
					}
				}
			})
		}
	}
	wg.Wait()
	var settled, refused, fallbacks uint64
	for _, r := range rs {
		st := r.c.Stats()
		checkStats(t, st)
		settled += st.Settled
		refused += st.RefusedBudget
		fallbacks += st.StoreFallbacks
	}
	if fallbacks != 0 {
		t.Fatalf("%d store operations fell back to the local store with Redis up", fallbacks)
	}
	if got := fb.calls.Load(); got != limit || settled != limit || refused != replicas*workers*each-limit {
		t.Errorf("fleet made %d fallback calls (%d settled, %d refused by budget); want exactly %d (one budget), %d refused", got, settled, refused, limit, replicas*workers*each-limit)
	}
	calls, _, err := rs[0].st.Usage(context.Background(), b)
	if err != nil || calls != limit {
		t.Errorf("Usage = %d calls, %v; want %d", calls, err, limit)
	}
}

// An estimate one replica settled serves another replica: from the shared
// cache, without a fallback call. A right and a hallucinated answer to the
// same question share the decisions that do not look at the answer.
func TestSharedCacheServesAnotherReplica(t *testing.T) {
	srv := redistest.Start(t)
	fb := &judge{P: 0.83}
	a := newReplica(t, srv, fb, redisstore.Options{}, slow)
	b := newReplica(t, srv, fb, redisstore.Options{}, slow)
	ctx := context.Background()
	ds := []guard.Decision{guard.ChunkRelevance, guard.ContextSufficiency, guard.Groundedness}
	if out, err := a.c.Escalate(ctx, escalation(sample(1), ds...)); err != nil || out[0].Abstained {
		t.Fatalf("replica a: %v %+v", err, out)
	}
	// The shared put runs once a's callers have the answer: wait for it
	// by closing nothing, polling the store (no sleeping on a timer).
	waitEntries(t, a.st, 4)
	out, err := b.c.Escalate(ctx, escalation(sample(1), ds...))
	if err != nil {
		t.Fatal(err)
	}
	if fb.calls.Load() != 1 {
		t.Errorf("fallback called %d times; want 1 (replica b served from the shared cache)", fb.calls.Load())
	}
	for _, e := range out {
		if e.Abstained || e.P != 0.83 || e.Usage != (guard.Usage{}) {
			t.Errorf("b's %v/%s = %+v; want P 0.83 from the shared cache, no usage", e.Decision, e.ContextID, e)
		}
	}
	if st := b.c.Stats(); st.SharedHits != 4 || st.CacheHits != 4 {
		t.Errorf("b's stats: %d shared hits, %d hits; want 4, 4", st.SharedHits, st.CacheHits)
	}
	// Another answer: chunk relevance and sufficiency come from the shared
	// cache, groundedness goes to the fallback.
	hal := sample(1)
	hal.Answer = "Refunds are accepted for 90 days."
	c := newReplica(t, srv, fb, redisstore.Options{}, slow)
	if _, err := c.c.Escalate(ctx, escalation(hal, ds...)); err != nil {
		t.Fatal(err)
	}
	if st := c.c.Stats(); st.SharedHits != 3 || fb.calls.Load() != 2 {
		t.Errorf("hallucinated answer: %d shared hits, %d fallback calls; want 3, 2", st.SharedHits, fb.calls.Load())
	}
}

// waitEntries polls until the shared cache indexes n entries.
func waitEntries(t *testing.T, st *redisstore.Store, n int64) {
	t.Helper()
	end := time.Now().Add(10 * time.Second)
	for {
		got, err := st.Entries(context.Background())
		if err == nil && got >= n {
			return
		}
		if time.Now().After(end) {
			t.Fatalf("the shared cache holds %d entries (%v); want %d", got, err, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// The budget window slides by the store's clock; a refund goes back to the
// slice charged, and not once that slice has left the window.
func TestBudgetWindow(t *testing.T) {
	srv := redistest.Start(t)
	clk := newClock()
	st := newStore(t, srv, redisstore.Options{Clock: clk.Now})
	ctx := context.Background()
	b := cascade.Budget{Window: 10 * time.Second, Buckets: 10, MaxCalls: 2, MaxTokens: 100}
	c1, err := st.Reserve(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Second)
	if _, err := st.Reserve(ctx, b); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Reserve(ctx, b); !errors.Is(err, guard.ErrFallbackBudget) {
		t.Fatalf("third call: %v; want guard.ErrFallbackBudget", err)
	}
	// Refunded in a later slice, the charge leaves its own slice.
	if err := st.Refund(ctx, b, c1); err != nil {
		t.Fatal(err)
	}
	if calls, _, _ := st.Usage(ctx, b); calls != 1 {
		t.Errorf("after the refund: %d calls; want 1", calls)
	}
	if err := st.Spend(ctx, b, 100); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Reserve(ctx, b); err == nil || !strings.Contains(err.Error(), "tokens") {
		t.Errorf("with 100 tokens spent: %v; want a refusal on tokens", err)
	}
	// Ten seconds on, everything has left the window.
	clk.Advance(10 * time.Second)
	if calls, tokens, _ := st.Usage(ctx, b); calls != 0 || tokens != 0 {
		t.Errorf("after the window: %d calls, %d tokens; want 0, 0", calls, tokens)
	}
	if _, err := st.Reserve(ctx, b); err != nil {
		t.Error(err)
	}
	// A refund for a slice that has left the window changes nothing.
	if err := st.Refund(ctx, b, c1); err != nil {
		t.Fatal(err)
	}
	if calls, _, _ := st.Usage(ctx, b); calls != 1 {
		t.Errorf("after a stale refund: %d calls; want 1", calls)
	}
}

// The cache stays within MaxEntries (oldest written first out), every
// entry has the TTL, and an estimate over MaxEntryBytes is not shared.
func TestCacheBounds(t *testing.T) {
	srv := redistest.Start(t)
	st := newStore(t, srv, redisstore.Options{MaxEntries: 5, TTL: time.Minute, MaxEntryBytes: 300, Prefix: "bounds:"})
	ctx := context.Background()
	var keys []cascade.Key
	for i := range 12 {
		var k cascade.Key
		k[0], k[1] = byte(i), 0xAB
		keys = append(keys, k)
		if err := st.Put(ctx, []cascade.Entry{{Key: k, Estimate: guard.Estimate{Decision: guard.Groundedness, P: float64(i) / 20}}}); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := st.Entries(ctx); err != nil || n != 5 {
		t.Errorf("entries = %d, %v; want 5", n, err)
	}
	ests, found, err := st.Get(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	for i := range keys {
		if want := i >= 7; found[i] != want {
			t.Errorf("key %d found = %v; want %v (the 5 written last)", i, found[i], want)
		} else if want && ests[i].P != float64(i)/20 {
			t.Errorf("key %d: P = %v; want %v", i, ests[i].P, float64(i)/20)
		}
	}
	rdb := redis.NewClient(redisstore.ClientOptions(srv.Addr))
	defer rdb.Close()
	ttl, err := rdb.PTTL(ctx, "bounds:e:"+keys[11].String()).Result()
	if err != nil || ttl <= 0 || ttl > time.Minute {
		t.Errorf("entry TTL = %v, %v; want in (0, 1m]", ttl, err)
	}
	var big cascade.Key
	big[0] = 0xFF
	if err := st.Put(ctx, []cascade.Entry{{Key: big, Estimate: guard.Estimate{Decision: guard.Groundedness, P: 0.5, Reason: strings.Repeat("x", 400)}}}); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := st.Get(ctx, []cascade.Key{big}); found[0] || st.Health().Oversize != 1 {
		t.Errorf("an oversize estimate was shared (found %v, health %+v)", found[0], st.Health())
	}
}

// Counters from every replica add up in Redis.
func TestFleetCounters(t *testing.T) {
	srv := redistest.Start(t)
	fb := &judge{P: 0.9}
	var rs []replica
	for range 3 {
		rs = append(rs, newReplica(t, srv, fb, redisstore.Options{}, slow))
	}
	ctx := context.Background()
	for i := range 30 {
		if _, err := rs[i%3].c.Escalate(ctx, escalation(sample(i%10), guard.Groundedness, guard.AnswerRelevance)); err != nil {
			t.Fatal(err)
		}
	}
	var want cascade.Counts
	for _, r := range rs {
		if err := r.c.Close(ctx); err != nil { // waits for the shared puts
			t.Fatal(err)
		}
		if err := r.st.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		st := r.c.Stats()
		want = want.Add(cascade.Counts{Escalations: st.Escalations, Requested: st.Requested, CacheHits: st.CacheHits, SharedHits: st.SharedHits,
			Settled: st.Settled, Abstained: st.Abstained, FallbackCalls: st.Calls, Tokens: st.InputTokens + st.OutputTokens})
	}
	got, err := rs[0].st.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("fleet counters %+v; want the replicas' sum %+v", got, want)
	}
	if got.Escalations != 30 || got.FallbackCalls+got.CacheHits/2 != 30 {
		t.Errorf("fleet counters %+v: want 30 escalations, each answered by one call or two hits", got)
	}
}
