package guard_test

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/guardtest"
)

// batchJudge is a ClaimJudge: JudgeClaims answers what the per-claim judge
// answers for each claim, in one call. broken, when set, rewrites the
// batch's answer.
type batchJudge struct {
	inner  guard.Judge
	broken func([]guard.Estimate) ([]guard.Estimate, error)

	judgeCalls, batchCalls atomic.Int64
}

func (b *batchJudge) Judge(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
	b.judgeCalls.Add(1)
	return b.inner.Judge(ctx, req)
}

func (b *batchJudge) JudgeClaims(ctx context.Context, s *guard.Sample, claims []string) ([]guard.Estimate, error) {
	b.batchCalls.Add(1)
	out := make([]guard.Estimate, 0, len(claims))
	for _, c := range claims {
		cs := *s
		cs.Answer = c
		ests, err := b.inner.Judge(ctx, guard.Request{Sample: &cs, Decisions: []guard.Decision{guard.Groundedness}})
		if err != nil {
			return nil, err
		}
		out = append(out, ests...)
	}
	if b.broken != nil {
		return b.broken(out)
	}
	return out, nil
}

func (b *batchJudge) Describe() guard.JudgeInfo {
	return guard.JudgeInfo{Name: "claims", Version: "c1"}
}

// perClaimJudge is the same judge without JudgeClaims.
type perClaimJudge struct{ inner guard.Judge }

func (p perClaimJudge) Judge(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
	return p.inner.Judge(ctx, req)
}

func (perClaimJudge) Describe() guard.JudgeInfo {
	return guard.JudgeInfo{Name: "claims", Version: "c1"}
}

func claimsSample() (guard.Sample, guard.ClaimExtractor) {
	s := newSample(false, "c1", "c2")
	s.Answer = "Refunds take five days. They are free. They need a receipt"
	split := guard.ClaimExtractorFunc(func(_ context.Context, s *guard.Sample) ([]string, error) {
		return strings.Split(s.Answer, ". "), nil
	})
	return s, split
}

// A ClaimJudge is asked about every claim in one call, and the result is
// the one the per-claim calls give: with or without an escalator, whether
// the claims pass, fail or stay uncertain.
func TestClaimJudgeJudgesAllClaimsInOneCall(t *testing.T) {
	s, split := claimsSample()
	for _, tc := range []struct {
		name     string
		probs    map[string]float64
		escalate bool
	}{
		{"weakest fails", map[string]float64{"Refunds take five days": 0.95, "They are free": 0.9, "They need a receipt": 0.05}, false},
		{"all pass", map[string]float64{"Refunds take five days": 0.95, "They are free": 0.9, "They need a receipt": 0.85}, false},
		{"one uncertain, escalated", map[string]float64{"Refunds take five days": 0.95, "They are free": 0.5, "They need a receipt": 0.9}, true},
		{"two uncertain, no escalator", map[string]float64{"Refunds take five days": 0.5, "They are free": 0.5, "They need a receipt": 0.9}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evaluate := func(j guard.Judge) guard.Result {
				opts := []guard.Option{guard.WithJudge(j), guard.WithPolicy(testPolicy), guard.WithClaims(split), fixedClock}
				if tc.escalate {
					opts = append(opts, guard.WithEscalator(&escalator{judge: guardtest.Fixed{Default: 0.97}}, testPolicy, guard.FailClosed))
				}
				res, err := mustNew(t, opts...).Evaluate(context.Background(), s)
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			want := evaluate(perClaimJudge{claimJudge(tc.probs)})
			bj := &batchJudge{inner: claimJudge(tc.probs)}
			got := evaluate(bj)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("with JudgeClaims:\n%+v\nper claim:\n%+v", got, want)
			}
			if n, m := bj.batchCalls.Load(), bj.judgeCalls.Load(); n != 1 || m != 1 {
				t.Errorf("JudgeClaims called %d times, Judge %d times; want 1 and 1 (the whole answer)", n, m)
			}
			if len(got.Claims) != 3 {
				t.Errorf("claims = %+v; want 3", got.Claims)
			}
		})
	}
}

