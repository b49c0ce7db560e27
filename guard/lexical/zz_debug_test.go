package lexical

import (
	"fmt"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
)

func TestDebugFeat(t *testing.T) {
	j, _ := New(nil)
	s := guard.Sample{
		Question: "How much does the Team plan cost per user per month?",
		Contexts: []guard.Context{
			{ID: "pricing-page", Text: "Pricing (updated March 2024). The Team plan costs $12 per user per month when billed annually. " +
				"It includes unlimited projects and 100 GB of shared storage."},
			{ID: "pricing-faq", Text: "Pricing FAQ. How much is the Team plan? The Team plan costs $15 per user per month when billed annually, " +
				"and every plan includes unlimited projects."},
		},
		Answer: "The Team plan costs $12 per user per month when billed annually.",
	}
	f := j.Features(&s)
	d := guard.ContextConflict
	for i, n := range FeatureNames(d) {
		fmt.Printf("%s %s=%.3f w=%.3f\n", d, n, f.ContextConflict[i], j.prof.Decisions[d.String()].Model.Weights[i])
	}
	fmt.Println("bias", j.prof.Decisions[d.String()].Model.Bias)
}
