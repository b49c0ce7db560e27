package fit_test

import (
	"fmt"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
	"github.com/ragtriage/ragtriage/guard/lexical/fit"
)

// Fit chunk relevance from labelled feature vectors, check the thresholds
// on held-out folds and build the profile entry.
func ExampleDecision() {
	d := guard.ChunkRelevance
	signs := lexical.FeatureSigns(d)
	var exs []fit.Example
	for i := range 120 {
		x := make([]float64, len(signs))
		y := i%2 == 0
		// The first feature with a declared direction carries the label.
		for j, s := range signs {
			if s != 0 {
				x[j] = float64(s) * (float64(i%7) / 10)
				if !y {
					x[j] = -x[j] - 0.1*float64(s)
				}
				break
			}
		}
		exs = append(exs, fit.Example{X: x, Y: y, Source: i % 3, Fold: i % 5, Hard: lexical.HardEvidence(d, x)})
	}
	st := fit.Settings{Alpha: 0.1, Confidence: 0.9, Folds: 5}
	f, err := fit.Decision(d, exs, st)
	if err != nil {
		fmt.Println(err)
		return
	}
	held, err := fit.CheckHeldOut(f, exs, st)
	if err != nil {
		fmt.Println(err)
		return
	}
	dm := f.DecisionModel(-1)
	fmt.Println("features:", len(dm.Features) == len(signs))
	fmt.Println("undecided:", f.Selection.Thresholds.IsUndecided())
	fmt.Println("held-out examples:", held.N)
	// Output:
	// features: true
	// undecided: false
	// held-out examples: 120
}
