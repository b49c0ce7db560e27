package cascade

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/ragtriage/ragtriage/guard"
)

// Store keeps what a cascade remembers between escalations: settled
// estimates (the cache), the budget account, and counters. Every Cascade
// has an in-process store of its own (a MemoryStore: the LRU and the budget
// of one process). WithStore adds a shared store in front of it — package
// cascade/redisstore keeps one in Redis for a fleet of replicas — so that N
// replicas share one cache and spend one budget, not N.
//
// The cascade treats a shared store as a help, never as a gate it cannot
// do without: an operation that fails or times out is served by the
// in-process store instead and counted (Stats.StoreFallbacks and the
// MetricStoreFallbacks counter). The in-process budget is charged for every
// call whether the shared store answers or not, and a call goes ahead only
// when both budgets allow it, so a replica whose shared store is down makes
// no call it would not make on its own.
//
// Implementations must be safe for concurrent use, honour ctx (return
// within its deadline), and keep each operation short: the cascade calls
// Get and Reserve on the caller's path. Count must not block at all (a
// store that ships counters over a network buffers them).
type Store interface {
	// Get looks keys up. It returns one estimate per key, and found[i]
	// reports whether keys[i] was there. An error means the store could not
	// be asked; the cascade then treats every key as missing from it.
	Get(ctx context.Context, keys []Key) (ests []guard.Estimate, found []bool, err error)
	// Put caches settled estimates (Usage and Latency already cleared).
	Put(ctx context.Context, entries []Entry) error
	// Reserve counts one fallback call against budget b if b allows it
	// within its window, atomically with the check, and returns where it
	// counted it. A refusal is an error wrapping guard.ErrFallbackBudget,
	// with the counts in its text. b is never the unlimited budget.
	Reserve(ctx context.Context, b Budget) (Charge, error)
	// Spend adds tokens to b's account in the current window slice.
	Spend(ctx context.Context, b Budget, tokens int) error
	// Refund takes back a call Reserve counted but that was never made,
	// from the slice it was counted in (nothing, once that slice has left
	// the window).
	Refund(ctx context.Context, b Budget, c Charge) error
	// Count adds to the store's counters. It must not block.
	Count(c Counts)
}

// Entry is one settled estimate to cache under its key.
type Entry struct {
	Key      Key
	Estimate guard.Estimate
}

// Charge says where a store counted a reserved call (the window slice, in
// the store's own numbering), so that a refund goes back to it.
type Charge struct {
	Bucket int64
}

// Counts are counter increments a cascade reports to a shared store after
// each escalation (and once for each store fallback), so that a
// fleet's totals can be read in one place.
type Counts struct {
	Escalations uint64 `json:"escalations"`
	Requested   uint64 `json:"requested"`
	// CacheHits counts estimates answered from a cache, in-process or
	// shared; SharedHits those of them the shared store answered.
	CacheHits  uint64 `json:"cacheHits"`
	SharedHits uint64 `json:"sharedHits"`
	Settled    uint64 `json:"settled"`
	Abstained  uint64 `json:"abstained"`
	// FallbackCalls counts fallback calls made; RefusedBudget estimates
	// refused by a budget; Tokens what the fallback reported.
	FallbackCalls uint64 `json:"fallbackCalls"`
	RefusedBudget uint64 `json:"refusedBudget"`
	Tokens        uint64 `json:"tokens"`
	// StoreFallbacks counts shared-store operations that failed or timed
	// out and were served by the in-process store.
	StoreFallbacks uint64 `json:"storeFallbacks"`
}

// Add returns the field-wise sum of c and o.
func (c Counts) Add(o Counts) Counts {
	return Counts{c.Escalations + o.Escalations, c.Requested + o.Requested, c.CacheHits + o.CacheHits, c.SharedHits + o.SharedHits,
		c.Settled + o.Settled, c.Abstained + o.Abstained, c.FallbackCalls + o.FallbackCalls, c.RefusedBudget + o.RefusedBudget,
		c.Tokens + o.Tokens, c.StoreFallbacks + o.StoreFallbacks}
}

// IsZero reports whether every count is zero.
func (c Counts) IsZero() bool { return c == Counts{} }

// MemoryStore is the in-process Store: a golang-lru cache of settled
// estimates and sliding-window budget accounts, on one process's memory and
// clock. Every Cascade makes one for itself; one MemoryStore passed to
// WithStore is shared by the cascades of one process. It is also a
// guard.PromiseStore: promise monitors given it as their Store share their
// tallies within the process. Safe for concurrent
// use; it holds no goroutine and needs no Close.
type MemoryStore struct {
	cache *lru.Cache[Key, guard.Estimate] // nil: caching off
	now   func() time.Time
	mu    sync.Mutex
	accts map[Budget]*budget
	wins  map[RiskWindow]*riskWindow
	c     struct {
		escalations, requested, hits, sharedHits, settled, abstained atomic.Uint64
		calls, refusedBudget, tokens, storeFallbacks                 atomic.Uint64
	}
	promises promiseBook // guard.PromiseStore (promise.go)
}

// NewMemoryStore returns an in-process store caching up to size estimates
// (DefaultCacheSize when 0; none when negative), whose budget windows slide
// with now (time.Now when nil).
func NewMemoryStore(size int, now func() time.Time) (*MemoryStore, error) {
	if now == nil {
		now = time.Now
	}
	m := &MemoryStore{now: now, accts: map[Budget]*budget{}}
	if size >= 0 {
		if size == 0 {
			size = DefaultCacheSize
		}
		var err error
		if m.cache, err = lru.New[Key, guard.Estimate](size); err != nil {
			return nil, fmt.Errorf("cascade: cache: %w", err)
		}
	}
	return m, nil
}

