// Command basic judges two answers with the embedded default judges and
// prints each result as JSON. Run it with `go run ./examples/basic`.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

func main() {
	g, err := lexical.NewGuard()
	if err != nil {
		log.Fatal(err)
	}
	contexts := []guard.Context{
		{ID: "refunds", Text: "Customers may request a full refund within 30 days of purchase. Refunds go back to the original payment method."},
		{ID: "shipping", Text: "Standard shipping takes 5 to 7 business days. Express shipping costs extra."},
	}
	answers := []string{
		"You can get a full refund within thirty days of purchase.",
		"You can get a full refund within 90 days, even without a receipt.",
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	for _, a := range answers {
		res, err := g.Evaluate(context.Background(), guard.Sample{
			Question: "How long do I have to ask for a refund?",
			Contexts: contexts,
			Answer:   a,
		})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s\n→ %s (confidence %.2f, route %s)\n", a, res.Diagnosis, res.Confidence, res.Route)
		if err := enc.Encode(res.Citations); err != nil {
			log.Fatal(err)
		}
	}
}
