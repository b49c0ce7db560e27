package guard_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragtriage/ragtriage/guard"
)

// splitClaims splits an answer into claims at ". ".
var splitClaims = guard.ClaimExtractorFunc(func(_ context.Context, s *guard.Sample) ([]string, error) {
	return strings.Split(s.Answer, ". "), nil
})

// twoClaimSample has two claims, both of which claimJudge(uncertainClaims)
// leaves uncertain.
func twoClaimSample() guard.Sample {
	s := newSample(false, "c1", "c2")
	s.Answer = "Refunds take five days. They need a receipt"
	return s
}

var uncertainClaims = map[string]float64{"Refunds take five days": 0.5, "They need a receipt": 0.5}

// countingEscalator settles every decision it is asked (P 0.95), and counts
// its calls.
type countingEscalator struct {
	mu    sync.Mutex
	asked []guard.Escalation
}

func (e *countingEscalator) Escalate(_ context.Context, esc guard.Escalation) ([]guard.Estimate, error) {
	e.mu.Lock()
	e.asked = append(e.asked, esc)
	e.mu.Unlock()
	var out []guard.Estimate
	for _, d := range esc.Decisions {
		if d == guard.ChunkRelevance {
			for _, id := range esc.ContextIDs {
				out = append(out, guard.Estimate{Decision: d, ContextID: id, P: 0.95})
			}
			continue
		}
		out = append(out, guard.Estimate{Decision: d, P: 0.95, Usage: guard.Usage{Calls: 1}})
	}
	return out, nil
}

func (e *countingEscalator) calls() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.asked)
}

// TestClaimsNotEscalatedWhenDiagnosisConfident: every chunk is irrelevant,
// so the diagnosis is a confident RETRIEVAL_MISS whatever the claims say.
// Claims mode must not ask (and pay) the fallback for its uncertain claims:
// the result routes as it does without claims.
func TestClaimsNotEscalatedWhenDiagnosisConfident(t *testing.T) {
	irrelevant := guard.JudgeFunc(func(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
		out, err := claimJudge(uncertainClaims).Judge(ctx, req)
		for i := range out {
			switch out[i].Decision {
			case guard.ChunkRelevance:
				out[i].P = 0.01
			case guard.Groundedness:
				out[i].P = 0.5
			}
		}
		return out, err
	})
	for _, claims := range []bool{false, true} {
		fb := &countingEscalator{}
		opts := []guard.Option{guard.WithJudge(irrelevant), guard.WithPolicy(testPolicy),
			guard.WithEscalator(fb, testPolicy, guard.FailClosed)}
		if claims {
			opts = append(opts, guard.WithClaims(splitClaims))
		}
		res, err := mustNew(t, opts...).Evaluate(context.Background(), twoClaimSample())
		if err != nil {
			t.Fatal(err)
		}
		if res.Diagnosis != guard.RetrievalMiss || res.Route != guard.Auto || fb.calls() != 0 || res.Fallback != nil {
			t.Errorf("claims %v: diagnosis %v route %v, %d escalator calls, fallback %+v; want RETRIEVAL_MISS auto, none",
				claims, res.Diagnosis, res.Route, fb.calls(), res.Fallback)
		}
		for _, c := range res.Claims {
			if c.Escalated {
				t.Errorf("claims %v: claim %q escalated", claims, c.Text)
			}
		}
	}
}

