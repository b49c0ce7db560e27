package lexical_test

import (
	"context"
	"fmt"
	"log"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

// The README's quick start: the embedded judges under the shipped profile
// see the wrong number of days but do not block it on their own.
func Example_quickStart() {
	ctx := context.Background()
	g, err := lexical.NewGuard() // embedded judges + the shipped calibrated policy, no network
	if err != nil {
		log.Fatal(err)
	}
	res, err := g.Evaluate(ctx, guard.Sample{
		Question: "How long do I have to ask for a refund?",
		Contexts: []guard.Context{{ID: "refunds", Text: "Customers may request a full refund within 30 days of purchase."}},
		Answer:   "You can get a full refund within 90 days.",
	})
	if err != nil {
		log.Fatal(err)
	}
	// res.Diagnosis == guard.JudgeUncertain, res.Route == guard.RouteReview, res.Action == guard.Review:
	// P(grounded) is low and res.Evidence names "90 days" against the context's "30 days", but the shipped
	// policy certifies no region of confident "ungrounded" (a number that differs from the context is wrong
	// in most labelled rows, not in ≥ 95% of them on every source), so the answer goes to review, not blocked.
	fmt.Println(res.Diagnosis, res.Route, res.Action)
	for _, e := range res.Evidence {
		if e.Kind == guard.EvidenceNumberMismatch {
			fmt.Printf("%s, %s: %q vs %q\n", e.Decision, e.Kind, e.Quote.Text, e.Counterpart.Text)
		}
	}
	// Output:
	// JUDGE_UNCERTAIN review review
	// groundedness, number_mismatch: "90 days" vs "30 days"
	// contradiction, number_mismatch: "90 days" vs "30 days"
}

// The embedded judges under the shipped profile: even a passage about
// something else is not blocked as a retrieval miss on their own (no fail
// side of chunk relevance is certified), and with no fallback the answer
// goes to review.
func ExampleNewGuard() {
	g, err := lexical.NewGuard()
	if err != nil {
		log.Fatal(err)
	}
	res, err := g.Evaluate(context.Background(), guard.Sample{
		Question: "Who painted the Mona Lisa?",
		Contexts: []guard.Context{{ID: "shipping", Text: "Standard shipping takes 5 to 7 business days."}},
		Answer:   "Leonardo da Vinci painted it.",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Diagnosis, res.Route, res.Action)
	// Output: JUDGE_UNCERTAIN review review
}

// A profile of your own, written by `ragtriage calibrate`, brings its
// thresholds and pass rule with it. (profile.json here is the shipped one,
// so the policy is the shipped policy.)
func ExampleWithProfileFile() {
	g, err := lexical.NewGuard(lexical.WithProfileFile("profile.json"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(g.Policy() == lexical.DefaultProfile().Policy)
	// Output: true
}
