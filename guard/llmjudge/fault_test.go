package llmjudge_test

// Fault tests: the cascade around an LLM judge that talks real HTTP, through
// langchaingo's OpenAI client, to a fake OpenAI-compatible server (a
// simulation) that fails in the ways real servers do. Every evaluation goes
// through guard.Evaluate with a primary judge that leaves everything
// uncertain, so every row is escalated.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sony/gobreaker/v2"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/guardtest"
	"github.com/ragtriage/ragtriage/guard/llmjudge"
	"github.com/ragtriage/ragtriage/internal/fakeopenai"
)

// goodModel answers like a competent judge for refundSample-shaped rows: a
// quoted yes for groundedness, no for conflict and contradiction, yes
// otherwise.
func goodModel(r fakeopenai.Request) fakeopenai.Reply {
	sys := r.Role("system")
	switch {
	case strings.Contains(sys, "QUOTE [context id]"):
		return fakeopenai.YesNo(0.95, "Yes\nQUOTE [c1]: Refunds are accepted within 30 days of delivery")
	case strings.Contains(sys, "contradict"), strings.Contains(sys, "materially disagree"):
		return fakeopenai.YesNo(0.04, "No")
	}
	return fakeopenai.YesNo(0.96, "Yes")
}

func policy() guard.Policy {
	var p guard.Policy
	for _, d := range guard.Decisions {
		p.Set(d, guard.Thresholds{Fail: 0.2, Pass: 0.8})
	}
	return p
}

// rig is a guard whose fallback is a cascade around an LLM judge on a fake
// server.
type rig struct {
	srv *fakeopenai.Server
	c   *cascade.Cascade
	g   *guard.Guard
}

func newRig(t *testing.T, model fakeopenai.Model, rule guard.Degrade, opts ...cascade.Option) *rig {
	t.Helper()
	srv, llm, _ := setup(t, model)
	// One model call at a time per row: a failing row then sends no more
	// requests once it has failed.
	j := newJudge(t, llm, llmjudge.Config{Mode: llmjudge.LogprobsOnly, Parallel: 1})
	c, err := cascade.New(j, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := c.Close(ctx); err != nil {
			t.Errorf("cascade Close: %v", err)
		}
	})
	g, err := guard.New(guard.WithJudge(guardtest.Fixed{Default: 0.5, Name: "primary"}), guard.WithPolicy(policy()),
		guard.WithEscalator(c, policy(), rule))
	if err != nil {
		t.Fatal(err)
	}
	return &rig{srv: srv, c: c, g: g}
}

func row(i int) guard.Sample {
	s := *refundSample()
	s.ID = fmt.Sprint("row-", i)
	s.Question = fmt.Sprintf("How long do I have to return item %d?", i)
	return s
}

// eval evaluates one row and checks the invariants every row must keep: a
// result, never a silent pass when the fallback did not settle everything.
func (r *rig) eval(t *testing.T, ctx context.Context, i int) guard.Result {
	t.Helper()
	res, _ := r.g.Evaluate(ctx, row(i))
	if res.Diagnosis == "" || res.DecisionID == "" {
		t.Fatalf("row %d: no result", i)
	}
	if res.Fallback == nil {
		t.Fatalf("row %d: not escalated", i)
	}
	if res.Fallback.Unsettled > 0 && res.Diagnosis == guard.PassDiagnosis {
		t.Errorf("row %d: PASS with %d unsettled decisions", i, res.Fallback.Unsettled)
	}
	return res
}

// wantUnsettled checks that the fallback left res unsettled for the cause
// whose sentinel is cause (matched with errors.Is, not by the reason's
// text), with a reason that mentions detail.
func wantUnsettled(t *testing.T, res guard.Result, rule guard.Degrade, cause error, detail string) {
	t.Helper()
	f := res.Fallback
	want := guard.Block
	if rule == guard.FailOpen {
		want = guard.Allow
	}
	if res.Diagnosis != guard.JudgeUncertain || f.Unsettled == 0 || !errors.Is(f.Err(), cause) || !strings.Contains(f.Reason, detail) || res.Action != want {
		t.Errorf("result %s: diagnosis %s, fallback %+v, action %v; want JUDGE_UNCERTAIN, unsettled (%v, reason with %q), action %v",
			res.DecisionID, res.Diagnosis, *f, res.Action, cause, detail, want)
	}
}

