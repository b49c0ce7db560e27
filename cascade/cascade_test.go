package cascade_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sony/gobreaker/v2"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/guard"
)

func newCascade(t *testing.T, fb guard.Judge, opts ...cascade.Option) *cascade.Cascade {
	t.Helper()
	c, err := cascade.New(fb, opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := c.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return c
}

func checkStats(t *testing.T, s cascade.Stats) {
	t.Helper()
	if s.Requested != s.CacheHits+s.CacheMisses {
		t.Errorf("Requested %d != CacheHits %d + CacheMisses %d", s.Requested, s.CacheHits, s.CacheMisses)
	}
	if s.CacheMisses != s.Settled+s.Abstained {
		t.Errorf("CacheMisses %d != Settled %d + Abstained %d (%+v)", s.CacheMisses, s.Settled, s.Abstained, s)
	}
}

// wantCause checks that every estimate is abstained with the cause whose
// sentinel is want, and that its Err has the reason's text.
func wantCause(t *testing.T, out []guard.Estimate, want error) {
	t.Helper()
	for _, e := range out {
		if !e.Abstained || !errors.Is(e.Err(), want) || e.Cause != guard.CauseOf(want) || e.Reason == "" || e.Err().Error() != e.Reason {
			t.Errorf("estimate %v/%s = {Abstained:%v Reason:%q Cause:%q}; want abstained with cause %q and a reason", e.Decision, e.ContextID, e.Abstained, e.Reason, e.Cause, guard.CauseOf(want))
		}
	}
}

func TestNewValidates(t *testing.T) {
	f := &fake{}
	cases := []struct {
		name string
		fb   guard.Judge
		opts []cascade.Option
	}{
		{"nil fallback", nil, nil},
		{"typed-nil fallback", (*fake)(nil), nil},
		{"nil JudgeFunc fallback", guard.JudgeFunc(nil), nil},
		{"negative limit", f, []cascade.Option{cascade.WithLimits(cascade.Limits{MaxConcurrent: -1})}},
		{"negative config", f, []cascade.Option{cascade.WithConfig(cascade.Config{BreakerFailures: -1})}},
		{"config breaker and breaker", f, []cascade.Option{cascade.WithBreaker(gobreaker.NewCircuitBreaker[[]guard.Estimate](gobreaker.Settings{})), cascade.WithConfig(cascade.Config{BreakerFailures: 2})}},
		{"budget without window", f, []cascade.Option{cascade.WithBudget(cascade.Budget{MaxCalls: 3})}},
		{"min samples over window", f, []cascade.Option{cascade.WithLimits(cascade.Limits{LatencyWindow: 4, MinLatencySamples: 5})}},
		{"breaker twice", f, []cascade.Option{cascade.WithBreaker(gobreaker.NewCircuitBreaker[[]guard.Estimate](gobreaker.Settings{})), cascade.WithBreakerSettings(gobreaker.Settings{})}},
		{"nil clock", f, []cascade.Option{cascade.WithClock(nil)}},
	}
	for _, c := range cases {
		if _, err := cascade.New(c.fb, c.opts...); err == nil {
			t.Errorf("%s: New succeeded; want an error", c.name)
		} else if strings.HasPrefix(c.name, "typed-nil") && !strings.Contains(err.Error(), "nil *cascade_test.fake") {
			t.Errorf("%s: error %q does not name the typed nil", c.name, err)
		}
	}
}

func TestCacheHit(t *testing.T) {
	f := &fake{P: 0.93, Tokens: 40}
	c := newCascade(t, f)
	ctx := context.Background()
	s := sample(1)
	first := mustEscalate(t, c, ctx, escalation(s, guard.Groundedness, guard.AnswerRelevance))
	if len(first) != 2 || first[0].P != 0.93 || first[0].Abstained || first[0].Judge != "fake" {
		t.Fatalf("first = %+v", first)
	}
	if first[0].Usage.InputTokens != 40 {
		t.Errorf("first usage = %+v; want the fallback's", first[0].Usage)
	}
	// Same content with different spacing and line breaks, another ID.
	s2 := *s
	s2.ID = "other"
	s2.Question = "  What is the refund window\n for order 1?  "
	s2.Answer = "You can get a refund  within 30 days\tof delivery."
	second := mustEscalate(t, c, ctx, escalation(&s2, guard.Groundedness, guard.AnswerRelevance))
	if f.Calls() != 1 {
		t.Fatalf("fallback called %d times; want 1 (second escalation from cache)", f.Calls())
	}
	if second[0].P != 0.93 || second[0].Usage != (guard.Usage{}) || second[0].Latency != 0 {
		t.Errorf("cached estimate = %+v; want P 0.93, no usage, no latency", second[0])
	}
	// A different answer, a reference (the with-reference definition set),
	// or a changed context misses.
	s3 := *s
	s3.Answer = "You can get a refund within 31 days of delivery."
	mustEscalate(t, c, ctx, escalation(&s3, guard.Groundedness))
	sr := *s
	sr.Reference = guard.Ref("")
	mustEscalate(t, c, ctx, escalation(&sr, guard.Groundedness))
	s4 := *s
	s4.Contexts = []guard.Context{{ID: "c1", Text: "Refunds are accepted within 14 days of delivery."}, s.Contexts[1]}
	mustEscalate(t, c, ctx, escalation(&s4, guard.Groundedness))
	if f.Calls() != 4 {
		t.Errorf("fallback called %d times; want 4", f.Calls())
	}
	st := c.Stats()
	if st.CacheHits != 2 || st.CacheMisses != 5 || st.Settled != 5 {
		t.Errorf("stats = %+v; want 2 hits, 5 misses, 5 settled", st)
	}
	checkStats(t, st)
}

func TestCacheReanchorsQuotes(t *testing.T) {
	s := sample(1)
	text := "within 30 days"
	start := strings.Index(s.Contexts[0].Text, text)
	fb := guard.JudgeFunc(func(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
		return []guard.Estimate{{Decision: guard.Groundedness, P: 0.9, Evidence: []guard.Evidence{{
			Decision: guard.Groundedness, Kind: guard.EvidenceSupport,
			Quote: guard.Quote{Source: guard.SourceContext, ContextID: "c1", Start: start, End: start + len(text), Text: text},
		}}}}, nil
	})
	c := newCascade(t, fb)
	mustEscalate(t, c, context.Background(), escalation(s))
	s2 := *s
	s2.Contexts = []guard.Context{{ID: "c1", Text: "  Refunds are   accepted within 30 days of delivery."}, s.Contexts[1]}
	out := mustEscalate(t, c, context.Background(), escalation(&s2))
	q := out[0].Evidence[0].Quote
	if got := s2.Contexts[0].Text[q.Start:q.End]; got != text {
		t.Errorf("re-anchored quote selects %q; want %q", got, text)
	}
	if c.Stats().CacheHits != 1 {
		t.Errorf("want a cache hit")
	}
}

func TestChunkRelevanceSubsample(t *testing.T) {
	f := &fake{P: 0.8}
	c := newCascade(t, f)
	s := sample(1)
	esc := escalation(s, guard.ChunkRelevance, guard.ContextSufficiency)
	esc.ContextIDs = []string{"c2"}
	out := mustEscalate(t, c, context.Background(), esc)
	if len(out) != 2 || out[0].Decision != guard.ChunkRelevance || out[0].ContextID != "c2" || out[1].Decision != guard.ContextSufficiency {
		t.Fatalf("out = %+v", out)
	}
	reqs := f.Requests()
	if len(reqs) != 2 {
		t.Fatalf("fallback called %d times; want 2 (chunks apart)", len(reqs))
	}
	for _, r := range reqs {
		if r.Wants(guard.ChunkRelevance) {
			if len(r.Sample.Contexts) != 1 || r.Sample.Contexts[0].ID != "c2" || len(r.Decisions) != 1 {
				t.Errorf("chunk call = %v over %d contexts; want chunk_relevance over c2 only", r.Decisions, len(r.Sample.Contexts))
			}
		} else if len(r.Sample.Contexts) != 2 {
			t.Errorf("set-level call saw %d contexts; want 2", len(r.Sample.Contexts))
		}
	}
	// Every chunk asked (ContextIDs empty): one call.
	s2 := sample(2)
	mustEscalate(t, c, context.Background(), escalation(s2, guard.ChunkRelevance, guard.Groundedness))
	if n := len(f.Requests()); n != 3 {
		t.Errorf("fallback calls = %d; want 3", n)
	}
}

func TestFallbackFailures(t *testing.T) {
	cases := []struct {
		name string
		fb   guard.Judge
	}{
		{"error", guard.JudgeFunc(func(context.Context, guard.Request) ([]guard.Estimate, error) {
			return nil, errors.New("HTTP 500")
		})},
		{"panic", guard.JudgeFunc(func(context.Context, guard.Request) ([]guard.Estimate, error) { panic("boom") })},
		{"NaN", guard.JudgeFunc(func(_ context.Context, r guard.Request) ([]guard.Estimate, error) {
			return []guard.Estimate{{Decision: guard.Groundedness, P: 2}}, nil
		})},
		{"not asked", guard.JudgeFunc(func(_ context.Context, r guard.Request) ([]guard.Estimate, error) {
			return []guard.Estimate{{Decision: guard.Contradiction, P: 0.1}}, nil
		})},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCascade(t, tc.fb)
			out := mustEscalate(t, c, context.Background(), escalation(sample(1)))
			wantCause(t, out, guard.ErrFallbackFailed)
			st := c.Stats()
			if st.Failed != 1 || st.CallErrors != 1 {
				t.Errorf("stats = %+v; want 1 failed", st)
			}
			checkStats(t, st)
		})
	}
	t.Run("left out and abstained", func(t *testing.T) {
		c := newCascade(t, guard.JudgeFunc(func(_ context.Context, r guard.Request) ([]guard.Estimate, error) {
			return []guard.Estimate{guard.Abstain(guard.Groundedness, "", "quote not found")}, nil
		}))
		out := mustEscalate(t, c, context.Background(), escalation(sample(1), guard.Groundedness, guard.AnswerRelevance))
		if out[0].Reason != "quote not found" || out[1].Reason != "fallback gave no estimate" {
			t.Errorf("out = %+v", out)
		}
		for _, e := range out {
			if !errors.Is(e.Err(), guard.ErrFallbackAbstained) || e.Cause != guard.CauseFallbackAbstained {
				t.Errorf("estimate %v: Cause %q, Err() %v; want fallback_abstained", e.Decision, e.Cause, e.Err())
			}
		}
		// Abstentions are not cached.
		mustEscalate(t, c, context.Background(), escalation(sample(1), guard.Groundedness))
		st := c.Stats()
		if st.FallbackAbstained != 3 || st.CacheHits != 0 {
			t.Errorf("stats = %+v", st)
		}
		checkStats(t, st)
	})
}

