package cascade_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/ragtriage/ragtriage/guard"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// clock is a manual clock for the budget and latency windows and the
// deadlines.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

// newClock returns a clock a year ahead of the real one, on the hour. A
// context whose deadline is set by it (within) does not end in real time
// during a test: only the cascade, reading the clock, sees it near.
func newClock() *clock { return &clock{t: time.Now().AddDate(1, 0, 0).Truncate(time.Hour)} }

// within returns a context whose deadline is d after clk's time.
func within(t *testing.T, clk *clock, d time.Duration) context.Context {
	ctx, cancel := context.WithDeadline(context.Background(), clk.Now().Add(d))
	t.Cleanup(cancel)
	return ctx
}

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

// fake is a scripted fallback judge: it answers every requested decision
// with P (per context for chunk relevance), reporting Tokens input tokens
// per call, after running Hook (which may block, fail or advance a clock).
type fake struct {
	P      float64
	Tokens int
	Hook   func(ctx context.Context, req guard.Request) error
	calls  atomic.Int64
	mu     sync.Mutex
	reqs   []guard.Request
}

func (f *fake) Judge(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
	f.calls.Add(1)
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	if f.Hook != nil {
		if err := f.Hook(ctx, req); err != nil {
			return nil, err
		}
	}
	var out []guard.Estimate
	for _, d := range req.Decisions {
		if d == guard.ChunkRelevance {
			for _, c := range req.Sample.Contexts {
				out = append(out, guard.Estimate{Decision: d, ContextID: c.ID, P: f.P})
			}
			continue
		}
		out = append(out, guard.Estimate{Decision: d, P: f.P})
	}
	if len(out) > 0 {
		out[0].Usage = guard.Usage{InputTokens: f.Tokens, Calls: 1}
	}
	return out, nil
}

func (f *fake) Describe() guard.JudgeInfo { return guard.JudgeInfo{Name: "fake", Version: "1"} }

func (f *fake) Calls() int { return int(f.calls.Load()) }

func (f *fake) Requests() []guard.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]guard.Request(nil), f.reqs...)
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

func mustEscalate(t testing.TB, e interface {
	Escalate(context.Context, guard.Escalation) ([]guard.Estimate, error)
}, ctx context.Context, esc guard.Escalation) []guard.Estimate {
	t.Helper()
	out, err := e.Escalate(ctx, esc)
	if err != nil {
		t.Fatalf("Escalate: %v", err)
	}
	return out
}

// waitFor polls cond every millisecond for up to limit. Used only where a
// library gives no way to inject time (gobreaker's open → half-open).
func waitFor(t *testing.T, limit time.Duration, cond func() bool) {
	t.Helper()
	end := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("condition not met within %v", limit)
		}
		time.Sleep(time.Millisecond)
	}
}
