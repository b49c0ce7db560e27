package redisstore_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"go.uber.org/goleak"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/cascade/redisstore"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/internal/redistest"
)

func TestMain(m *testing.M) {
	// The fault tests kill Redis on purpose; go-redis would log every
	// refused dial.
	redis.SetLogger(quiet{})
	goleak.VerifyTestMain(m)
}

type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// judge is a scripted fallback judge (a test double, not a model): it
// answers every requested decision with P, counting its calls.
type judge struct {
	P     float64
	Delay time.Duration
	calls atomic.Int64
}

func (j *judge) Judge(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
	j.calls.Add(1)
	if j.Delay > 0 {
		select {
		case <-time.After(j.Delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	var out []guard.Estimate
	for _, d := range req.Decisions {
		if d == guard.ChunkRelevance {
			for _, c := range req.Sample.Contexts {
				out = append(out, guard.Estimate{Decision: d, ContextID: c.ID, P: j.P})
			}
			continue
		}
		out = append(out, guard.Estimate{Decision: d, P: j.P})
	}
	if len(out) > 0 {
		out[0].Usage = guard.Usage{InputTokens: 10, Calls: 1}
	}
	return out, nil
}

func (j *judge) Describe() guard.JudgeInfo {
	return guard.JudgeInfo{Name: "scripted-test-judge", Version: "1"}
}

// clock is a manual clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

// newClock returns a clock a year ahead of the real one, on the hour. A
// cascade measures deadlines with its clock and hands them to the store's
// operations, so a test clock must not run behind the real one.
func newClock() *clock { return &clock{t: time.Now().AddDate(1, 0, 0).Truncate(time.Hour)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// newStore returns a store with its own client on srv, closed at the end.
func newStore(t testing.TB, srv *redistest.Server, opt redisstore.Options) *redisstore.Store {
	t.Helper()
	rdb := redis.NewClient(redisstore.ClientOptions(srv.Addr))
	t.Cleanup(func() { rdb.Close() })
	st, err := redisstore.New(rdb, opt)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// replica is one cascade with its own client and store.
type replica struct {
	c  *cascade.Cascade
	st *redisstore.Store
}

func newReplica(t testing.TB, srv *redistest.Server, fb guard.Judge, opt redisstore.Options, opts ...cascade.Option) replica {
	t.Helper()
	st := newStore(t, srv, opt)
	c, err := cascade.New(fb, append([]cascade.Option{cascade.WithStore(st)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := c.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return replica{c, st}
}

func sample(i int) *guard.Sample {
	return &guard.Sample{
		ID:       fmt.Sprint("s", i),
		Question: fmt.Sprintf("What is the refund window for order %d?", i),
		Contexts: []guard.Context{
			{ID: "c1", Text: "Refunds are accepted within 30 days of delivery."},
			{ID: "c2", Text: "Shipping takes three to five business days."},
		},
		Answer: "You can get a refund within 30 days of delivery.",
	}
}

func escalation(s *guard.Sample, ds ...guard.Decision) guard.Escalation {
	if len(ds) == 0 {
		ds = []guard.Decision{guard.Groundedness}
	}
	return guard.Escalation{Request: guard.Request{Sample: s, Decisions: ds}}
}

func checkStats(t testing.TB, s cascade.Stats) {
	t.Helper()
	if s.Requested != s.CacheHits+s.CacheMisses {
		t.Errorf("Requested %d != CacheHits %d + CacheMisses %d", s.Requested, s.CacheHits, s.CacheMisses)
	}
	if s.CacheMisses != s.Settled+s.Abstained {
		t.Errorf("CacheMisses %d != Settled %d + Abstained %d (%+v)", s.CacheMisses, s.Settled, s.Abstained, s)
	}
}

// slow is the store timeout for tests that must not fall back because the
// machine is busy: only a dead Redis may make them fall back.
var slow = cascade.WithLimits(cascade.Limits{MaxConcurrent: 64, MaxWaiting: 1024, StoreTimeout: 10 * time.Second})