func TestBreakerOpensAndCloses(t *testing.T) {
	var fail sync.Map
	fail.Store("on", true)
	f := &fake{P: 0.9, Hook: func(context.Context, guard.Request) error {
		if v, _ := fail.Load("on"); v.(bool) {
			return errors.New("HTTP 500")
		}
		return nil
	}}
	var mu sync.Mutex
	var changes []string
	c := newCascade(t, f, cascade.WithCacheSize(-1), cascade.WithBreakerSettings(gobreaker.Settings{
		Name:        "test",
		Timeout:     30 * time.Millisecond, // gobreaker takes no clock: keep it short
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= 3 },
		OnStateChange: func(_ string, from, to gobreaker.State) {
			mu.Lock()
			changes = append(changes, from.String()+"->"+to.String())
			mu.Unlock()
		},
	}))
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		wantCause(t, mustEscalate(t, c, ctx, escalation(sample(i))), guard.ErrFallbackFailed)
	}
	if st := c.Stats(); st.BreakerState != "open" || st.BreakerTrips != 1 {
		t.Fatalf("after 3 failures: %+v; want open, 1 trip", st)
	}
	wantCause(t, mustEscalate(t, c, ctx, escalation(sample(9))), guard.ErrFallbackBreakerOpen)
	if f.Calls() != 3 {
		t.Errorf("fallback called %d times while open; want 3", f.Calls())
	}
	fail.Store("on", false)
	waitFor(t, 2*time.Second, func() bool { return c.Stats().BreakerState == "half-open" })
	out := mustEscalate(t, c, ctx, escalation(sample(10)))
	if out[0].Abstained || out[0].P != 0.9 {
		t.Errorf("probe = %+v; want settled", out[0])
	}
	st := c.Stats()
	if st.BreakerState != "closed" {
		t.Errorf("state = %s; want closed", st.BreakerState)
	}
	checkStats(t, st)
	mu.Lock()
	defer mu.Unlock()
	if got := strings.Join(changes, " "); got != "closed->open open->half-open half-open->closed" {
		t.Errorf("transitions = %q", got)
	}
}

