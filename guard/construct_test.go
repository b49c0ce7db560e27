package guard_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/guardtest"
)

// nilJudge is a judge type whose nil pointer a failed constructor returns.
type nilJudge struct{ name string }

func (j *nilJudge) Judge(context.Context, guard.Request) ([]guard.Estimate, error) { return nil, nil }
func (j *nilJudge) Describe() guard.JudgeInfo                                      { return guard.JudgeInfo{Name: j.name} }

type nilEscalator struct{ name string }

func (e *nilEscalator) Escalate(context.Context, guard.Escalation) ([]guard.Estimate, error) {
	return nil, nil
}
func (e *nilEscalator) Describe() guard.JudgeInfo { return guard.JudgeInfo{Name: e.name} }

// A nil or typed-nil collaborator is refused with an error, never a panic.
func TestConstructorsRefuseNil(t *testing.T) {
	var (
		j  *nilJudge
		e  *nilEscalator
		jf guard.JudgeFunc
		x  guard.ClaimExtractorFunc
	)
	for name, opt := range map[string]guard.Option{
		"WithJudge(nil)":                   guard.WithJudge(nil),
		"WithJudge((*T)(nil))":             guard.WithJudge(j),
		"WithJudge(JudgeFunc(nil))":        guard.WithJudge(jf),
		"WithEscalator(nil)":               guard.WithEscalator(nil, testPolicy, guard.FailClosed),
		"WithEscalator((*T)(nil))":         guard.WithEscalator(e, testPolicy, guard.FailClosed),
		"WithClaims(ClaimExtractorFunc())": guard.WithClaims(x),
		"WithDiagnoser(nil)":               guard.WithDiagnoser(nil),
	} {
		g, err := guard.New(opt)
		if err == nil || g != nil {
			t.Errorf("%s: New = %v, %v; want an error", name, g, err)
			continue
		}
		if strings.Contains(name, "(*T)") && !strings.Contains(err.Error(), "nil *guard_test.") {
			t.Errorf("%s: error %q does not name the typed nil", name, err)
		}
	}
}

// A fallback policy that cannot read the fallback's answers is refused,
// with an error that says what to do.
func TestWithEscalatorRefusesUnreadablePolicy(t *testing.T) {
	fb := &escalator{judge: guardtest.Fixed{Default: 0.9}}
	_, err := guard.New(guard.WithEscalator(fb, guard.Policy{}, guard.FailClosed))
	if err == nil || !strings.Contains(err.Error(), "zero") || !strings.Contains(err.Error(), "UniformPolicy") {
		t.Errorf("zero fallback policy: %v; want a refusal naming guard.UniformPolicy", err)
	}
	partial := guard.UniformPolicy(0.3, 0.7)
	partial.Set(guard.Correctness, guard.Thresholds{})
	_, err = guard.New(guard.WithEscalator(fb, partial, guard.FailClosed))
	if err == nil || !strings.Contains(err.Error(), "correctness") {
		t.Errorf("fallback policy without correctness: %v; want a refusal naming correctness", err)
	}
	// Undecided is a choice, not an omission.
	partial.Set(guard.Correctness, guard.Undecided())
	if _, err := guard.New(guard.WithEscalator(fb, partial, guard.FailClosed)); err != nil {
		t.Errorf("fallback policy with correctness undecided: %v", err)
	}
	if _, err := guard.New(guard.WithEscalator(fb, guard.UniformPolicy(0.7, 0.3), guard.FailClosed)); err == nil {
		t.Error("UniformPolicy(0.7, 0.3) accepted")
	}
}

func TestUniformPolicy(t *testing.T) {
	p := guard.UniformPolicy(0.3, 0.7)
	for _, d := range guard.Decisions {
		if got := p.For(d); got != (guard.Thresholds{Fail: 0.3, Pass: 0.7}) {
			t.Errorf("UniformPolicy(0.3, 0.7).For(%v) = %+v", d, got)
		}
	}
	if p.PassRule != guard.PassAll {
		t.Errorf("pass rule %v; want all", p.PassRule)
	}
	if err := p.Validate(); err != nil {
		t.Error(err)
	}
}

// calibrated is a judge that brings a policy.
type calibrated struct {
	guardtest.Fixed
	pol guard.Policy
}

func (c calibrated) Policy() guard.Policy { return c.pol }

// Without WithPolicy a guard reads each decision with the policy of the
// Calibrated judge that answers it; WithPolicy overrides it.
func TestCalibratedJudgeBringsPolicy(t *testing.T) {
	pol := guard.UniformPolicy(0.1, 0.9)
	pol.PassRule = guard.PassGrounded
	j := calibrated{Fixed: guardtest.Fixed{Default: 0.95}, pol: pol}
	g := mustNew(t, guard.WithJudge(j))
	if g.Policy() != pol {
		t.Errorf("policy %+v; want the judge's %+v", g.Policy(), pol)
	}
	if g := mustNew(t, guard.WithJudge(j), guard.WithPolicy(testPolicy)); g.Policy() != testPolicy {
		t.Errorf("explicit policy replaced: %+v", g.Policy())
	}
	// A later judge takes groundedness; it brings no policy, so groundedness
	// is unset and the pass rule is the strictest.
	g = mustNew(t, guard.WithJudge(j), guard.WithJudge(guardtest.Fixed{Default: 0.95}, guard.Groundedness))
	if p := g.Policy(); !p.For(guard.Groundedness).IsZero() || p.For(guard.AnswerRelevance) != pol.AnswerRelevance || p.PassRule != guard.PassAll {
		t.Errorf("mixed judges: policy %+v", p)
	}
	// A judge whose policy is invalid is refused.
	bad := calibrated{pol: guard.UniformPolicy(0.9, 0.1)}
	if _, err := guard.New(guard.WithJudge(bad)); err == nil {
		t.Error("judge with an invalid policy accepted")
	}
}
