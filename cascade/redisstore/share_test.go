package redisstore_test

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/cascade/redisstore"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/internal/redistest"
)

// The Redis window ranks a stream of risks exactly as the in-process one
// does (warm-up, quantile, the cap on admissions by rank, sliding), so a
// fleet admits what one process would.
func TestShareWindowMatchesMemory(t *testing.T) {
	srv := redistest.Start(t)
	st := newStore(t, srv, redisstore.Options{})
	mem, err := cascade.NewMemoryStore(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	w := cascade.RiskWindow{Size: 200, Top: 0.18}
	rng := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	tops := 0
	for i := range 1500 {
		risk := rng.Float64()
		if i > 1000 {
			risk = float64(i) / 1500 // rising: the cap binds
		}
		if i%97 == 0 {
			risk = 0.5 // ties
		}
		got, err := st.AdmitRisk(ctx, w, risk)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := mem.AdmitRisk(ctx, w, risk)
		if got != want {
			t.Fatalf("risk %d (%v): Redis %+v, memory %+v", i, risk, got, want)
		}
		if got.Top {
			tops++
		}
	}
	if tops < 200 {
		t.Errorf("only %d admitted by rank over 1500 risks", tops)
	}
	if _, err := st.AdmitRisk(ctx, cascade.RiskWindow{}, 0.5); err == nil {
		t.Error("AdmitRisk with a zero-sized window succeeded")
	}
}

// Replicas sharing a store rank against one window: together they admit by
// rank no more than one window's cap, where each alone would admit its own.
func TestFleetSharesOneWindow(t *testing.T) {
	srv := redistest.Start(t)
	const replicas, each = 3, 300
	l := cascade.Limits{Share: 0.2, ShareWindow: replicas * each, MaxConcurrent: 64, MaxWaiting: 1024, StoreTimeout: 10 * time.Second}
	var rs []replica
	for r := range replicas {
		l.ShareSeed = uint64(r + 1)
		rs = append(rs, newReplica(t, srv, &judge{P: 0.9}, redisstore.Options{}, cascade.WithLimits(l), cascade.WithCacheSize(cascade.CacheOff)))
	}
	var wg sync.WaitGroup
	for r := range replicas {
		wg.Go(func() {
			for i := range each {
				esc := escalation(sample(r*each + i))
				// Every replica sees rising risks: alone, each would find
				// most of its own answers above its own quantile.
				esc.Primary = []guard.Estimate{{Decision: guard.Groundedness, P: 1 - float64(i)/each}}
				out, err := rs[r].c.Escalate(context.Background(), esc)
				if err != nil || out[0].Inclusion == 0 {
					t.Errorf("replica %d: %v %+v", r, err, out)
					return
				}
			}
		})
	}
	wg.Wait()
	top := uint64(0)
	for _, r := range rs {
		top += r.c.ShareStats().Top
		if s := r.c.Stats(); s.StoreFallbacks != 0 {
			t.Errorf("store fallbacks %d", s.StoreFallbacks)
		}
	}
	if lim := uint64(162); top > lim { // ⌈0.18 × 900⌉
		t.Errorf("the fleet admitted %d by rank; want at most one window's cap %d", top, lim)
	}
}
