package guard_test

import (
	"context"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
)

// The escalator is told the embedded judges' estimates of what it is
// asked (without their evidence) and the pass rule, so that it can rank
// escalations; the result keeps the inclusion probability it states.
func TestEscalationCarriesPrimary(t *testing.T) {
	var p guard.Policy
	for _, d := range guard.Decisions {
		p.Set(d, guard.Thresholds{Fail: 0.2, Pass: 0.8})
	}
	p.PassRule = guard.PassGrounded
	primary := guard.JudgeFunc(func(_ context.Context, req guard.Request) ([]guard.Estimate, error) {
		return []guard.Estimate{
			{Decision: guard.Groundedness, P: 0.4, Evidence: []guard.Evidence{{Decision: guard.Groundedness, Kind: "unsupported"}}},
			{Decision: guard.AnswerRelevance, P: 0.95},
		}, nil
	})
	var got guard.Escalation
	esc := guard.EscalatorFunc(func(_ context.Context, e guard.Escalation) ([]guard.Estimate, error) {
		got = e
		return []guard.Estimate{{Decision: guard.Groundedness, P: 0.1, Inclusion: 0.25}}, nil
	})
	g, err := guard.New(guard.WithPolicy(p), guard.WithJudge(primary, guard.Groundedness, guard.AnswerRelevance), guard.WithEscalator(esc, p, guard.FailClosed))
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.Evaluate(context.Background(), guard.Sample{Question: "q?", Answer: "a.", Contexts: []guard.Context{{ID: "c1", Text: "t."}}})
	if err != nil {
		t.Fatal(err)
	}
	var ground *guard.Estimate
	for i := range got.Primary {
		if got.Primary[i].Decision == guard.AnswerRelevance {
			t.Errorf("Primary holds answer relevance, which was decided, not escalated")
		}
		if got.Primary[i].Decision == guard.Groundedness {
			ground = &got.Primary[i]
		}
	}
	if ground == nil || ground.P != 0.4 || ground.Evidence != nil || got.PassRule != guard.PassGrounded {
		t.Fatalf("escalation: primary %+v, pass rule %v; want groundedness 0.4 without evidence, rule grounded", got.Primary, got.PassRule)
	}
	if res.Fallback == nil || res.Fallback.Inclusion != 0.25 {
		t.Errorf("fallback %+v; want inclusion 0.25", res.Fallback)
	}
}

// brokenGroundedPass is a monitor that reports groundedness's pass side
// broken and records nothing.
type brokenGroundedPass struct{}

func (brokenGroundedPass) Broken(*guard.Promise) guard.Sides {
	return guard.SidesOf(guard.Side{Decision: guard.Groundedness, Verdict: guard.Pass})
}

func (brokenGroundedPass) Observe(context.Context, *guard.Promise, []guard.AuditOutcome) error {
	return nil
}

// A side the monitor withholds escalates, and its primary estimate reaches
// the escalator abstained (cause promise_broken): the broken, confident P
// must not make a risk-ranking escalator take the answer for a safe one.
func TestWithheldPrimaryAbstains(t *testing.T) {
	var p guard.Policy
	for _, d := range guard.Decisions {
		p.Set(d, guard.Thresholds{Fail: 0.2, Pass: 0.8})
	}
	primary := guard.JudgeFunc(func(_ context.Context, req guard.Request) ([]guard.Estimate, error) {
		return []guard.Estimate{{Decision: guard.Groundedness, P: 0.97}, {Decision: guard.AnswerRelevance, P: 0.95}}, nil
	})
	var got guard.Escalation
	esc := guard.EscalatorFunc(func(_ context.Context, e guard.Escalation) ([]guard.Estimate, error) {
		got = e
		return []guard.Estimate{{Decision: guard.Groundedness, P: 0.9}}, nil
	})
	g, err := guard.New(guard.WithPolicy(p), guard.WithJudge(primary, guard.Groundedness, guard.AnswerRelevance),
		guard.WithEscalator(esc, p, guard.FailClosed), guard.WithMonitor(brokenGroundedPass{}))
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.Evaluate(context.Background(), guard.Sample{Question: "q?", Answer: "a.", Contexts: []guard.Context{{ID: "c1", Text: "t."}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Withheld) == 0 || res.Fallback == nil {
		t.Fatalf("withheld %+v, fallback %+v; want groundedness withheld and escalated", res.Withheld, res.Fallback)
	}
	found := false
	for _, e := range got.Primary {
		if e.Decision != guard.Groundedness {
			continue
		}
		found = true
		if !e.Abstained || e.Cause != guard.CausePromiseBroken {
			t.Errorf("primary groundedness %+v reached the escalator; want abstained, cause promise_broken", e)
		}
	}
	if !found {
		t.Errorf("primary estimates %+v: no groundedness", got.Primary)
	}
}
