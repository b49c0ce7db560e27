package guard_test

import (
	"context"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
)

// TestLateAbstentionTakesTheDeadlinesCause: a judge that stops because the
// request ended, and abstains without naming a cause, is counted under the
// request's end (cancelled here), not as a plain abstention; an abstention
// that names its cause keeps it.
func TestLateAbstentionTakesTheDeadlinesCause(t *testing.T) {
	for _, tc := range []struct {
		name  string
		given guard.Cause
		want  guard.Cause
	}{
		{"no cause", "", guard.CauseCancelled},
		{"its own cause", guard.CauseInputTooLarge, guard.CauseInputTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			j := inlineJudge{guard.JudgeFunc(func(_ context.Context, req guard.Request) ([]guard.Estimate, error) {
				cancel() // the request ends while the judge works
				out := make([]guard.Estimate, 0, len(req.Decisions))
				for _, d := range req.Decisions {
					id := ""
					if d == guard.ChunkRelevance {
						id = "c1"
					}
					e := guard.Abstain(d, id, "stopped")
					e.Cause = tc.given
					out = append(out, e)
				}
				return out, nil
			})}
			g, err := guard.New(guard.WithJudge(j))
			if err != nil {
				t.Fatal(err)
			}
			res, _ := g.Evaluate(ctx, guard.Sample{Question: "q", Answer: "a", Contexts: []guard.Context{{ID: "c1", Text: "t"}}})
			if len(res.Abstentions) == 0 {
				t.Fatalf("result %+v; want an abstention", res)
			}
			for _, a := range res.Abstentions {
				if a.Cause != tc.want {
					t.Errorf("abstention %s: cause %q; want %q", a.Decision, a.Cause, tc.want)
				}
			}
		})
	}
}
