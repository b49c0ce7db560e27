package guard_test

import (
	"context"
	"fmt"

	"github.com/ragtriage/ragtriage/guard"
)

// ExampleGuard_Teach audits every answer the embedded judges decide on
// their own: Evaluate draws the answer, and Teach (off the request path)
// asks the teacher, the escalator, whose verdicts sit beside the result's
// own without changing them.
func ExampleGuard_Teach() {
	var rule guard.Policy
	for _, d := range guard.Decisions {
		rule.Set(d, guard.Thresholds{Fail: 0.2, Pass: 0.8})
	}
	// A stand-in for an LLM judge behind a cascade: it finds the answer
	// grounded, where keywordJudge doubts it.
	teacher := guard.EscalatorFunc(func(ctx context.Context, esc guard.Escalation) ([]guard.Estimate, error) {
		out, err := keywordJudge(ctx, esc.Request)
		for i := range out {
			if out[i].Decision == guard.Groundedness {
				out[i] = guard.Estimate{Decision: guard.Groundedness, P: 0.97}
			}
		}
		return out, err
	})
	g, err := guard.New(guard.WithJudge(keywordJudge), guard.WithPolicy(rule),
		guard.WithEscalator(teacher, rule, guard.FailClosed),
		guard.WithDraws(guard.Draws{Audit: 1, Seed: 42}))
	if err != nil {
		fmt.Println(err)
		return
	}
	s := guard.Sample{ID: "q-17", Question: "How long do refunds take?",
		Contexts: []guard.Context{{ID: "c1", Text: "Refunds take 5 business days."}}, Answer: "Refunds take 3 days."}
	res, _ := g.Evaluate(context.Background(), s)
	fmt.Println(res.Diagnosis, res.Route, res.Draw.Kind, res.Draw.Drawn)
	if err := g.Teach(context.Background(), &s, &res); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("own:", res.Verdicts.Generation.Groundedness, "teacher:", res.Teacher.Verdicts.Generation.Groundedness)
	for _, o := range guard.AuditOutcomes(&res) {
		if o.Disagree {
			fmt.Println("disagree on", o.Decision, o.Auto, "vs", o.Teacher)
		}
	}
	st := g.TeachStats()
	fmt.Println(st.Drawn, st.Taught, st.AuditSides, st.Disagreements)
	// Output:
	// GENERATOR_UNGROUNDED auto audit true
	// own: fail teacher: pass
	// disagree on groundedness fail vs pass
	// 1 1 6 1
}
