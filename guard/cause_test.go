package guard_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
)

func TestCauseSentinels(t *testing.T) {
	seen := map[error]guard.Cause{}
	for _, c := range guard.Causes {
		if !c.Known() {
			t.Errorf("%q: Known() = false", c)
		}
		s := c.Err()
		if c == guard.CauseFallbackUncertain {
			if s != nil {
				t.Errorf("%q.Err() = %v; want nil (nothing failed)", c, s)
			}
			continue
		}
		if s == nil {
			t.Fatalf("%q.Err() = nil; want a sentinel", c)
		}
		if prev, dup := seen[s]; dup {
			t.Errorf("%q and %q share the sentinel %v", c, prev, s)
		}
		seen[s] = c
		if got := guard.CauseOf(fmt.Errorf("wrapped: %w", s)); got != c {
			t.Errorf("CauseOf(wrapped %v) = %q; want %q", s, got, c)
		}
		e := &guard.CauseError{Cause: c, Reason: "why"}
		if !errors.Is(e, s) || e.Error() != "why" {
			t.Errorf("CauseError{%q}: Is(%v) = %v, Error() = %q", c, s, errors.Is(e, s), e.Error())
		}
		if e := (&guard.CauseError{Cause: c}); e.Error() != s.Error() {
			t.Errorf("CauseError{%q} without a reason: Error() = %q; want %q", c, e.Error(), s.Error())
		}
	}
	if guard.ErrJudge != guard.CauseJudgeFailed.Err() {
		t.Error("CauseJudgeFailed's sentinel is not ErrJudge")
	}
	for _, c := range []guard.Cause{"", "something_new"} {
		if c.Known() || c.Err() != nil {
			t.Errorf("%q: Known() %v, Err() %v; want false, nil", c, c.Known(), c.Err())
		}
	}
	if guard.CauseOf(nil) != "" || guard.CauseOf(errors.New("other")) != "" {
		t.Error("CauseOf of an error without a sentinel is not empty")
	}
	// An escalator's JudgeError wraps ErrJudge and its own cause: the
	// specific one wins.
	je := &guard.JudgeError{Judge: "fb", Err: errors.New("x"), Message: "x", Cause: guard.CauseBudget}
	if guard.CauseOf(je) != guard.CauseBudget || !errors.Is(je, guard.ErrJudge) || !errors.Is(je, guard.ErrFallbackBudget) {
		t.Errorf("CauseOf(JudgeError with cause budget) = %q", guard.CauseOf(je))
	}
}

// causeEscalator abstains on every decision with the cause in its field,
// or fails with err.
type causeEscalator struct {
	cause guard.Cause
	err   error
}

func (e causeEscalator) Escalate(_ context.Context, esc guard.Escalation) ([]guard.Estimate, error) {
	if e.err != nil {
		return nil, e.err
	}
	var out []guard.Estimate
	for _, d := range esc.Decisions {
		a := guard.Abstain(d, "", "refused: "+string(e.cause))
		a.Cause = e.cause
		out = append(out, a)
	}
	return out, nil
}