func TestCallerCancellationNotCounted(t *testing.T) {
	release := make(chan struct{})
	f := &fake{P: 0.9, Hook: func(ctx context.Context, _ guard.Request) error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-release:
			return nil
		}
	}}
	cb := gobreaker.NewCircuitBreaker[[]guard.Estimate](gobreaker.Settings{
		Name: "caller", IsExcluded: cascade.IsExcluded,
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= 1 },
	})
	c := newCascade(t, f, cascade.WithBreaker(cb), cascade.WithLimits(cascade.Limits{Reserve: time.Millisecond}))
	// The caller's deadline passes while the fallback hangs.
	for i := 0; i < 3; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		out := mustEscalate(t, c, ctx, escalation(sample(i)))
		cancel()
		if !out[0].Abstained {
			t.Fatalf("out = %+v; want abstained", out[0])
		}
		if err := out[0].Err(); !errors.Is(err, guard.ErrFallbackDeadline) || errors.Is(err, guard.ErrFallbackCancelled) {
			t.Errorf("out[0].Err() = %v (cause %q); want the deadline's cause, not a cancellation", err, out[0].Cause)
		}
	}
	// The caller cancels.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(10*time.Millisecond, cancel)
	wantCause(t, mustEscalate(t, c, ctx, escalation(sample(7))), guard.ErrFallbackCancelled)
	// Wait for the cancelled call to end (the flight is cancelled when its
	// last waiter leaves).
	// The cascade counts the exclusion just after the breaker does: wait
	// for both.
	waitFor(t, time.Second, func() bool {
		return cb.Counts().Requests == cb.Counts().TotalExclusions && cb.Counts().Requests == 4 && c.Stats().CallsExcluded == 4
	})
	if cnt := cb.Counts(); cnt.TotalFailures != 0 || cb.State() != gobreaker.StateClosed {
		t.Errorf("counts = %+v, state %v; want 4 exclusions, no failure, closed", cnt, cb.State())
	}
	st := c.Stats()
	if st.CallsExcluded != 4 || st.CallErrors != 0 {
		t.Errorf("stats = %+v", st)
	}
	checkStats(t, st)
	close(release)
}