// TestClaimsEscalatedWithTheOtherDecisions: when the diagnosis is
// JUDGE_UNCERTAIN, the uncertain claims go to the fallback in the same
// escalation as the other uncertain decisions, and one FallbackInfo counts
// them all (each claim as one).
func TestClaimsEscalatedWithTheOtherDecisions(t *testing.T) {
	unsure := guard.JudgeFunc(func(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
		out, err := claimJudge(uncertainClaims).Judge(ctx, req)
		for i := range out {
			if out[i].Decision == guard.AnswerRelevance {
				out[i].P = 0.5
			}
		}
		return out, err
	})
	fb := &countingEscalator{}
	g := mustNew(t, guard.WithJudge(unsure), guard.WithPolicy(testPolicy), guard.WithClaims(splitClaims),
		guard.WithEscalator(fb, testPolicy, guard.FailClosed))
	res, err := g.Evaluate(context.Background(), twoClaimSample())
	if err != nil {
		t.Fatal(err)
	}
	f := res.Fallback
	if f == nil || fb.calls() != 3 || res.Route != guard.Fallback || res.Diagnosis != guard.PassDiagnosis {
		t.Fatalf("%d escalator calls, route %v, diagnosis %v, fallback %+v; want 3 calls (2 claims, 1 for answer relevance) and a pass",
			fb.calls(), res.Route, res.Diagnosis, f)
	}
	if decisionSet(f.Decisions) != "[answer_relevance groundedness]" || f.Settled != 3 || f.Unsettled != 0 || f.Usage.Calls != 3 {
		t.Errorf("fallback info %+v; want answer relevance and groundedness, 3 settled, 3 calls", f)
	}
	if g := res.Generation.Groundedness; !g.Known || g.Value != 0.95 {
		t.Errorf("groundedness %+v; want the weakest claim's, as the fallback answered it (0.95)", g)
	}
	for _, c := range res.Claims {
		if !c.Escalated || c.Verdict != guard.Pass {
			t.Errorf("claim %+v; want escalated and passed", c)
		}
	}
	if res.Usage.Calls != 3 {
		t.Errorf("result usage %+v; want the fallback's 3 calls", res.Usage)
	}
}

// endingEscalator ends the request while it is asked, then waits for the
// guard to give up on it. It does not honour its context: the guard calls it
// on a goroutine of its own.
type endingEscalator struct {
	end   func()
	mu    sync.Mutex
	calls int
}

func (e *endingEscalator) Escalate(ctx context.Context, _ guard.Escalation) ([]guard.Estimate, error) {
	e.mu.Lock()
	e.calls++
	e.mu.Unlock()
	e.end()
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestFailOpenClaimsRequestEndsDuringEscalation: a request cancelled while
// the fallback is asked leaves the escalation unsettled. That is not an
// unavailable fallback, so FailOpen gives review, never allow (issue 18
// item 2; it was allow). Claims mode must give the same action.
func TestFailOpenClaimsRequestEndsDuringEscalation(t *testing.T) {
	for _, claims := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		fb := &endingEscalator{end: cancel}
		opts := []guard.Option{guard.WithJudge(claimJudge(uncertainClaims)), guard.WithPolicy(testPolicy),
			guard.WithEscalator(fb, testPolicy, guard.FailOpen)}
		if claims {
			opts = append(opts, guard.WithClaims(splitClaims))
		} else {
			opts[0] = guard.WithJudge(uncertainGroundedness())
		}
		res, err := mustNew(t, opts...).Evaluate(ctx, twoClaimSample())
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		f := res.Fallback
		if res.Diagnosis != guard.JudgeUncertain || res.Action != guard.Review || f == nil || f.Causes[guard.CauseCancelled] != f.Unsettled || f.Unsettled == 0 {
			t.Errorf("claims %v: diagnosis %v action %v fallback %+v; want JUDGE_UNCERTAIN review, every unsettled decision cancelled",
				claims, res.Diagnosis, res.Action, f)
		}
	}
}

// expiring is a context whose deadline passes when expire is called.
type expiring struct {
	context.Context
	once sync.Once
	done chan struct{}
	dl   time.Time
}

func newExpiring() *expiring {
	return &expiring{Context: context.Background(), done: make(chan struct{}), dl: time.Now().Add(time.Hour)}
}

func (c *expiring) expire()                     { c.once.Do(func() { close(c.done) }) }
func (c *expiring) Done() <-chan struct{}       { return c.done }
func (c *expiring) Deadline() (time.Time, bool) { return c.dl, true }

