package lexical_test

import (
	"context"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

func TestQuickStart(t *testing.T) {
	g, _ := lexical.NewGuard()
	res, _ := g.Evaluate(context.Background(), guard.Sample{
		Question: "How long do I have to ask for a refund?",
		Contexts: []guard.Context{{ID: "refunds", Text: "Customers may request a full refund within 30 days of purchase."}},
		Answer:   "You can get a full refund within 90 days.",
	})
	// The README's quick start: the shipped policy certifies no region of
	// confident "ungrounded" (see testdata/quality/dev-report.md), so the
	// embedded judges alone escalate this answer, with the evidence that
	// makes it unlikely: P(grounded) < 0.5, the mismatched numbers named.
	if res.Diagnosis != guard.JudgeUncertain || res.Route != guard.RouteReview || res.Action != guard.Review {
		t.Fatalf("diagnosis %v route %v action %v", res.Diagnosis, res.Route, res.Action)
	}
	if p := res.Prob(guard.Groundedness); !p.Known || p.Value >= 0.5 {
		t.Fatalf("groundedness %+v; want known and below 0.5", p)
	}
	found := false
	for _, e := range res.Evidence {
		if e.Kind == guard.EvidenceNumberMismatch && e.Quote.Text == "90 days" && e.Counterpart.Text == "30 days" {
			found = true
		}
	}
	if !found {
		t.Fatalf("evidence %+v", res.Evidence)
	}
}