func TestCallTimeoutCounts(t *testing.T) {
	f := &fake{P: 0.9, Hook: func(ctx context.Context, _ guard.Request) error {
		<-ctx.Done()
		return ctx.Err()
	}}
	c := newCascade(t, f, cascade.WithLimits(cascade.Limits{CallTimeout: 10 * time.Millisecond}),
		cascade.WithBreakerSettings(gobreaker.Settings{ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= 2 }}))
	// A call stopped by CallTimeout is a deadline (issue 18 item 2), and a
	// failure of the fallback for the breaker.
	for i := 0; i < 2; i++ {
		wantCause(t, mustEscalate(t, c, context.Background(), escalation(sample(i))), guard.ErrFallbackDeadline)
	}
	if st := c.Stats(); st.BreakerState != "open" || st.CallErrors != 2 {
		t.Errorf("stats = %+v; want the hung fallback to open the breaker", st)
	}
}

func TestDeadlineTooNear(t *testing.T) {
	clk := newClock()
	f := &fake{P: 0.9, Hook: func(context.Context, guard.Request) error {
		clk.Advance(200 * time.Millisecond) // a simulated slow fallback
		return nil
	}}
	c := newCascade(t, f, cascade.WithClock(clk.Now), cascade.WithCacheSize(-1),
		cascade.WithLimits(cascade.Limits{MinLatencySamples: 3, LatencyWindow: 8}))
	for i := 0; i < 3; i++ {
		mustEscalate(t, c, context.Background(), escalation(sample(i)))
	}
	if p := c.Stats().LatencyP95; p != 200*time.Millisecond {
		t.Fatalf("p95 = %v; want 200ms", p)
	}
	// 100 ms left by the cascade's clock, below the p95: skipped, with no
	// call made.
	out := mustEscalate(t, c, within(t, clk, 100*time.Millisecond), escalation(sample(5)))
	wantCause(t, out, guard.ErrFallbackDeadline)
	if f.Calls() != 3 {
		t.Errorf("%d calls; want the fallback skipped", f.Calls())
	}
	// Enough time left: called.
	if out := mustEscalate(t, c, within(t, clk, 5*time.Second), escalation(sample(6))); out[0].Abstained {
		t.Errorf("out = %+v; want settled", out[0])
	}
	// A p95 nobody refreshed goes stale: after LatencyMaxAge the fallback
	// is tried again even with little time left.
	wantCause(t, mustEscalate(t, c, within(t, clk, 100*time.Millisecond), escalation(sample(7))), guard.ErrFallbackDeadline)
	clk.Advance(31 * time.Second)
	calls := f.Calls()
	// Tried, and answered 200 ms into the 100 ms it had: a late answer is
	// a deadline, not a result.
	wantCause(t, mustEscalate(t, c, within(t, clk, 100*time.Millisecond), escalation(sample(8))), guard.ErrFallbackDeadline)
	if f.Calls() != calls+1 {
		t.Errorf("a stale p95 still skipped the fallback")
	}
	st := c.Stats()
	if st.RefusedDeadline != 3 {
		t.Errorf("stats = %+v", st)
	}
	checkStats(t, st)
}

