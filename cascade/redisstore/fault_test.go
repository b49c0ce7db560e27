package redisstore_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/cascade/redisstore"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/internal/redistest"
)

// Killing Redis in the middle of a run loses no evaluation: every
// escalation returns, every estimate is settled or abstained with a reason,
// and the counts add up. The replicas fall back to their own stores and
// count it, and none makes more fallback calls than its own budget allows
// (what it would do alone). When Redis is back, they use it again.
func TestFaultRedisKilledMidRun(t *testing.T) {
	srv := redistest.Start(t)
	clk := newClock() // the stores' RetryAfter clock and the replicas' budget clock
	const replicas, workers, each, limit = 3, 4, 40, 30
	b := cascade.Budget{Window: time.Hour, MaxCalls: limit}
	opt := redisstore.Options{Now: clk.Now, RetryAfter: time.Second}
	var rs []replica
	var judges []*judge
	for range replicas {
		j := &judge{P: 0.9}
		judges = append(judges, j)
		rs = append(rs, newReplica(t, srv, j, opt, slow, cascade.WithBudget(b), cascade.WithClock(clk.Now)))
	}
	var done atomic.Int64
	var once sync.Once
	var wg sync.WaitGroup
	var settled, abstained atomic.Int64
	for r := range replicas {
		for w := range workers {
			wg.Go(func() {
				for i := range each {
					if done.Add(1) == replicas*workers*each/3 {
						once.Do(srv.Kill) // the first third ran with Redis
					}
					// Samples repeat across replicas, so the shared cache
					// has something to serve before the kill.
					out, err := rs[r].c.Escalate(context.Background(), escalation(sample(w*each+i), guard.Groundedness, guard.ContextSufficiency))
					if err != nil {
						t.Errorf("Escalate: %v", err)
						return
					}
					if len(out) != 2 {
						t.Errorf("%d estimates; want 2", len(out))
					}
					for _, e := range out {
						switch {
						case !e.Abstained && e.P == 0.9:
							settled.Add(1)
						case e.Abstained && e.Cause == guard.CauseBudget:
							abstained.Add(1)
						default:
							t.Errorf("estimate %+v: neither the fallback's answer nor a budget refusal", e)
						}
					}
				}
			})
		}
	}
	wg.Wait()
	var fallbacks, escalations uint64
	for i, r := range rs {
		st := r.c.Stats()
		checkStats(t, st)
		escalations += st.Escalations
		fallbacks += st.StoreFallbacks
		if n := judges[i].calls.Load(); n > limit {
			t.Errorf("replica %d made %d fallback calls; its own budget allows %d", i, n, limit)
		}
		if h := r.st.Health(); h.Failures == 0 {
			t.Errorf("replica %d's store saw no failure: %+v", i, h)
		}
	}
	if escalations != replicas*workers*each || settled.Load()+abstained.Load() != 2*replicas*workers*each {
		t.Errorf("%d escalations, %d settled + %d abstained estimates; want %d escalations, %d estimates", escalations, settled.Load(), abstained.Load(), replicas*workers*each, 2*replicas*workers*each)
	}
	if fallbacks == 0 {
		t.Error("no store fallback was counted after Redis was killed")
	}
	t.Logf("Redis killed after %d of %d escalations: %d estimates settled, %d refused by budget, %d store operations served locally",
		replicas*workers*each/3, replicas*workers*each, settled.Load(), abstained.Load(), fallbacks)

	// Redis comes back (empty). Once RetryAfter has passed the replicas ask
	// it again and share through it. (Two hours on, the budgets' window has
	// passed too.)
	srv.Restart()
	clk.Advance(2 * time.Hour)
	fresh := sample(100_000)
	fresh.Question = "Is the fleet cache back?"
	for i, r := range rs {
		before := r.c.Stats().StoreFallbacks
		ds := []guard.Decision{guard.AnswerRelevance}
		if _, err := r.c.Escalate(context.Background(), escalation(fresh, ds...)); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			waitEntries(t, r.st, 1)
		}
		if after := r.c.Stats().StoreFallbacks; after != before {
			t.Errorf("replica %d: %d store fallbacks after Redis came back", i, after-before)
		}
		if h := r.st.Health(); h.Down || h.Rejoins == 0 {
			t.Errorf("replica %d's store has not rejoined: %+v", i, h)
		}
	}
	for i := 1; i < replicas; i++ {
		if st := rs[i].c.Stats(); st.SharedHits == 0 {
			t.Errorf("replica %d: no shared hit after Redis came back", i)
		}
	}
}

