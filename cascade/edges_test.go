package cascade_test

import (
	"context"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sony/gobreaker/v2"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/guard"
)

// The edges of the fallback contract (issue 18 item 2). Each of these tests
// failed on 3401e57.

// neverTrips keeps the breaker closed, so that a test sees the cascade's
// other refusals.
var neverTrips = cascade.WithBreakerSettings(gobreaker.Settings{ReadyToTrip: func(gobreaker.Counts) bool { return false }})

// TestLateAnswerIsDeadline: a healthy answer given after the call's context
// ended, by the cascade's clock, is a deadline (or a cancellation), never a
// result.
func TestLateAnswerIsDeadline(t *testing.T) {
	tests := []struct {
		name string
		// ctx is the caller's context; hook runs in the fallback before
		// it answers healthy estimates.
		ctx  func(t *testing.T, clk *clock) (context.Context, func())
		hook func(clk *clock, cancel func())
		want error
		// failed: counted against the breaker (CallTimeout) rather than
		// excluded (the caller's own deadline). A call the caller cancels
		// may end either way (raced = true): its caller may leave first,
		// or the answer come first and be refused.
		failed, raced bool
	}{
		{"past CallTimeout, no caller deadline",
			func(*testing.T, *clock) (context.Context, func()) { return context.Background(), func() {} },
			func(clk *clock, _ func()) { clk.Advance(2 * time.Second) },
			guard.ErrFallbackDeadline, true, false},
		{"past the caller's deadline",
			func(t *testing.T, clk *clock) (context.Context, func()) {
				return within(t, clk, 500*time.Millisecond), func() {}
			},
			func(clk *clock, _ func()) { clk.Advance(600 * time.Millisecond) },
			guard.ErrFallbackDeadline, false, false},
		{"cancelled by the caller",
			func(*testing.T, *clock) (context.Context, func()) { return context.WithCancel(context.Background()) },
			func(_ *clock, cancel func()) { cancel() },
			guard.ErrFallbackCancelled, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := newClock()
			ctx, cancel := tt.ctx(t, clk)
			defer cancel()
			var first atomic.Bool
			f := &fake{P: 0.95, Tokens: 7, Hook: func(context.Context, guard.Request) error {
				if first.CompareAndSwap(false, true) {
					tt.hook(clk, cancel)
				}
				return nil
			}}
			c := newCascade(t, f, cascade.WithClock(clk.Now), cascade.WithCacheSize(cascade.CacheOff),
				cascade.WithLimits(cascade.Limits{CallTimeout: time.Second}), neverTrips)
			out := mustEscalate(t, c, ctx, escalation(sample(1)))
			wantCause(t, out, tt.want)
			st := c.Stats()
			if st.Settled != 0 || st.Calls != 1 || (!tt.raced && ((st.CallErrors == 1) != tt.failed || (st.CallsExcluded == 1) == tt.failed)) {
				t.Errorf("stats = %+v; want the late answer unsettled, failed=%v", st, tt.failed)
			}
			if !tt.raced && st.InputTokens != 7 {
				t.Errorf("input tokens = %d; want the late answer's 7 counted", st.InputTokens)
			}
			checkStats(t, st)
			// Nothing was cached: the same question calls again.
			cancel()
			if out := mustEscalate(t, c, context.Background(), escalation(sample(1))); f.Calls() != 2 || out[0].Abstained {
				t.Errorf("after a late answer: %d calls, %+v; want a fresh, settled call", f.Calls(), out[0])
			}
		})
	}
}