func TestBudget(t *testing.T) {
	t.Run("calls", func(t *testing.T) {
		clk := newClock()
		f := &fake{P: 0.9}
		c := newCascade(t, f, cascade.WithClock(clk.Now), cascade.WithCacheSize(-1),
			cascade.WithBudget(cascade.Budget{Window: time.Minute, MaxCalls: 3}))
		for i := 0; i < 3; i++ {
			if out := mustEscalate(t, c, context.Background(), escalation(sample(i))); out[0].Abstained {
				t.Fatalf("call %d refused: %s", i, out[0].Reason)
			}
			clk.Advance(10 * time.Second)
		}
		wantCause(t, mustEscalate(t, c, context.Background(), escalation(sample(3))), guard.ErrFallbackBudget)
		clk.Advance(35 * time.Second) // the first call leaves the window
		if out := mustEscalate(t, c, context.Background(), escalation(sample(4))); out[0].Abstained {
			t.Errorf("after the window slid: %s", out[0].Reason)
		}
		wantCause(t, mustEscalate(t, c, context.Background(), escalation(sample(5))), guard.ErrFallbackBudget)
		st := c.Stats()
		if st.RefusedBudget != 2 || f.Calls() != 4 {
			t.Errorf("stats = %+v, calls %d", st, f.Calls())
		}
		checkStats(t, st)
	})
	t.Run("tokens", func(t *testing.T) {
		clk := newClock()
		f := &fake{P: 0.9, Tokens: 100}
		c := newCascade(t, f, cascade.WithClock(clk.Now), cascade.WithCacheSize(-1),
			cascade.WithBudget(cascade.Budget{Window: time.Hour, MaxTokens: 250}))
		got := ""
		for i := 0; i < 4; i++ {
			out := mustEscalate(t, c, context.Background(), escalation(sample(i)))
			if out[0].Abstained {
				got += "R"
			} else {
				got += "ok,"
			}
		}
		// 100, 200 (< 250: the third call may run and overshoot), 300: refused.
		if got != "ok,ok,ok,R" {
			t.Errorf("sequence = %s; want ok,ok,ok,R", got)
		}
		if st := c.Stats(); st.InputTokens != 300 {
			t.Errorf("tokens = %d; want 300", st.InputTokens)
		}
	})
}

