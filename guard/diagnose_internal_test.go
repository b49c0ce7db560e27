package guard

import (
	"context"
	"sync"
	"testing"
)

// precedence is the order in which diagnose notes uncertain decisions.
var precedence = [...]Decision{ContextConflict, ChunkRelevance, ContextSufficiency, AnswerRelevance, Groundedness, Contradiction, Correctness}

// reasonParts are the texts diagnose builds each kind of reason from.
func reasonParts(kind int) (lead, prefix, suffix string) {
	switch {
	case kind < reasonReview:
		return findings[kind-reasonFound], " (also uncertain: ", ")"
	case kind == reasonReview:
		return "", "uncertain: ", reasonNoFallback
	case kind == reasonFallback:
		return "", "uncertain: ", ""
	}
	return "every decision the pass rule " + PassRule(kind-reasonWaived).String(), " requires passed (uncertain, waived: ", ")"
}

// TestCachedReason: for every kind and every set of uncertain decisions,
// the kept reason is the one names builds, on the first call and on the
// next, also when goroutines ask for it at once (run with -race).
func TestCachedReason(t *testing.T) {
	for kind := range numReasonKinds {
		lead, prefix, suffix := reasonParts(kind)
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for set := range 1 << numDecisions {
					var dg diagnosis
					for _, d := range precedence {
						if set&(1<<(d-1)) != 0 {
							dg.unsure(d)
						}
					}
					if int(dg.set) != set {
						t.Errorf("set %07b: diagnosis noted %07b", set, dg.set)
						return
					}
					want := names(lead+prefix, dg.uncertain(), suffix)
					for range 2 {
						if got := dg.cachedReason(kind, lead, prefix, suffix); got != want {
							t.Errorf("goroutine %d: kind %d, set %07b: %q; want %q", g, kind, set, got, want)
							return
						}
					}
				}
			}()
		}
		wg.Wait()
	}
}

// TestDecisionFields: Result.fields reads what Result.slots locates, with
// and without a correctness verdict.
func TestDecisionFields(t *testing.T) {
	for _, withRef := range []bool{false, true} {
		var r Result
		for i, d := range Decisions[1:] {
			if d == Correctness && !withRef {
				r.Generation.Correctness = Prob{Value: 0.5} // asked false, no verdict
				continue
			}
			r.Set(d, KnownProb(float64(i+1)/10), Verdict(i%3))
		}
		var f decisionFields
		r.fields(&f)
		for _, d := range Decisions[1:] {
			p, v, _ := r.slots(d, false)
			if f[d].p != *p || f[d].has != (v != nil) || v != nil && f[d].v != *v {
				t.Errorf("reference %v, %v: fields %+v; slots %+v, %v", withRef, d, f[d], *p, v)
			}
		}
	}
}

// funcDiagnoser is a Diagnoser of a type that cannot be compared.
type funcDiagnoser func(*Result) Outcome

func (f funcDiagnoser) Diagnose(r *Result) Outcome { return f(r) }
func (funcDiagnoser) Version() string              { return "func/1" }

// TestDefaultDiagnoserReassigned sets DefaultDiagnoser to rules of a type
// that cannot be compared, as a caller may: a guard built with it, with an
// escalator or without, uses those rules and does not panic.
func TestDefaultDiagnoserReassigned(t *testing.T) {
	old := DefaultDiagnoser
	defer func() { DefaultDiagnoser = old }()
	called := 0
	DefaultDiagnoser = funcDiagnoser(func(r *Result) Outcome {
		called++
		return Outcome{Diagnosis: JudgeUncertain, Route: RouteReview, Reason: "custom"}
	})
	half := JudgeFunc(func(ctx context.Context, req Request) ([]Estimate, error) {
		var out []Estimate
		for _, d := range req.Decisions {
			if d == ChunkRelevance {
				for _, c := range req.Sample.Contexts {
					out = append(out, Estimate{Decision: d, ContextID: c.ID, P: 0.5})
				}
				continue
			}
			out = append(out, Estimate{Decision: d, P: 0.5})
		}
		return out, nil
	})
	g, err := New(WithJudge(half))
	if err != nil {
		t.Fatal(err)
	}
	r, err := g.Evaluate(context.Background(), Sample{Question: "q?", Answer: "a.", Contexts: []Context{{ID: "c1", Text: "a."}}})
	if err != nil {
		t.Fatal(err)
	}
	if called != 1 || r.Reason != "custom" {
		t.Fatalf("the reassigned DefaultDiagnoser ran %d times, reason %q; want once and %q", called, r.Reason, "custom")
	}
}
