package guard_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/guardtest"
)

// keywordJudge is a toy judge: it answers every decision it is asked with a
// fixed probability, except groundedness, which it doubts.
var keywordJudge = guard.JudgeFunc(func(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("keyword judge: %w", err)
	}
	var out []guard.Estimate
	for _, d := range req.Decisions {
		switch d {
		case guard.ChunkRelevance: // one estimate per context
			for _, c := range req.Sample.Contexts {
				out = append(out, guard.Estimate{Decision: d, ContextID: c.ID, P: 0.9})
			}
		case guard.ContextConflict, guard.Contradiction: // true is the bad outcome
			out = append(out, guard.Estimate{Decision: d, P: 0.05})
		case guard.Groundedness:
			out = append(out, guard.Estimate{Decision: d, P: 0.1, Evidence: []guard.Evidence{{
				Decision: d, Kind: guard.EvidenceNumberMismatch, Detail: `"3 days" vs "5 business days"`,
			}}})
		default:
			out = append(out, guard.Estimate{Decision: d, P: 0.95})
		}
	}
	return out, nil
})

func ExampleGuard_Evaluate() {
	// The same two-sided rule for every decision: P ≤ 0.2 is a confident
	// "no", P ≥ 0.8 a confident "yes".
	var policy guard.Policy
	for _, d := range guard.Decisions {
		policy.Set(d, guard.Thresholds{Fail: 0.2, Pass: 0.8})
	}
	g, err := guard.New(guard.WithJudge(keywordJudge), guard.WithPolicy(policy))
	if err != nil {
		panic(err)
	}
	res, err := g.Evaluate(context.Background(), guard.Sample{
		Question: "How long do refunds take?",
		Contexts: []guard.Context{{ID: "policy#1", Text: "Refunds are processed within 5 business days."}},
		Answer:   "Refunds take 3 days.",
	})
	if errors.Is(err, guard.ErrInvalidSample) {
		panic(err) // no result
	}
	// Any other error is a failed judge: res is complete, and the judge's
	// decisions are uncertain.
	fmt.Printf("%s (confidence %.2f, route %s)\n", res.Diagnosis, res.Confidence, res.Route)
	fmt.Println(res.Reason)
	fmt.Println(res.Evidence[0].Detail)
	verdicts, _ := json.Marshal(res.Verdicts)
	fmt.Println(string(verdicts))
	// Output:
	// GENERATOR_UNGROUNDED (confidence 0.90, route auto)
	// the answer makes claims the contexts do not support
	// "3 days" vs "5 business days"
	// {"retrieval":{"chunkRelevance":{"policy#1":"pass"},"contextSufficiency":"pass","contextConflict":"pass"},"generation":{"groundedness":"fail","answerRelevance":"pass","contradiction":"pass"}}
}

// With no judge and the zero policy, every decision is uncertain: the
// answer is never passed. With no fallback configured, it goes to review.
func ExampleNew() {
	g, err := guard.New()
	if err != nil {
		panic(err)
	}
	res, _ := g.Evaluate(context.Background(), guard.Sample{
		Question: "How long do refunds take?",
		Contexts: []guard.Context{{ID: "policy#1", Text: "Refunds are processed within 5 business days."}},
		Answer:   "Five business days.",
	})
	fmt.Println(res.Diagnosis, res.Route, res.Action)
	// Output:
	// JUDGE_UNCERTAIN review review
}

func ExampleThresholds_Verdict() {
	th := guard.Thresholds{Fail: 0.2, Pass: 0.8}
	for _, p := range []float64{0.1, 0.2, 0.5, 0.8, 0.95} {
		fmt.Println(p, th.Verdict(p))
	}
	fmt.Println("unset:", guard.Thresholds{}.Verdict(0.99))
	// Output:
	// 0.1 fail
	// 0.2 fail
	// 0.5 uncertain
	// 0.8 pass
	// 0.95 pass
	// unset: uncertain
}

// Results written to a record sink keep their shape: correctness is absent
// without a reference, and an abstention is null.
func ExampleResult() {
	abstain := guard.JudgeFunc(func(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
		return []guard.Estimate{guard.Abstain(guard.Groundedness, "", "quote not found")}, nil
	})
	g, err := guard.New(guard.WithJudge(keywordJudge), guard.WithJudge(abstain, guard.Groundedness))
	if err != nil {
		panic(err)
	}
	res, _ := g.Evaluate(context.Background(), guard.Sample{Question: "Why?", Answer: "Because."})
	b, _ := json.Marshal(res.Generation)
	fmt.Println(string(b))
	fmt.Println(res.Abstentions[0].Reason)
	// Output:
	// {"groundedness":null,"answerRelevance":0.95,"contradiction":0.05}
	// quote not found
}

// A promise monitor trips a side after audits that disagree with the
// teacher far more often than the promise allows; Evaluate then withholds
// that side's verdicts, and the answer escalates instead of passing.
func ExamplePromiseMonitor() {
	m, err := guard.NewPromiseMonitor(guard.PromiseConfig{Alpha: 0.10, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		panic(err)
	}
	var p guard.Policy
	for _, d := range guard.Decisions {
		p.Set(d, guard.Thresholds{Fail: 0.2, Pass: 0.8})
	}
	judge := guardtest.Fixed{Name: "j", Default: 0.9, P: map[guard.Decision]float64{guard.ContextConflict: 0.1, guard.Contradiction: 0.1}}
	g, err := guard.New(guard.WithJudge(judge), guard.WithPolicy(p), guard.WithMonitor(m))
	if err != nil {
		panic(err)
	}
	s := guard.Sample{Question: "q?", Answer: "a.", Contexts: []guard.Context{{ID: "c1", Text: "text."}}}
	res, _ := g.Evaluate(context.Background(), s)
	fmt.Println(res.Diagnosis)

	// Teach reports these for audit draws; here, three audits in which
	// the teacher found the auto-passed answer ungrounded.
	_, promise := g.Monitor()
	bad := guard.AuditOutcome{Decision: guard.Groundedness, Auto: guard.Pass, Teacher: guard.Fail, Disagree: true}
	for range 3 {
		_ = m.Observe(context.Background(), promise, []guard.AuditOutcome{bad})
	}
	tr := m.Trips()[0]
	fmt.Println(tr.Side, tr.Audits, tr.Disagreements)

	res, _ = g.Evaluate(context.Background(), s)
	fmt.Println(res.Diagnosis, res.Withheld[0].Cause)
	// Output:
	// PASS
	// groundedness/pass 3 3
	// JUDGE_UNCERTAIN promise_broken
}