// While Redis is down the store does not ask it again before RetryAfter:
// operations fail at once, so a dead Redis costs a replica one timeout, not
// one per operation.
func TestFaultUnavailableFailsFast(t *testing.T) {
	srv := redistest.Start(t)
	clk := newClock()
	st := newStore(t, srv, redisstore.Options{Now: clk.Now, RetryAfter: time.Second})
	ctx := context.Background()
	k := []cascade.Key{{1}}
	if _, _, err := st.Get(ctx, k); err != nil {
		t.Fatal(err)
	}
	srv.Kill()
	if _, _, err := st.Get(ctx, k); err == nil {
		t.Fatal("Get succeeded with Redis killed")
	}
	for range 3 {
		if _, _, err := st.Get(ctx, k); err != redisstore.ErrUnavailable {
			t.Fatalf("Get within RetryAfter: %v; want ErrUnavailable", err)
		}
	}
	if h := st.Health(); !h.Down || h.Failures != 1 {
		t.Errorf("health %+v; want down after 1 failure", h)
	}
	srv.Restart()
	clk.Advance(time.Second)
	if _, _, err := st.Get(ctx, k); err != nil {
		t.Fatalf("Get after Redis came back: %v", err)
	}
	if h := st.Health(); h.Down || h.Rejoins != 1 {
		t.Errorf("health %+v; want up after 1 rejoin", h)
	}
}

// A Redis that stalls (SIGSTOP: connections open, nothing answered) costs
// each operation at most Limits.StoreTimeout: the replicas go on with their
// own stores, count it, and do not ask Redis again before RetryAfter. When
// it answers again they rejoin.
func TestFaultRedisStalls(t *testing.T) {
	srv := redistest.Start(t)
	clk := newClock()
	fb := &judge{P: 0.9}
	stall := cascade.WithLimits(cascade.Limits{StoreTimeout: 30 * time.Millisecond})
	a := newReplica(t, srv, fb, redisstore.Options{Now: clk.Now, RetryAfter: time.Second}, stall)
	ctx := context.Background()
	if _, err := a.c.Escalate(ctx, escalation(sample(1))); err != nil {
		t.Fatal(err)
	}
	waitEntries(t, a.st, 1)
	srv.Pause()
	for i := 2; i < 12; i++ {
		out, err := a.c.Escalate(ctx, escalation(sample(i)))
		if err != nil || out[0].Abstained {
			t.Fatalf("escalation %d with Redis stalled: %v %+v; want the fallback's answer", i, err, out)
		}
	}
	st, h := a.c.Stats(), a.st.Health()
	if st.StoreFallbacks == 0 || h.Failures != 1 || !h.Down {
		t.Errorf("with Redis stalled: %d store fallbacks, health %+v; want fallbacks counted, one failure (then RetryAfter)", st.StoreFallbacks, h)
	}
	srv.Resume()
	clk.Advance(2 * time.Second)
	b := newReplica(t, srv, fb, redisstore.Options{}, stall)
	if _, err := a.c.Escalate(ctx, escalation(sample(1))); err != nil { // in a's own cache: no Redis op
		t.Fatal(err)
	}
	if _, err := a.c.Escalate(ctx, escalation(sample(50))); err != nil {
		t.Fatal(err)
	}
	if h := a.st.Health(); h.Down || h.Rejoins != 1 {
		t.Errorf("after Redis resumed: health %+v; want up, one rejoin", h)
	}
	waitEntries(t, a.st, 2)
	if out, err := b.c.Escalate(ctx, escalation(sample(50))); err != nil || b.c.Stats().SharedHits != 1 {
		t.Errorf("replica b after the stall: %v %+v, %d shared hits; want a's estimate from Redis", err, out, b.c.Stats().SharedHits)
	}
	checkStats(t, a.c.Stats())
}
