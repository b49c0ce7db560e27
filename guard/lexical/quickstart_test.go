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
	if res.Diagnosis != guard.GeneratorUngrounded || res.Route != guard.Auto {
		t.Fatalf("diagnosis %v route %v", res.Diagnosis, res.Route)
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