func TestFaultHealthy(t *testing.T) {
	r := newRig(t, goodModel, guard.FailClosed)
	res := r.eval(t, context.Background(), 1)
	if res.Diagnosis != guard.PassDiagnosis || res.Action != guard.Allow || res.Fallback.Unsettled != 0 {
		t.Fatalf("diagnosis %s action %v fallback %+v; want PASS, allow, all settled", res.Diagnosis, res.Action, *res.Fallback)
	}
	if res.Usage.InputTokens == 0 || res.Usage.Calls == 0 {
		t.Errorf("usage %+v; want the fallback's tokens", res.Usage)
	}
	// The same row again: from the cache, no request.
	n := r.srv.Count()
	r.eval(t, context.Background(), 1)
	if r.srv.Count() != n || r.c.Stats().CacheHits == 0 {
		t.Errorf("repeat made %d requests, stats %+v; want cache hits", r.srv.Count()-n, r.c.Stats())
	}
}

func TestFaultBreakerOpensAndCloses(t *testing.T) {
	var broken atomic.Bool
	broken.Store(true)
	r := newRig(t, func(req fakeopenai.Request) fakeopenai.Reply {
		if broken.Load() {
			return fakeopenai.Reply{Status: http.StatusInternalServerError, Message: "upstream exploded"}
		}
		return goodModel(req)
	}, guard.FailClosed, cascade.WithBreakerSettings(gobreaker.Settings{
		Timeout:     50 * time.Millisecond, // gobreaker takes no clock: a short timeout instead
		ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= 3 },
	}))
	for i := 0; i < 3; i++ {
		wantUnsettled(t, r.eval(t, context.Background(), i), guard.FailClosed, guard.ErrFallbackFailed, "upstream exploded")
	}
	if st := r.c.Stats(); st.BreakerState != "open" || st.BreakerTrips != 1 {
		t.Fatalf("stats %+v; want the breaker open", st)
	}
	n := r.srv.Count()
	for i := 3; i < 6; i++ {
		start := time.Now()
		wantUnsettled(t, r.eval(t, context.Background(), i), guard.FailClosed, guard.ErrFallbackBreakerOpen, "")
		if d := time.Since(start); d > 200*time.Millisecond {
			t.Errorf("a refused row took %v", d)
		}
	}
	if r.srv.Count() != n {
		t.Errorf("%d requests while the breaker was open", r.srv.Count()-n)
	}
	broken.Store(false)
	waitOpenToHalf(t, r.c)
	res := r.eval(t, context.Background(), 6)
	if res.Diagnosis != guard.PassDiagnosis {
		t.Errorf("after recovery: %s, %+v", res.Diagnosis, *res.Fallback)
	}
	if st := r.c.Stats(); st.BreakerState != "closed" {
		t.Errorf("state %s; want closed", st.BreakerState)
	}
}