// TestCallTimeoutBoundsTheWait: with a caller context that never ends, a
// fallback that ignores its context holds the caller no longer than
// CallTimeout. The fallback is held at a gate the test opens only after
// Escalate returned, so no wall time is read: an Escalate that waited for
// the fallback would see it answer (a failsafe opens the gate, so that
// such a cascade fails here instead of hanging).
func TestCallTimeoutBoundsTheWait(t *testing.T) {
	for _, ignores := range []bool{true, false} {
		gate := make(chan struct{})
		var answered atomic.Bool
		f := &fake{P: 0.95, Hook: func(ctx context.Context, _ guard.Request) error {
			if ignores {
				<-gate
				answered.Store(true)
				return nil
			}
			<-ctx.Done()
			return ctx.Err()
		}}
		mem, _ := cascade.NewMemoryStore(0, nil)
		c := newCascade(t, f, cascade.WithCacheSize(cascade.CacheOff), neverTrips, cascade.WithStore(mem),
			cascade.WithLimits(cascade.Limits{CallTimeout: 20 * time.Millisecond}))
		failsafe := time.AfterFunc(30*time.Second, func() { close(gate) })
		out := mustEscalate(t, c, context.Background(), escalation(sample(2)))
		// Read before the gate opens: once it is open the fallback answers.
		early := answered.Load()
		if !failsafe.Stop() {
			t.Errorf("ignores %v: Escalate returned only once the fallback was released", ignores)
		} else {
			close(gate)
		}
		if early && ignores {
			t.Errorf("ignores %v: the fallback had answered when Escalate returned", ignores)
		}
		wantCause(t, out, guard.ErrFallbackDeadline)
		// The call went out: the result counts it as made, whether the
		// caller gave up on it or it ended at CallTimeout.
		if err := c.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		if n := mem.Counts(); n.FallbackCalls != 1 {
			t.Errorf("ignores %v: %d fallback calls counted; want 1 (%+v)", ignores, n.FallbackCalls, n)
		}
	}
}

// TestUsageCannotBuyBudget: negative or overflowing usage never buys more
// than MaxTokens. A negative count makes the answer invalid (a failed
// call), and what it reported spending otherwise still counts; sums
// saturate. So 50 calls against MaxTokens 1000 are refused once it is
// spent.
func TestUsageCannotBuyBudget(t *testing.T) {
	tests := []struct {
		name  string
		usage []guard.Usage // one per estimate
		calls int           // the fallback calls let through
	}{
		{"400 in, -400 out", []guard.Usage{{InputTokens: 400, OutputTokens: -400}}, 3},
		{"MinInt in, 600 out", []guard.Usage{{InputTokens: math.MinInt, OutputTokens: 600}}, 2},
		{"MaxInt in and out", []guard.Usage{{InputTokens: math.MaxInt, OutputTokens: math.MaxInt}}, 1},
		{"MaxInt on two estimates", []guard.Usage{{InputTokens: math.MaxInt}, {OutputTokens: math.MaxInt}}, 1},
		{"-5000 on one estimate, 300 on the other", []guard.Usage{{InputTokens: -5000}, {InputTokens: 300}}, 4},
	}
	ds := []guard.Decision{guard.Groundedness, guard.AnswerRelevance}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var made atomic.Int64
			fb := guard.JudgeFunc(func(_ context.Context, req guard.Request) ([]guard.Estimate, error) {
				made.Add(1)
				out := make([]guard.Estimate, len(req.Decisions))
				for i, d := range req.Decisions {
					out[i] = guard.Estimate{Decision: d, P: 0.95}
					if i < len(tt.usage) {
						out[i].Usage = tt.usage[i]
					}
				}
				return out, nil
			})
			clk := newClock()
			c := newCascade(t, fb, cascade.WithClock(clk.Now), cascade.WithCacheSize(cascade.CacheOff), neverTrips,
				cascade.WithBudget(cascade.Budget{Window: time.Hour, MaxTokens: 1000}))
			refused := 0
			for i := range 50 {
				out := mustEscalate(t, c, context.Background(), escalation(sample(100+i), ds...))
				if out[0].Cause == guard.CauseBudget {
					refused++
				}
			}
			if int(made.Load()) != tt.calls || refused != 50-tt.calls {
				t.Errorf("%d fallback calls, %d refused by the budget; want %d calls, then every other refused", made.Load(), refused, tt.calls)
			}
			checkStats(t, c.Stats())
		})
	}
}