func TestConcurrencyLimit(t *testing.T) {
	for _, waiting := range []int{0, 1, cascade.NoLimit} {
		t.Run(map[int]string{0: "degrade", 1: "wait", cascade.NoLimit: "unbounded"}[waiting], func(t *testing.T) {
			release := make(chan struct{})
			entered := make(chan struct{}, 8)
			f := &fake{P: 0.9, Hook: func(ctx context.Context, _ guard.Request) error {
				entered <- struct{}{}
				select {
				case <-release:
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			}}
			c := newCascade(t, f, cascade.WithLimits(cascade.Limits{MaxConcurrent: 2, MaxWaiting: waiting}))
			var wg sync.WaitGroup
			results := make([][]guard.Estimate, 3)
			for i := 0; i < 2; i++ {
				wg.Add(1)
				go func() { defer wg.Done(); results[i] = mustEscalate(t, c, context.Background(), escalation(sample(i))) }()
			}
			<-entered
			<-entered
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			if waiting == 0 {
				wantCause(t, mustEscalate(t, c, ctx, escalation(sample(2))), guard.ErrFallbackConcurrency)
				close(release)
			} else {
				wg.Add(1)
				go func() { defer wg.Done(); results[2] = mustEscalate(t, c, ctx, escalation(sample(2))) }()
				// The third call waits for a slot: it is counted as waiting
				// (which it is only while blocked) and has not called.
				waitFor(t, 5*time.Second, func() bool { return cascade.Waiting(c) == 1 })
				if f.Calls() != 2 {
					t.Errorf("%d calls under way; want the limit of 2", f.Calls())
				}
				close(release)
			}
			wg.Wait()
			for i, r := range results {
				if r != nil && r[0].Abstained {
					t.Errorf("result %d abstained: %s", i, r[0].Reason)
				}
			}
			checkStats(t, c.Stats())
		})
	}
}

func TestCollapsesIdenticalCalls(t *testing.T) {
	release := make(chan struct{})
	f := &fake{P: 0.7, Tokens: 50, Hook: func(ctx context.Context, _ guard.Request) error {
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}}
	c := newCascade(t, f)
	const n = 10
	var wg sync.WaitGroup
	outs := make([][]guard.Estimate, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); outs[i] = mustEscalate(t, c, context.Background(), escalation(sample(1))) }()
	}
	waitFor(t, time.Second, func() bool { return c.Stats().Collapsed == n-1 })
	close(release)
	wg.Wait()
	if f.Calls() != 1 {
		t.Errorf("fallback called %d times; want 1", f.Calls())
	}
	tokens := 0
	for _, o := range outs {
		if o[0].P != 0.7 {
			t.Errorf("out = %+v", o[0])
		}
		tokens += o[0].Usage.InputTokens
	}
	if tokens != 50 {
		t.Errorf("tokens over all callers = %d; want 50 (counted once)", tokens)
	}
	checkStats(t, c.Stats())
}

func TestCloseWaitsAndRefuses(t *testing.T) {
	release := make(chan struct{})
	f := &fake{P: 0.9, Hook: func(ctx context.Context, _ guard.Request) error { <-release; return nil }}
	c, err := cascade.New(f)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan []guard.Estimate)
	go func() { out, _ := c.Escalate(context.Background(), escalation(sample(1))); done <- out }()
	waitFor(t, time.Second, func() bool { return f.Calls() == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	if err := c.Close(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Close with a call under way = %v; want DeadlineExceeded", err)
	}
	cancel()
	wantCause(t, mustEscalate(t, c, context.Background(), escalation(sample(2))), guard.ErrFallbackClosed)
	close(release)
	if out := <-done; out[0].Abstained {
		t.Errorf("the call under way = %+v; want it to finish", out[0])
	}
	if err := c.Close(context.Background()); err != nil {
		t.Errorf("Close: %v", err)
	}
}

func TestMetrics(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer mp.Shutdown(context.Background())
	f := &fake{P: 0.9, Tokens: 10}
	c := newCascade(t, f, cascade.WithMeterProvider(mp))
	mustEscalate(t, c, context.Background(), escalation(sample(1)))
	mustEscalate(t, c, context.Background(), escalation(sample(1)))
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != cascade.ScopeName {
			continue
		}
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					k := m.Name
					for _, kv := range p.Attributes.ToSlice() {
						if kv.Key != cascade.AttrBreaker {
							k += "|" + kv.Value.Emit()
						}
					}
					got[k] += p.Value
				}
			case metricdata.Gauge[int64]:
				for _, p := range d.DataPoints {
					got[m.Name] = p.Value + 100
				}
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					got[m.Name] += int64(p.Count)
				}
			}
		}
	}
	want := map[string]int64{
		cascade.MetricCache + "|hit":        1,
		cascade.MetricCache + "|miss":       1,
		cascade.MetricFallbackCalls + "|ok": 1,
		cascade.MetricTokens:                10,
		cascade.MetricFallbackTime:          1,
		cascade.MetricBreakerState:          100, // closed
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %d; want %d (all: %v)", k, got[k], v, got)
		}
	}
}

func TestDescribe(t *testing.T) {
	c := newCascade(t, &fake{})
	if d := c.Describe(); d.Name != "cascade(fake)" || d.Version != "1" {
		t.Errorf("Describe = %+v", d)
	}
	var _ guard.Escalator = c
	var _ guard.Describer = c
	// It returns before its context's deadline: the guard calls it on the
	// caller's goroutine.
	if h, ok := any(c).(guard.ContextHonourer); !ok || !h.HonoursContext() {
		t.Error("a Cascade does not say it honours its context")
	}
}