func waitOpenToHalf(t *testing.T, c *cascade.Cascade) {
	t.Helper()
	end := time.Now().Add(2 * time.Second)
	for c.Stats().BreakerState != "half-open" {
		if time.Now().After(end) {
			t.Fatal("breaker never half-opened")
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func TestFaultDeadlines(t *testing.T) {
	for _, fault := range []struct {
		name  string
		reply fakeopenai.Reply
	}{
		{"slow", fakeopenai.Reply{Delay: 2 * time.Second, Choices: []string{"Yes"}}},
		{"hang", fakeopenai.Reply{Hang: true}},
	} {
		t.Run(fault.name, func(t *testing.T) {
			r := newRig(t, func(fakeopenai.Request) fakeopenai.Reply { return fault.reply }, guard.FailOpen,
				// No latency probe within the test (TestLatencyProbe covers
				// probes): a loaded machine can stretch five rows past
				// the default 500ms ProbeInterval.
				cascade.WithLimits(cascade.Limits{MinLatencySamples: 2, LatencyWindow: 8, ProbeInterval: time.Hour}))
			const deadline = 100 * time.Millisecond
			// Slack for a loaded CI machine under -race; the cascade itself
			// answers half its reserve (5ms) before the deadline.
			const slack = 150 * time.Millisecond
			for i := 0; i < 5; i++ {
				ctx, cancel := context.WithTimeout(context.Background(), deadline)
				start := time.Now()
				res := r.eval(t, ctx, i)
				took := time.Since(start)
				cancel()
				if took > deadline+slack {
					t.Errorf("row %d took %v; deadline %v", i, took, deadline)
				}
				// The cascade says "deadline too near"; if the machine was
				// so loaded that it answered late, the guard cut it off
				// at the deadline itself: the cause is the deadline either
				// way.
				f := res.Fallback
				if res.Diagnosis != guard.JudgeUncertain || f.Unsettled == 0 || res.Action != guard.Allow ||
					!errors.Is(f.Err(), guard.ErrFallbackDeadline) {
					t.Errorf("row %d: diagnosis %s fallback %+v action %v", i, res.Diagnosis, *f, res.Action)
				}
			}
			st := waitQuiet(t, r.c)
			// The caller's deadlines never count against the breaker; once
			// the p95 is known, rows skip the fallback at once.
			if st.BreakerState != "closed" || st.CallErrors != 0 || st.CallsExcluded < 2 || st.Calls >= 5 {
				t.Errorf("stats %+v; want closed, no errors, calls excluded, later rows skipped", st)
			}
		})
	}
	t.Run("call timeout counts", func(t *testing.T) {
		r := newRig(t, func(fakeopenai.Request) fakeopenai.Reply { return fakeopenai.Reply{Hang: true} }, guard.FailClosed,
			cascade.WithLimits(cascade.Limits{CallTimeout: 30 * time.Millisecond}),
			cascade.WithBreakerSettings(gobreaker.Settings{ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= 2 }}))
		for i := 0; i < 3; i++ {
			r.eval(t, context.Background(), i)
		}
		if st := r.c.Stats(); st.BreakerState != "open" || st.CallErrors != 2 || st.RefusedBreaker == 0 {
			t.Errorf("stats %+v; want a hung server to open the breaker", st)
		}
	})
}

func TestFaultRetryAfter(t *testing.T) {
	var seen sync.Map // each distinct prompt is refused once
	r := newRig(t, func(req fakeopenai.Request) fakeopenai.Reply {
		if _, again := seen.LoadOrStore(req.Text(), true); !again {
			return fakeopenai.Reply{Status: http.StatusTooManyRequests, RetryAfter: "0.02", Message: "rate limit exceeded"}
		}
		return goodModel(req)
	}, guard.FailClosed)
	res := r.eval(t, context.Background(), 1)
	if res.Diagnosis != guard.PassDiagnosis || res.Usage.Retries == 0 {
		t.Errorf("diagnosis %s usage %+v; want PASS after retries", res.Diagnosis, res.Usage)
	}
	// Retry-After beyond what the transport waits (1s in setup): degrade.
	r.srv.SetModel(func(fakeopenai.Request) fakeopenai.Reply {
		return fakeopenai.Reply{Status: http.StatusTooManyRequests, RetryAfter: "20", Message: "rate limit exceeded"}
	})
	wantUnsettled(t, r.eval(t, context.Background(), 2), guard.FailClosed, guard.ErrFallbackFailed, "429")
}

func TestFaultBadBodies(t *testing.T) {
	for _, rep := range []fakeopenai.Reply{
		{Choices: []string{"Yes"}, Truncate: true},
		{Body: "upstream proxy error: <html>502</html>"},
		{Body: `{"choices": [`},
		{Body: `{"choices": []}`},
	} {
		r := newRig(t, func(fakeopenai.Request) fakeopenai.Reply { return rep }, guard.FailClosed)
		wantUnsettled(t, r.eval(t, context.Background(), 1), guard.FailClosed, guard.ErrFallbackFailed, "")
		if st := r.c.Stats(); st.CallErrors != 1 {
			t.Errorf("body %q: stats %+v; want one counted failure", rep.Body, st)
		}
	}
}

// TestFaultNoEvaluationLost runs many rows at once against a server whose
// faults vary by row, with a tight concurrency limit: every row must get a
// result within its deadline, and the cascade's counts must add up.
func TestFaultNoEvaluationLost(t *testing.T) {
	faults := []func(fakeopenai.Request) fakeopenai.Reply{
		goodModel,
		func(fakeopenai.Request) fakeopenai.Reply { return fakeopenai.Reply{Status: 500} },
		func(fakeopenai.Request) fakeopenai.Reply {
			return fakeopenai.Reply{Status: 429, RetryAfter: "0.01", Message: "rate limit exceeded"}
		},
		func(fakeopenai.Request) fakeopenai.Reply { return fakeopenai.Reply{Delay: 300 * time.Millisecond} },
		func(fakeopenai.Request) fakeopenai.Reply { return fakeopenai.Reply{Hang: true} },
		func(fakeopenai.Request) fakeopenai.Reply {
			return fakeopenai.Reply{Choices: []string{"Yes"}, Truncate: true}
		},
		func(fakeopenai.Request) fakeopenai.Reply { return fakeopenai.Reply{Body: "not json"} },
		func(r fakeopenai.Request) fakeopenai.Reply {
			rep := goodModel(r)
			rep.Delay = 20 * time.Millisecond
			return rep
		},
	}
	model := func(req fakeopenai.Request) fakeopenai.Reply {
		var i int
		fmt.Sscanf(req.Text()[strings.Index(req.Text(), "return item ")+len("return item "):], "%d", &i)
		return faults[i%len(faults)](req)
	}
	r := newRig(t, model, guard.FailClosed,
		cascade.WithLimits(cascade.Limits{MaxConcurrent: 6, MaxWaiting: 12}),
		cascade.WithBreakerSettings(gobreaker.Settings{ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= 1000 }}))
	const rows, workers = 48, 12
	const deadline = 150 * time.Millisecond
	results := make([]guard.Result, rows)
	var late atomic.Int64
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= rows {
					return
				}
				ctx, cancel := context.WithTimeout(context.Background(), deadline)
				start := time.Now()
				results[i], _ = r.g.Evaluate(ctx, row(i))
				if time.Since(start) > deadline+150*time.Millisecond { // slack for a loaded machine
					late.Add(1)
				}
				cancel()
			}
		}()
	}
	wg.Wait()
	pass, unsettled := 0, 0
	for i, res := range results {
		switch {
		case res.Diagnosis == "" || res.Fallback == nil:
			t.Errorf("row %d lost: %+v", i, res)
		case res.Diagnosis == guard.PassDiagnosis:
			pass++
			if res.Fallback.Unsettled != 0 {
				t.Errorf("row %d passed with unsettled decisions", i)
			}
		default:
			unsettled++
			if res.Action != guard.Block {
				t.Errorf("row %d: %s with action %v; want block (fail-closed)", i, res.Diagnosis, res.Action)
			}
		}
	}
	if late.Load() > rows/10 {
		t.Errorf("%d rows returned after their deadline", late.Load())
	}
	if pass == 0 || unsettled == 0 {
		t.Errorf("pass %d, unsettled %d; want both kinds", pass, unsettled)
	}
	st := waitQuiet(t, r.c)
	t.Logf("%d rows: %d PASS, %d unsettled; stats %+v", rows, pass, unsettled, st)
}

// waitQuiet waits until every escalation has been counted (an escalation the
// guard stopped waiting for at the deadline may still be finishing) and
// returns the stats, failing if the counts never add up.
func waitQuiet(t *testing.T, c *cascade.Cascade) cascade.Stats {
	t.Helper()
	end := time.Now().Add(3 * time.Second)
	for {
		st := c.Stats()
		if st.Requested == st.CacheHits+st.Settled+st.Abstained {
			return st
		}
		if time.Now().After(end) {
			t.Fatalf("counts do not add up: %+v", st)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