// TestCausesInResult checks that each cause an escalator reports reaches
// the Result (fallback cause and counts, the abstention of a decision the
// primary gave no estimate for), survives the JSON form, and that errors.Is
// works on both sides of it.
func TestCausesInResult(t *testing.T) {
	for _, tc := range []struct {
		name string
		esc  causeEscalator
		want guard.Cause
	}{
		{"budget", causeEscalator{cause: guard.CauseBudget}, guard.CauseBudget},
		{"breaker", causeEscalator{cause: guard.CauseBreakerOpen}, guard.CauseBreakerOpen},
		{"share", causeEscalator{cause: guard.CauseShare}, guard.CauseShare},
		{"error wrapping share", causeEscalator{err: fmt.Errorf("gate: %w", guard.ErrFallbackShare)}, guard.CauseShare},
		{"no cause", causeEscalator{}, guard.CauseFallbackAbstained},
		{"error", causeEscalator{err: errors.New("HTTP 502")}, guard.CauseFallbackFailed},
		{"error wrapping a cause", causeEscalator{err: fmt.Errorf("pool: %w", guard.ErrFallbackConcurrency)}, guard.CauseConcurrency},
		{"deadline error", causeEscalator{err: fmt.Errorf("slow: %w", context.DeadlineExceeded)}, guard.CauseDeadline},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Groundedness is left to no judge: the escalator's outcome is
			// what the result keeps for it.
			g := mustNew(t, guard.WithJudge(healthyJudge(), guard.ChunkRelevance, guard.ContextSufficiency, guard.ContextConflict, guard.AnswerRelevance, guard.Contradiction),
				guard.WithPolicy(testPolicy), guard.WithEscalator(tc.esc, testPolicy, guard.FailOpen))
			res, err := g.Evaluate(context.Background(), newSample(false, "c1"))
			if err != nil {
				t.Fatalf("Evaluate error = %v; want nil", err)
			}
			b, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			var back guard.Result
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			for where, r := range map[string]*guard.Result{"result": &res, "JSON round trip": &back} {
				f := r.Fallback
				if f == nil || f.Cause != tc.want || !maps.Equal(f.Causes, map[guard.Cause]int{tc.want: 1}) || !errors.Is(f.Err(), tc.want.Err()) {
					t.Errorf("%s: fallback %+v, Err() %v; want cause %q", where, f, f.Err(), tc.want)
				}
				if len(r.Abstentions) != 1 || r.Abstentions[0].Cause != tc.want || !errors.Is(r.Abstentions[0].Err(), tc.want.Err()) {
					t.Errorf("%s: abstentions %+v; want groundedness with cause %q", where, r.Abstentions, tc.want)
				}
				if tc.esc.err != nil && (len(r.Errors) != 1 || r.Errors[0].Cause != tc.want || !errors.Is(r.Err(), tc.want.Err())) {
					t.Errorf("%s: errors %+v; want the escalator's failure with cause %q", where, r.Errors, tc.want)
				}
				// Fail-open: an unavailable fallback lets the answer through,
				// marked unverified; the cause says why.
				if r.Diagnosis != guard.JudgeUncertain || r.Action != guard.Allow {
					t.Errorf("%s: %v/%v; want JUDGE_UNCERTAIN/allow", where, r.Diagnosis, r.Action)
				}
			}
		})
	}
}

// A result says why the fallback left a decision unsettled with a cause
// that errors.Is can match: here the escalator's budget was spent.
func ExampleFallbackInfo_Err() {
	budgetSpent := guard.EscalatorFunc(func(_ context.Context, esc guard.Escalation) ([]guard.Estimate, error) {
		var out []guard.Estimate
		refuse := func(d guard.Decision, contextID string) {
			e := guard.Abstain(d, contextID, "budget spent: 600 calls in the last minute")
			e.Cause = guard.CauseBudget // what package cascade sets
			out = append(out, e)
		}
		for _, d := range esc.Decisions {
			if d == guard.ChunkRelevance {
				for _, id := range esc.ContextIDs {
					refuse(d, id)
				}
				continue
			}
			refuse(d, "")
		}
		return out, nil
	})
	var p guard.Policy
	for _, d := range guard.Decisions {
		p.Set(d, guard.Thresholds{Fail: 0.2, Pass: 0.8})
	}
	g, err := guard.New(guard.WithPolicy(p), guard.WithEscalator(budgetSpent, p, guard.FailClosed))
	if err != nil {
		panic(err)
	}
	res, err := g.Evaluate(context.Background(), guard.Sample{Question: "q?", Answer: "a.",
		Contexts: []guard.Context{{ID: "c1", Text: "text."}}})
	if err != nil {
		panic(err) // no result: an invalid sample
	}
	f := res.Fallback
	fmt.Println(res.Diagnosis, res.Action, f.Cause, f.Causes[guard.CauseBudget])
	fmt.Println(errors.Is(f.Err(), guard.ErrFallbackBudget), errors.Is(f.Err(), guard.ErrFallbackDeadline))
	// Output:
	// JUDGE_UNCERTAIN block budget 6
	// true false
}

// TestCauseWireNames pins the names of the causes: they are part of the
// JSON form and of telemetry, and never change meaning.
func TestCauseWireNames(t *testing.T) {
	want := []string{"abstained", "judge_failed", "input_too_large", "promise_broken",
		"breaker_open", "deadline", "budget", "share", "concurrency", "closed", "cancelled",
		"fallback_failed", "fallback_abstained", "fallback_uncertain"}
	var got []string
	for _, c := range guard.Causes {
		got = append(got, string(c))
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Causes = %v; want %v", got, want)
	}
	if guard.CausePromiseBroken.Err() != guard.ErrPromiseBroken {
		t.Errorf("CausePromiseBroken.Err() = %v", guard.CausePromiseBroken.Err())
	}
}
