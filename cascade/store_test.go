package cascade_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/guard"
)

// Two cascades of one process sharing a MemoryStore share its cache and
// spend one budget.
func TestSharedMemoryStore(t *testing.T) {
	shared, err := cascade.NewMemoryStore(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := &fake{P: 0.8}
	b := cascade.Budget{Window: time.Hour, MaxCalls: 3}
	a := newCascade(t, f, cascade.WithStore(shared), cascade.WithBudget(b))
	c := newCascade(t, f, cascade.WithStore(shared), cascade.WithBudget(b))
	ctx := context.Background()
	mustEscalate(t, a, ctx, escalation(sample(1)))
	if err := a.Close(ctx); err != nil { // waits for the shared write
		t.Fatal(err)
	}
	if out := mustEscalate(t, c, ctx, escalation(sample(1))); out[0].Abstained || f.Calls() != 1 {
		t.Fatalf("second cascade: %+v, %d calls; want the first one's estimate from the shared store", out[0], f.Calls())
	}
	if st := c.Stats(); st.SharedHits != 1 {
		t.Errorf("shared hits %d; want 1", st.SharedHits)
	}
	// One budget: a has made 1 call; c may make 2 more.
	got := ""
	for i := 2; i < 5; i++ {
		if out := mustEscalate(t, c, ctx, escalation(sample(i))); out[0].Abstained {
			got += "R"
		} else {
			got += "ok,"
		}
	}
	if got != "ok,ok,R" {
		t.Errorf("c's calls on the shared budget: %s; want ok,ok,R", got)
	}
	if calls, _ := shared.Usage(b); calls != 3 {
		t.Errorf("shared usage %d calls; want 3", calls)
	}
	if n := shared.Counts(); n.Escalations != 5 || n.SharedHits != 1 || n.FallbackCalls != 3 {
		t.Errorf("shared counts %+v; want 5 escalations, 1 shared hit, 3 calls", n)
	}
}

// failing is a Store whose operations fail while down is set (a test
// double for an unreachable shared store; the real one is tested against a
// real Redis in cascade/redisstore).
type failing struct {
	*cascade.MemoryStore
	down atomic.Bool
}

var errDown = errors.New("store down")

func (f *failing) Get(ctx context.Context, keys []cascade.Key) ([]guard.Estimate, []bool, error) {
	if f.down.Load() {
		return nil, nil, errDown
	}
	return f.MemoryStore.Get(ctx, keys)
}

func (f *failing) Reserve(ctx context.Context, b cascade.Budget) (cascade.Charge, error) {
	if f.down.Load() {
		return cascade.Charge{}, errDown
	}
	return f.MemoryStore.Reserve(ctx, b)
}

func (f *failing) Put(ctx context.Context, e []cascade.Entry) error {
	if f.down.Load() {
		return errDown
	}
	return f.MemoryStore.Put(ctx, e)
}

// With its shared store down, a cascade makes exactly the calls its own
// budget allows, counts every operation it served locally, and uses the
// store again once it answers.
func TestFaultSharedStoreDown(t *testing.T) {
	mem, _ := cascade.NewMemoryStore(0, nil)
	st := &failing{MemoryStore: mem}
	st.down.Store(true)
	f := &fake{P: 0.8}
	c := newCascade(t, f, cascade.WithStore(st), cascade.WithBudget(cascade.Budget{Window: time.Hour, MaxCalls: 2}))
	ctx := context.Background()
	got := ""
	for i := range 4 {
		if out := mustEscalate(t, c, ctx, escalation(sample(i))); out[0].Abstained {
			got += "R"
		} else {
			got += "ok,"
		}
	}
	if got != "ok,ok,RR" || f.Calls() != 2 {
		t.Errorf("with the store down: %s, %d calls; want ok,ok,RR and 2 (the own budget)", got, f.Calls())
	}
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	s := c.Stats()
	// 4 lookups, 2 budget checks (the refused ones stop at the own
	// budget), 2 writes.
	if s.StoreFallbacks != 8 {
		t.Errorf("store fallbacks %d; want 8 (%+v)", s.StoreFallbacks, s)
	}
	checkStats(t, s)
	if n := mem.Counts(); n.StoreFallbacks != 8 || n.Escalations != 4 {
		t.Errorf("counts reported to the store %+v; want 8 store fallbacks, 4 escalations", n)
	}
	// Back: a new cascade finds nothing shared yet, calls, and writes.
	st.down.Store(false)
	c2 := newCascade(t, f, cascade.WithStore(st))
	mustEscalate(t, c2, ctx, escalation(sample(9)))
	if err := c2.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if n := c2.Stats().StoreFallbacks; n != 0 {
		t.Errorf("store fallbacks with the store up: %d", n)
	}
	if n := mem.Counts(); n.FallbackCalls != 3 {
		t.Errorf("fallback calls reported to the store: %d; want 3", n.FallbackCalls)
	}
}