// A p95 that says "too slow" must not lock out a fallback that became fast
// again: once per ProbeInterval without an observation one caller goes
// through; a fast answer starts a new window, a slow one keeps the skip.
func TestLatencyProbe(t *testing.T) {
	clk := newClock()
	var slow atomic.Bool
	slow.Store(true)
	f := &fake{P: 0.9, Hook: func(context.Context, guard.Request) error {
		if slow.Load() {
			clk.Advance(200 * time.Millisecond) // a simulated slow fallback
		}
		return nil
	}}
	c := newCascade(t, f, cascade.WithClock(clk.Now), cascade.WithCacheSize(-1),
		cascade.WithLimits(cascade.Limits{MinLatencySamples: 3, LatencyWindow: 8, ProbeInterval: time.Second}))
	for i := range 3 {
		mustEscalate(t, c, context.Background(), escalation(sample(i)))
	}
	// 100 ms left by the cascade's clock each time, below the p95.
	near := func() context.Context { return within(t, clk, 100*time.Millisecond) }
	// Within the interval: skipped.
	wantCause(t, mustEscalate(t, c, near(), escalation(sample(10))), guard.ErrFallbackDeadline)
	// Still slow: the probe goes through, answers slowly, and the next
	// caller is skipped again (one probe per interval).
	clk.Advance(1100 * time.Millisecond)
	calls := f.Calls()
	mustEscalate(t, c, near(), escalation(sample(11)))
	if f.Calls() != calls+1 {
		t.Fatalf("no probe after the interval")
	}
	wantCause(t, mustEscalate(t, c, near(), escalation(sample(12))), guard.ErrFallbackDeadline)
	if p := c.Stats().LatencyP95; p != 200*time.Millisecond {
		t.Fatalf("p95 after a slow probe = %v; want 200ms kept", p)
	}
	// Recovered: the next probe is fast, the window starts again and the
	// callers after it are served.
	slow.Store(false)
	clk.Advance(1100 * time.Millisecond)
	for i := 13; i < 18; i++ {
		if out := mustEscalate(t, c, near(), escalation(sample(i))); out[0].Abstained {
			t.Fatalf("sample %d: %+v; want settled after a fast probe", i, out[0])
		}
	}
	st := c.Stats()
	if st.Probes != 2 || st.RefusedDeadline != 2 {
		t.Errorf("stats = %+v; want 2 probes and 2 refusals", st)
	}
	checkStats(t, st)
}

// A collapsed call runs until the latest deadline of the callers waiting on
// it: the caller that started it leaving at its own (short) deadline does
// not cut the call short for a caller with more time.
func TestCollapsedCallTakesLatestDeadline(t *testing.T) {
	release := make(chan struct{})
	f := &fake{P: 0.7, Hook: func(ctx context.Context, _ guard.Request) error {
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}}
	c := newCascade(t, f)
	short, cancel1 := context.WithTimeout(context.Background(), time.Second)
	defer cancel1()
	first := make(chan []guard.Estimate, 1)
	go func() { first <- mustEscalate(t, c, short, escalation(sample(1))) }()
	waitFor(t, 5*time.Second, func() bool { return f.Calls() == 1 })
	long, cancel2 := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel2()
	second := make(chan []guard.Estimate, 1)
	go func() { second <- mustEscalate(t, c, long, escalation(sample(1))) }()
	waitFor(t, 5*time.Second, func() bool { return c.Stats().Collapsed == 1 })
	// The first caller returns at its own deadline, unsettled. Which
	// reason text it gets depends on whether its deadline had passed when
	// it woke ("deadline too near: …" or "request ended …: context
	// deadline exceeded"); the cause is the deadline either way.
	wantCause(t, <-first, guard.ErrFallbackDeadline)
	// The call goes on for the second one.
	close(release)
	out := <-second
	if out[0].Abstained || out[0].P != 0.7 {
		t.Fatalf("second caller got %+v; want the shared call's answer", out[0])
	}
	if f.Calls() != 1 {
		t.Errorf("fallback called %d times; want 1", f.Calls())
	}
	checkStats(t, c.Stats())
}
