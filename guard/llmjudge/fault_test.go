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

// gateBreaker is a circuit breaker the test moves by hand, where gobreaker
// would wait for its Timeout (gobreaker takes no clock). It opens after trip
// consecutive failures and refuses calls while open. After halfOpen it lets
// one call through: a success closes it, a failure opens it again. Calls the
// caller ended (cascade.IsExcluded) are not counted. Safe for concurrent use.
type gateBreaker struct {
	trip int

	mu      sync.Mutex
	state   gobreaker.State
	fails   int
	probing bool
}

func (b *gateBreaker) Name() string { return "gate" }

func (b *gateBreaker) State() gobreaker.State {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state
}

// halfOpen moves an open breaker to half-open.
func (b *gateBreaker) halfOpen() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state == gobreaker.StateOpen {
		b.state = gobreaker.StateHalfOpen
	}
}

func (b *gateBreaker) Execute(req func() ([]guard.Estimate, error)) ([]guard.Estimate, error) {
	if err := b.admit(); err != nil {
		return nil, err
	}
	ests, err := req()
	b.record(err)
	return ests, err
}

// admit says whether a call may start: not while open, and one at a time
// while half-open.
func (b *gateBreaker) admit() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.state == gobreaker.StateOpen:
		return gobreaker.ErrOpenState
	case b.state == gobreaker.StateHalfOpen && b.probing:
		return gobreaker.ErrTooManyRequests
	case b.state == gobreaker.StateHalfOpen:
		b.probing = true
	}
	return nil
}

// record counts a call's outcome and moves the state.
func (b *gateBreaker) record(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.probing = false
	switch {
	case cascade.IsExcluded(err):
	case err == nil:
		b.state, b.fails = gobreaker.StateClosed, 0
	case b.state == gobreaker.StateHalfOpen:
		b.state, b.fails = gobreaker.StateOpen, 0
	default:
		if b.fails++; b.fails >= b.trip {
			b.state, b.fails = gobreaker.StateOpen, 0
		}
	}
}

func TestFaultBreakerOpensAndCloses(t *testing.T) {
	var broken atomic.Bool
	broken.Store(true)
	br := &gateBreaker{trip: 3}
	r := newRig(t, func(req fakeopenai.Request) fakeopenai.Reply {
		if broken.Load() {
			return fakeopenai.Reply{Status: http.StatusInternalServerError, Message: "upstream exploded"}
		}
		return goodModel(req)
	}, guard.FailClosed, cascade.WithBreaker(br))
	for i := 0; i < 3; i++ {
		wantUnsettled(t, r.eval(t, context.Background(), i), guard.FailClosed, guard.ErrFallbackFailed, "upstream exploded")
	}
	if st := r.c.Stats(); st.BreakerState != "open" || st.BreakerTrips != 1 {
		t.Fatalf("stats %+v; want the breaker open", st)
	}
	// While open, rows are refused without a request to the server.
	n := r.srv.Count()
	for i := 3; i < 6; i++ {
		wantUnsettled(t, r.eval(t, context.Background(), i), guard.FailClosed, guard.ErrFallbackBreakerOpen, "")
	}
	if r.srv.Count() != n {
		t.Errorf("%d requests while the breaker was open", r.srv.Count()-n)
	}
	broken.Store(false)
	br.halfOpen()
	res := r.eval(t, context.Background(), 6)
	if res.Diagnosis != guard.PassDiagnosis {
		t.Errorf("after recovery: %s, %+v", res.Diagnosis, *res.Fallback)
	}
	if st := r.c.Stats(); st.BreakerState != "closed" || r.srv.Count() == n {
		t.Errorf("state %s, %d requests after half-open; want closed after the probe's requests", st.BreakerState, r.srv.Count()-n)
	}
}

