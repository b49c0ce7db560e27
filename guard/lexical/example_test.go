package lexical_test

import (
	"context"
	"fmt"
	"log"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

// The embedded judges under the shipped profile: a retrieval miss (every
// chunk confidently irrelevant) is decided on their own.
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
	// Output: RETRIEVAL_MISS auto block
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
