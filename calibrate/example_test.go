package calibrate_test

import (
	"errors"
	"fmt"
	"math"

	"github.com/ragtriage/ragtriage/calibrate"
)

// The whole flow: calibrate a raw judge score with Platt scaling, check
// discrimination and calibration, then pick thresholds with a guaranteed
// error bound and route new items.
func Example() {
	// Raw judge scores on a labelled set (here: 40 rows per score level).
	var score []float64
	var y []bool
	for level := range 10 {
		for i := range 40 {
			score = append(score, float64(level))
			// Higher levels are more often truly grounded: a fraction level²/81.
			y = append(y, i < level*level*40/81)
		}
	}

	platt, err := calibrate.FitPlatt(score, y, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	p := make([]float64, len(score))
	for i, s := range score {
		p[i] = platt.Predict(s)
	}
	auc, _ := calibrate.AUROC(p, y, nil)
	fmt.Printf("AUROC %.3f, Brier %.3f, ECE %.3f\n", auc, calibrate.Brier(p, y, nil), calibrate.ECE(p, y, nil, 10))

	sel, err := calibrate.SelectThresholds(p, y, 0.1, 0.95)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("auto-pass P ≥ %.3f, auto-fail P ≤ %.3f, coverage %.2f\n", sel.Pass, sel.Fail, sel.Coverage)
	fmt.Println(sel.Band(platt.Predict(9)), sel.Band(platt.Predict(5)), sel.Band(platt.Predict(0)))
	// Output:
	// AUROC 0.910, Brier 0.115, ECE 0.029
	// auto-pass P ≥ 0.909, auto-fail P ≤ 0.146, coverage 0.60
	// pass escalate fail
}

// Data problems come back as a *calibrate.Error wrapping a sentinel.
func ExampleError() {
	_, err := calibrate.AUROC([]float64{0.2, 0.7}, []bool{true, true}, nil)
	fmt.Println(err)
	fmt.Println(errors.Is(err, calibrate.ErrOneClass))

	var e *calibrate.Error
	_, err = calibrate.FitIsotonic([]float64{0.1, math.NaN()}, []bool{false, true}, nil)
	if errors.As(err, &e) {
		fmt.Println(e.Func, e.Row)
	}
	// Output:
	// calibrate: AUROC: only one class present
	// true
	// FitIsotonic 1
}
