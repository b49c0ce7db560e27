package demo

import (
	"context"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/middleware"
)

// TestCases checks that the embedded judges, under Policy, really pass,
// fail and escalate the three cases as their names say.
func TestCases(t *testing.T) {
	g, err := NewGuard()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range Cases {
		docs, err := Retriever{K: 1}.GetRelevantDocuments(context.Background(), c.Question)
		if err != nil {
			t.Fatal(err)
		}
		s := guard.Sample{Question: c.Question, Answer: c.Answer}
		for i, d := range docs {
			s.Contexts = append(s.Contexts, guard.Context{ID: middleware.DefaultContextID(i, d), Text: d.PageContent})
		}
		res, err := g.Evaluate(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		var want guard.Action
		switch c.Name {
		case "pass":
			want = guard.Allow
		case "fail":
			want = guard.Block
		default:
			want = guard.Review
		}
		if got := middleware.ActionOf(&res); got != want || (c.Name == "escalate" && res.Diagnosis != guard.JudgeUncertain) {
			t.Errorf("case %s: %s (%s) action %v; want action %v", c.Name, res.Diagnosis, res.Reason, got, want)
		}
	}
}