// TestFaultDeadlines: a fallback server that is slow or hangs, and a
// caller's deadline that passes while the request is at the server (the
// server expires it on arrival). The row comes back unsettled for the
// deadline, and the caller's deadline never counts against the breaker.
func TestFaultDeadlines(t *testing.T) {
	for _, fault := range []struct {
		name  string
		reply fakeopenai.Reply
	}{
		// slow would answer, after the caller has gone (Delay ends when
		// the client goes away); hang never answers.
		{"slow", fakeopenai.Reply{Delay: time.Hour, Choices: []string{"Yes"}}},
		{"hang", fakeopenai.Reply{Hang: true}},
	} {
		t.Run(fault.name, func(t *testing.T) {
			var cur atomic.Pointer[expiring] // the context of the row under way
			r := newRig(t, func(fakeopenai.Request) fakeopenai.Reply {
				cur.Load().expire()
				return fault.reply
			}, guard.FailOpen)
			const rows = 5
			for i := 0; i < rows; i++ {
				ctx := newExpiring()
				cur.Store(ctx)
				res := r.eval(t, ctx, i)
				f := res.Fallback
				if res.Diagnosis != guard.JudgeUncertain || f.Unsettled == 0 || res.Action != guard.Allow ||
					!errors.Is(f.Err(), guard.ErrFallbackDeadline) {
					t.Errorf("row %d: diagnosis %s fallback %+v action %v; want JUDGE_UNCERTAIN, unsettled for the deadline, allow",
						i, res.Diagnosis, *f, res.Action)
				}
			}
			st := r.settle(t)
			if st.BreakerState != "closed" || st.CallErrors != 0 || st.Calls != rows || st.CallsExcluded != rows {
				t.Errorf("stats %+v; want the breaker closed, no call errors, %d calls, all excluded", st, rows)
			}
		})
	}
	t.Run("call timeout counts", func(t *testing.T) {
		// No caller deadline: only CallTimeout ends a call to a hung
		// server, and such a call counts as a failure.
		r := newRig(t, func(fakeopenai.Request) fakeopenai.Reply { return fakeopenai.Reply{Hang: true} }, guard.FailClosed,
			cascade.WithLimits(cascade.Limits{CallTimeout: 30 * time.Millisecond}),
			cascade.WithBreakerSettings(gobreaker.Settings{ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= 2 }}))
		for i := 0; i < 3; i++ {
			r.eval(t, context.Background(), i)
		}
		// CallTimeout bounds each caller's wait, so a call's failure may be
		// recorded just after its caller left: the third call is refused
		// by the open breaker, or made before the second failure counted.
		if st := r.settle(t); st.BreakerState != "open" || st.BreakerTrips != 1 || st.CallErrors != st.Calls ||
			!(st.Calls == 2 && st.RefusedBreaker > 0 || st.Calls == 3 && st.RefusedBreaker == 0) {
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
// result, the one its fault calls for, and the cascade's counts must add
// up. A slow or hung row's deadline passes when its request reaches the
// server, so no outcome depends on the machine's speed.
func TestFaultNoEvaluationLost(t *testing.T) {
	const rows, workers = 48, 12
	ctxs := make([]*expiring, rows)
	for i := range ctxs {
		ctxs[i] = newExpiring()
	}
	expire := func(req fakeopenai.Request) { ctxs[rowOf(req)].expire() }
	type fault struct {
		model fakeopenai.Model
		cause error // nil: the row passes
	}
	faults := []fault{
		{goodModel, nil},
		{func(fakeopenai.Request) fakeopenai.Reply { return fakeopenai.Reply{Status: 500} }, guard.ErrFallbackFailed},
		{func(fakeopenai.Request) fakeopenai.Reply {
			return fakeopenai.Reply{Status: 429, RetryAfter: "0.01", Message: "rate limit exceeded"}
		}, guard.ErrFallbackFailed},
		{func(req fakeopenai.Request) fakeopenai.Reply {
			expire(req)
			return fakeopenai.Reply{Delay: time.Hour}
		}, guard.ErrFallbackDeadline},
		{func(req fakeopenai.Request) fakeopenai.Reply {
			expire(req)
			return fakeopenai.Reply{Hang: true}
		}, guard.ErrFallbackDeadline},
		{func(fakeopenai.Request) fakeopenai.Reply {
			return fakeopenai.Reply{Choices: []string{"Yes"}, Truncate: true}
		}, guard.ErrFallbackFailed},
		{func(fakeopenai.Request) fakeopenai.Reply { return fakeopenai.Reply{Body: "not json"} }, guard.ErrFallbackFailed},
		{func(r fakeopenai.Request) fakeopenai.Reply {
			rep := goodModel(r)
			rep.Delay = 20 * time.Millisecond
			return rep
		}, nil},
	}
	model := func(req fakeopenai.Request) fakeopenai.Reply { return faults[rowOf(req)%len(faults)].model(req) }
	// At most workers rows are under way, within MaxConcurrent+MaxWaiting:
	// no row is refused for concurrency.
	r := newRig(t, model, guard.FailClosed,
		cascade.WithLimits(cascade.Limits{MaxConcurrent: 6, MaxWaiting: 12}),
		cascade.WithBreakerSettings(gobreaker.Settings{ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= 1000 }}))
	results := make([]guard.Result, rows)
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
				results[i], _ = r.g.Evaluate(ctxs[i], row(i))
			}
		}()
	}
	wg.Wait()
	for i, res := range results {
		checkFaultRow(t, i, res, faults[i%len(faults)].cause)
	}
	st := r.settle(t)
	if st.Requested != st.CacheHits+st.Settled+st.Abstained {
		t.Errorf("counts do not add up: %+v", st)
	}
}

// rowOf reads the row number from a request for row(i).
func rowOf(req fakeopenai.Request) int {
	var i int
	text := req.Text()
	fmt.Sscanf(text[strings.Index(text, "return item ")+len("return item "):], "%d", &i)
	return i
}

// checkFaultRow checks the result of row i: a pass when cause is nil, else
// unsettled for cause and blocked (fail-closed).
func checkFaultRow(t *testing.T, i int, res guard.Result, cause error) {
	t.Helper()
	switch {
	case res.Diagnosis == "" || res.Fallback == nil:
		t.Errorf("row %d lost: %+v", i, res)
	case cause == nil:
		if res.Diagnosis != guard.PassDiagnosis || res.Fallback.Unsettled != 0 {
			t.Errorf("row %d: %s, fallback %+v; want PASS, all settled", i, res.Diagnosis, *res.Fallback)
		}
	case res.Diagnosis != guard.JudgeUncertain || res.Fallback.Unsettled == 0 || !errors.Is(res.Fallback.Err(), cause) || res.Action != guard.Block:
		t.Errorf("row %d: %s, fallback %+v, action %v; want JUDGE_UNCERTAIN, unsettled for %v, block (fail-closed)",
			i, res.Diagnosis, *res.Fallback, res.Action, cause)
	}
}

// settle closes the cascade, which waits for the calls under way (a call
// whose caller's deadline passed may still be ending), and returns its
// final stats. The rig's cleanup closes it again, which does nothing.
func (r *rig) settle(t *testing.T) cascade.Stats {
	t.Helper()
	if err := r.c.Close(context.Background()); err != nil {
		t.Fatalf("cascade Close: %v", err)
	}
	return r.c.Stats()
}