// The estimates JudgeClaims returns are checked like any judge's: a
// malformed answer, a wrong count, an error or a panic make every claim
// uncertain, with one failure reported, and never a pass.
func TestClaimJudgeFailures(t *testing.T) {
	s, split := claimsSample()
	probs := map[string]float64{"Refunds take five days": 0.95, "They are free": 0.9, "They need a receipt": 0.85}
	for _, tc := range []struct {
		name   string
		broken func([]guard.Estimate) ([]guard.Estimate, error)
		want   string
	}{
		{"one estimate short", func(out []guard.Estimate) ([]guard.Estimate, error) { return out[:2], nil }, "2 estimates for 3 claims"},
		{"NaN", func(out []guard.Estimate) ([]guard.Estimate, error) { out[1].P = math.NaN(); return out, nil }, "NaN"},
		{"P=1.5", func(out []guard.Estimate) ([]guard.Estimate, error) { out[0].P = 1.5; return out, nil }, "outside [0, 1]"},
		{"decision not asked", func(out []guard.Estimate) ([]guard.Estimate, error) {
			out[2].Decision = guard.AnswerRelevance
			return out, nil
		}, "not asked"},
		{"context named", func(out []guard.Estimate) ([]guard.Estimate, error) { out[0].ContextID = "c1"; return out, nil }, "names context"},
		{"error", func([]guard.Estimate) ([]guard.Estimate, error) { return nil, errors.New("claims down") }, "claims down"},
		{"panic", func([]guard.Estimate) ([]guard.Estimate, error) { panic("kaboom") }, "panicked: kaboom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bj := &batchJudge{inner: claimJudge(probs), broken: tc.broken}
			g := mustNew(t, guard.WithJudge(bj), guard.WithPolicy(testPolicy), guard.WithClaims(split))
			res, err := g.Evaluate(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			if res.Diagnosis == guard.PassDiagnosis || res.Action == guard.Allow {
				t.Errorf("diagnosis %v, action %v; want no pass", res.Diagnosis, res.Action)
			}
			if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Message, tc.want) || res.Errors[0].Cause != guard.CauseJudgeFailed {
				t.Errorf("errors = %+v; want one judge failure mentioning %q", res.Errors, tc.want)
			}
			for i, c := range res.Claims {
				if c.Verdict != guard.Uncertain || c.Cause != guard.CauseJudgeFailed {
					t.Errorf("claim %d = %+v; want uncertain, judge_failed", i, c)
				}
			}
			if res.Abstentions == nil || res.Verdicts.Generation.Groundedness != guard.Uncertain {
				t.Errorf("groundedness verdict %v, abstentions %+v; want uncertain, abstained", res.Verdicts.Generation.Groundedness, res.Abstentions)
			}
		})
	}
}

// honouring is an escalator that says it honours its context but, to test
// the guard, waits for the context to end and then answers a pass.
type honouring struct {
	honours bool
	entered chan struct{}
	release chan struct{} // nil: return when ctx ends
	calls   sync.WaitGroup
}

func (h *honouring) Escalate(ctx context.Context, esc guard.Escalation) ([]guard.Estimate, error) {
	h.calls.Add(1)
	defer h.calls.Done()
	close(h.entered)
	if h.release != nil {
		<-h.release
	} else {
		<-ctx.Done()
	}
	out := make([]guard.Estimate, 0, len(esc.Decisions))
	for _, d := range esc.Decisions {
		out = append(out, guard.Estimate{Decision: d, P: 0.99})
	}
	return out, nil
}

func (h *honouring) HonoursContext() bool { return h.honours }

// An escalator that honours its context runs on the caller's goroutine: no
// call is abandoned. Its answer after the context ended is refused all the
// same, so it never yields a pass. One that does not say so runs on a
// goroutine of its own, abandoned when the context ends first.
func TestContextHonourerRunsOnTheCaller(t *testing.T) {
	for _, honours := range []bool{true, false} {
		t.Run(map[bool]string{true: "honours", false: "does not say"}[honours], func(t *testing.T) {
			h := &honouring{honours: honours, entered: make(chan struct{})}
			if !honours {
				h.release = make(chan struct{}) // it ignores its context
			}
			g := mustNew(t, guard.WithJudge(uncertainGroundedness()), guard.WithPolicy(testPolicy),
				guard.WithEscalator(h, testPolicy, guard.FailClosed))
			ctx, cancel := context.WithCancel(context.Background())
			go func() { <-h.entered; cancel() }()
			res, err := g.Evaluate(ctx, newSample(false, "c1"))
			if err != nil {
				t.Fatal(err)
			}
			if h.release != nil {
				close(h.release)
			}
			h.calls.Wait()
			if res.Diagnosis == guard.PassDiagnosis || res.Action != guard.Block {
				t.Errorf("diagnosis %v, action %v; want no pass once the context ended, blocked", res.Diagnosis, res.Action)
			}
			if res.Fallback == nil || res.Fallback.Cause != guard.CauseCancelled {
				t.Errorf("fallback %+v; want unsettled, cancelled", res.Fallback)
			}
			wantTotal := uint64(0)
			if !honours {
				wantTotal = 1
			}
			if a := g.Abandoned(); a.Total != wantTotal {
				t.Errorf("Abandoned() = %+v; want %d abandoned calls", a, wantTotal)
			}
		})
	}
}
