package ragtriage_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sony/gobreaker/v2"

	"github.com/ragtriage/ragtriage"
	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/guard"
)

// The checks of issue 18 for the fallback, through ragtriage.New and
// cascade.Limits / cascade.Budget. They read no wall time: a manual clock
// or a gate decides when the fallback answers.

// passing is an answer the embedded judges escalate and a healthy fallback
// answer passes.
var passing = guard.Sample{
	Question: "How long do I have to ask for a refund?",
	Contexts: []guard.Context{{ID: "refunds", Text: "Customers may request a full refund within 30 days of purchase."}},
	Answer:   "You can get a full refund within 30 days of purchase.",
}

// manualClock is a clock a test moves by hand, a year ahead of wall time so
// that no context deadline built from it ends in real time.
type manualClock struct {
	mu sync.Mutex
	t  time.Time
}

func newManualClock() *manualClock {
	return &manualClock{t: time.Now().AddDate(1, 0, 0)}
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *manualClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// hookJudge runs hook, then answers as simulatedLLMJudge does (healthy for
// the passing answer), whatever its context says.
type hookJudge struct {
	hook  func(ctx context.Context)
	usage guard.Usage // on the first estimate of each call
	calls atomic.Int64
}

func (j *hookJudge) Judge(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
	j.calls.Add(1)
	if j.hook != nil {
		j.hook(ctx)
	}
	out, err := simulatedLLMJudge{}.Judge(context.Background(), req)
	if len(out) > 0 {
		out[0].Usage = j.usage
	}
	return out, err
}

func newFallbackGuard(t *testing.T, fb guard.Judge, rule guard.Degrade, opts ...cascade.Option) *ragtriage.Guard {
	t.Helper()
	g, err := ragtriage.New(ragtriage.WithFallback(fb, guard.UniformPolicy(0.3, 0.7), rule, opts...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := g.Close(context.Background()); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return g
}

// TestLateAnswersAreNeverAllowed: a fallback that gives healthy estimates
// after its call's context ended never passes the answer. Its estimates are
// not used; the degrade rule decides, and a request cancelled meanwhile is
// review even under fail_open.
func TestLateAnswersAreNeverAllowed(t *testing.T) {
	tests := []struct {
		name   string
		rule   guard.Degrade
		cancel bool // the request is cancelled during the call; else the clock passes CallTimeout
		want   guard.Action
		cause  guard.Cause
	}{
		{"past CallTimeout, fail_closed", guard.FailClosed, false, guard.Block, guard.CauseDeadline},
		{"cancelled, fail_closed", guard.FailClosed, true, guard.Block, guard.CauseCancelled},
		{"cancelled, fail_open", guard.FailOpen, true, guard.Review, guard.CauseCancelled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			clk := newManualClock()
			fb := &hookJudge{hook: func(context.Context) {
				if tt.cancel {
					cancel()
				} else {
					clk.Advance(time.Second)
				}
			}}
			g := newFallbackGuard(t, fb, tt.rule, cascade.WithClock(clk.Now),
				cascade.WithLimits(cascade.Limits{CallTimeout: 500 * time.Millisecond}))
			res, err := g.Evaluate(ctx, passing)
			if err != nil {
				t.Fatal(err)
			}
			f := res.Fallback
			if res.Diagnosis == guard.PassDiagnosis || res.Action != tt.want || f == nil || f.Settled != 0 || f.Cause != tt.cause {
				t.Errorf("%v, action %v, fallback %+v; want never PASS, action %v, nothing settled, cause %v", res.Diagnosis, res.Action, f, tt.want, tt.cause)
			}
		})
	}
	// The same fallback answering in time passes the answer: the check above
	// is about lateness.
	res, err := newFallbackGuard(t, &hookJudge{}, guard.FailClosed).Evaluate(context.Background(), passing)
	if err != nil || res.Diagnosis != guard.PassDiagnosis || res.Action != guard.Allow {
		t.Errorf("in time: %v %v (%v); want PASS allow", res.Diagnosis, res.Action, err)
	}
}

// TestCallTimeoutBoundsEvaluate: with context.Background(), CallTimeout
// 500ms bounds Evaluate even when the fallback ignores its context. The
// fallback is held at a gate that opens only after Evaluate returned (a
// failsafe opens it, so that an unbounded wait fails here, not hangs).
func TestCallTimeoutBoundsEvaluate(t *testing.T) {
	for _, ignores := range []bool{true, false} {
		t.Run(fmt.Sprintf("ignores its context %v", ignores), func(t *testing.T) {
			gate := make(chan struct{})
			var answered atomic.Bool
			fb := &hookJudge{hook: func(ctx context.Context) {
				if ignores {
					<-gate
					answered.Store(true)
					return
				}
				<-ctx.Done()
			}}
			g := newFallbackGuard(t, fb, guard.FailClosed, cascade.WithLimits(cascade.Limits{CallTimeout: 500 * time.Millisecond}))
			failsafe := time.AfterFunc(30*time.Second, func() { close(gate) })
			res, err := g.Evaluate(context.Background(), passing)
			// Read before the gate opens: once it does, the fallback answers.
			answeredFirst := answered.Load()
			if failsafe.Stop() {
				close(gate)
			} else {
				t.Error("Evaluate returned only once the fallback was released")
			}
			if err != nil {
				t.Fatal(err)
			}
			if answeredFirst && ignores {
				t.Error("the fallback had answered when Evaluate returned")
			}
			if f := res.Fallback; res.Action != guard.Block || f == nil || f.Cause != guard.CauseDeadline {
				t.Errorf("%v, action %v, fallback %+v; want block, cause deadline", res.Diagnosis, res.Action, f)
			}
		})
	}
}

// TestNegativeUsageCannotBuyBudget: 50 evaluations whose fallback reports
// negative or overflowing usage against MaxTokens 1000 are refused once it
// is spent.
func TestNegativeUsageCannotBuyBudget(t *testing.T) {
	never := cascade.WithBreakerSettings(gobreaker.Settings{ReadyToTrip: func(gobreaker.Counts) bool { return false }})
	for _, tt := range []struct {
		usage guard.Usage
		calls int64 // the fallback calls the budget lets through
	}{
		{guard.Usage{InputTokens: 400, OutputTokens: -400}, 3},
		{guard.Usage{InputTokens: 1 << 62, OutputTokens: 1 << 62}, 1},
	} {
		t.Run(fmt.Sprintf("%+v", tt.usage), func(t *testing.T) {
			fb := &hookJudge{usage: tt.usage}
			g := newFallbackGuard(t, fb, guard.FailClosed, never, cascade.WithCacheSize(cascade.CacheOff),
				cascade.WithBudget(cascade.Budget{Window: time.Hour, MaxTokens: 1000}))
			refused := 0
			for i := range 50 {
				s := passing
				s.Question = fmt.Sprintf("%s (%d)", s.Question, i)
				res, err := g.Evaluate(context.Background(), s)
				if err != nil {
					t.Fatal(err)
				}
				if res.Diagnosis == guard.PassDiagnosis && tt.usage.OutputTokens < 0 {
					t.Errorf("evaluation %d passed on an answer with negative usage", i)
				}
				if res.Fallback != nil && res.Fallback.Cause == guard.CauseBudget {
					refused++
				}
			}
			if fb.calls.Load() != tt.calls || refused != 50-int(tt.calls) {
				t.Errorf("%d fallback calls, %d refused by the budget; want %d, then every other refused", fb.calls.Load(), refused, tt.calls)
			}
		})
	}
}