// get returns the estimate cached under k.
func (m *MemoryStore) get(k Key) (guard.Estimate, bool) {
	if m.cache == nil {
		return guard.Estimate{}, false
	}
	return m.cache.Get(k)
}

// put caches e under k.
func (m *MemoryStore) put(k Key, e guard.Estimate) {
	if m.cache != nil {
		m.cache.Add(k, e)
	}
}

// account returns the budget account for b, made on first use. Budgets
// that differ only in MaxCalls share one account (as in a Redis store,
// whose accounts are named by the window alone): the cap is the caller's.
func (m *MemoryStore) account(b Budget) *budget {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := b
	if k.MaxCalls > 0 {
		k.MaxCalls = 1
	}
	a, ok := m.accts[k]
	if !ok {
		a = newBudget(b, m.now)
		m.accts[k] = a
	}
	return a
}

// Get implements Store.
func (m *MemoryStore) Get(_ context.Context, keys []Key) ([]guard.Estimate, []bool, error) {
	ests, found := make([]guard.Estimate, len(keys)), make([]bool, len(keys))
	for i, k := range keys {
		ests[i], found[i] = m.get(k)
	}
	return ests, found, nil
}

// Put implements Store.
func (m *MemoryStore) Put(_ context.Context, entries []Entry) error {
	for _, e := range entries {
		m.put(e.Key, e.Estimate)
	}
	return nil
}

// Reserve implements Store.
func (m *MemoryStore) Reserve(_ context.Context, b Budget) (Charge, error) {
	ch, why := m.account(b).reserve(b.MaxCalls, b.MaxCalls)
	if why != "" {
		return Charge{}, fmt.Errorf("%w: %s", guard.ErrFallbackBudget, why)
	}
	return Charge{Bucket: ch.bucket}, nil
}

// Spend implements Store.
func (m *MemoryStore) Spend(_ context.Context, b Budget, tokens int) error {
	m.account(b).Spend(tokens)
	return nil
}

// Refund implements Store.
func (m *MemoryStore) Refund(_ context.Context, b Budget, c Charge) error {
	m.account(b).Refund(charge{bucket: c.Bucket, ok: true})
	return nil
}

// Count implements Store.
func (m *MemoryStore) Count(c Counts) {
	add := func(a *atomic.Uint64, n uint64) {
		if n != 0 {
			a.Add(n)
		}
	}
	add(&m.c.escalations, c.Escalations)
	add(&m.c.requested, c.Requested)
	add(&m.c.hits, c.CacheHits)
	add(&m.c.sharedHits, c.SharedHits)
	add(&m.c.settled, c.Settled)
	add(&m.c.abstained, c.Abstained)
	add(&m.c.calls, c.FallbackCalls)
	add(&m.c.refusedBudget, c.RefusedBudget)
	add(&m.c.tokens, c.Tokens)
	add(&m.c.storeFallbacks, c.StoreFallbacks)
}

// Counts returns the sums of what cascades reported with Count.
func (m *MemoryStore) Counts() Counts {
	return Counts{m.c.escalations.Load(), m.c.requested.Load(), m.c.hits.Load(), m.c.sharedHits.Load(), m.c.settled.Load(),
		m.c.abstained.Load(), m.c.calls.Load(), m.c.refusedBudget.Load(), m.c.tokens.Load(), m.c.storeFallbacks.Load()}
}

// Usage returns the calls and tokens counted in b's window now.
func (m *MemoryStore) Usage(b Budget) (calls, tokens int) {
	a := m.account(b)
	if a == nil {
		return 0, 0
	}
	t := a.now()
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sums(a.stamp[a.slot(t)])
}

var _ Store = (*MemoryStore)(nil)

// sharedCharge is a charge on the shared budget, when one was made.
type sharedCharge struct {
	ch Charge
	ok bool
}

// storeOp names a shared-store operation in the store-fallback metric.
type storeOp uint8

const (
	opGet storeOp = iota
	opPut
	opReserve
	opSpend
	opRefund
	opShare
	numStoreOps
)

var storeOpLabels = [numStoreOps]string{"get", "put", "reserve", "spend", "refund", "share"}

// afterCall does the shared-store work of a fallback call once its
// callers have the answer (on the call's goroutine, which Close waits
// for): a refund when the call was never made, else the token spend and
// the settled estimates. Each operation is bounded by Limits.StoreTimeout;
// a failure is counted and changes nothing else (the in-process store has
// the same data).
func (c *Cascade) afterCall(g *group, ests []guard.Estimate, sc sharedCharge, ran bool, tokens int) {
	bg := context.Background()
	op := func(o storeOp, f func(context.Context) error) {
		ctx, cancel := c.storeCtx(bg)
		err := f(ctx)
		cancel()
		if err != nil {
			c.storeFailed(bg, o)
		}
	}
	if !ran {
		if sc.ok {
			op(opRefund, func(ctx context.Context) error { return c.shared.Refund(ctx, c.bcfg, sc.ch) })
		}
	} else {
		if tokens > 0 && c.bcfg.MaxTokens > 0 {
			op(opSpend, func(ctx context.Context) error { return c.shared.Spend(ctx, c.bcfg, tokens) })
		}
		var entries []Entry
		for k, it := range g.items {
			if e := findEstimate(ests, it); e != nil && !e.Abstained {
				v := *e
				v.Usage, v.Latency = guard.Usage{}, 0
				entries = append(entries, Entry{Key: g.keys[k], Estimate: v})
			}
		}
		if len(entries) > 0 {
			op(opPut, func(ctx context.Context) error { return c.shared.Put(ctx, entries) })
		}
	}
}