func (c *expiring) Err() error {
	select {
	case <-c.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// honouringFailer honours its context, ends the request while it is asked,
// and fails with an error that wraps no cause.
type honouringFailer struct{ end func() }

func (e honouringFailer) Escalate(context.Context, guard.Escalation) ([]guard.Estimate, error) {
	e.end()
	return nil, errors.New("boom")
}

func (honouringFailer) HonoursContext() bool { return true }

// TestEscalatorErrorAfterTheRequestEnded: an escalator error that wraps no
// cause, returned after the request ended, takes the request's end as its
// cause (see JudgeError.Cause); one returned before it is fallback_failed.
func TestEscalatorErrorAfterTheRequestEnded(t *testing.T) {
	for _, tc := range []struct {
		name string
		ctx  func() (context.Context, func())
		want guard.Cause
	}{
		{"deadline passes", func() (context.Context, func()) { c := newExpiring(); return c, c.expire }, guard.CauseDeadline},
		{"cancelled", func() (context.Context, func()) { return context.WithCancel(context.Background()) }, guard.CauseCancelled},
		{"request still running", func() (context.Context, func()) { return context.Background(), func() {} }, guard.CauseFallbackFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, end := tc.ctx()
			g := mustNew(t, guard.WithJudge(uncertainGroundedness()), guard.WithPolicy(testPolicy),
				guard.WithEscalator(honouringFailer{end: end}, testPolicy, guard.FailClosed))
			res, err := g.Evaluate(ctx, newSample(false, "c1"))
			end()
			if err != nil {
				t.Fatal(err)
			}
			if f := res.Fallback; f == nil || f.Cause != tc.want || len(res.Errors) != 1 || res.Errors[0].Cause != tc.want {
				t.Errorf("fallback %+v, errors %+v; want cause %s", f, res.Errors, tc.want)
			}
		})
	}
}

// TestClaimsUsageCountsTheWholeAnswer: claims mode also judges the whole
// answer's groundedness (for its citations); that call's usage counts in
// Result.Usage beside each claim's.
func TestClaimsUsageCountsTheWholeAnswer(t *testing.T) {
	priced := guard.JudgeFunc(func(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
		out, err := claimJudge(map[string]float64{"Refunds take five days": 0.95, "They need a receipt": 0.9}).Judge(ctx, req)
		for i := range out {
			if out[i].Decision == guard.Groundedness {
				out[i].Usage = guard.Usage{Calls: 1, InputTokens: 10}
			}
		}
		return out, err
	})
	g := mustNew(t, guard.WithJudge(priced), guard.WithPolicy(testPolicy), guard.WithClaims(splitClaims))
	res, err := g.Evaluate(context.Background(), twoClaimSample())
	if err != nil {
		t.Fatal(err)
	}
	if want := (guard.Usage{Calls: 3, InputTokens: 30}); res.Usage != want || len(res.Claims) != 2 {
		t.Errorf("usage %+v with %d claims; want %+v (the whole answer and two claims)", res.Usage, len(res.Claims), want)
	}
}

// lateAnswerer honours its context, ends the request while it is asked, and
// answers anyway: a late answer, refused, that still spent a call.
type lateAnswerer struct {
	end   func()
	calls *atomic.Int64
}

func (e lateAnswerer) Escalate(_ context.Context, esc guard.Escalation) ([]guard.Estimate, error) {
	e.calls.Add(1)
	e.end()
	var out []guard.Estimate
	for _, d := range esc.Decisions {
		out = append(out, guard.Estimate{Decision: d, P: 0.95, Usage: guard.Usage{Calls: 1, InputTokens: 7}})
	}
	return out, nil
}

func (lateAnswerer) HonoursContext() bool { return true }

// TestLateClaimAnswersStillCountTheirUsage: a fallback answer that comes
// after the request's deadline decides nothing, but what it spent is
// charged, in claims mode as without it. Claims are asked concurrently, so
// the second claim may or may not be asked before the first one's answer
// ends the request: every call made is charged.
func TestLateClaimAnswersStillCountTheirUsage(t *testing.T) {
	for _, claims := range []bool{false, true} {
		c := newExpiring()
		var calls atomic.Int64
		opts := []guard.Option{guard.WithJudge(claimJudge(uncertainClaims)), guard.WithPolicy(testPolicy),
			guard.WithEscalator(lateAnswerer{end: c.expire, calls: &calls}, testPolicy, guard.FailClosed)}
		if claims {
			opts = append(opts, guard.WithClaims(splitClaims))
		} else {
			opts[0] = guard.WithJudge(uncertainGroundedness())
		}
		res, err := mustNew(t, opts...).Evaluate(c, twoClaimSample())
		c.expire()
		if err != nil {
			t.Fatal(err)
		}
		n := int(calls.Load())
		want := guard.Usage{Calls: n, InputTokens: 7 * n}
		f := res.Fallback
		if n == 0 || f == nil || f.Settled != 0 || f.Usage != want || res.Diagnosis != guard.JudgeUncertain {
			t.Errorf("claims %v: diagnosis %v, fallback %+v; want nothing settled and usage %+v", claims, res.Diagnosis, f, want)
		}
	}
}
