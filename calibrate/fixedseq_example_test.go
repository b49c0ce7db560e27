package calibrate_test

import (
	"fmt"

	"github.com/ragtriage/ragtriage/calibrate"
)

// Thresholds for two labelled sources. Source 1 is overconfident at the top:
// at P ≥ 0.97 it has 80 rows (≥ 59, so it is tested on its own) with 4
// wrong, which the exact test does not certify at 5 %; the pass sequence
// stops there and keeps P ≥ 0.99, although the pooled rows (12 wrong in 480)
// would allow P ≥ 0.97, as the run without groups shows.
func ExampleSelectFixedSequence() {
	var p []float64
	var y []bool
	var src []int
	add := func(prob float64, rows, trues, source int) {
		for i := range rows {
			p = append(p, prob)
			y = append(y, i < trues)
			src = append(src, source)
		}
	}
	// Calibrated source 0, 200 rows per level: P(true) = prob.
	for _, prob := range []float64{0.01, 0.03, 0.2, 0.5, 0.8, 0.97, 0.99} {
		add(prob, 200, int(prob*200+0.5), 0)
	}
	// Source 1, 40 rows per level near the top: 10 % wrong at 0.97.
	add(0.99, 40, 40, 1)
	add(0.97, 40, 36, 1)

	cfg := calibrate.FixedSequenceConfig{Alpha: 0.05, Confidence: 0.95}
	fmt.Println("rows needed for any bound:", calibrate.MinRowsForBound(cfg.Alpha, cfg.Confidence))
	s, err := calibrate.SelectFixedSequence(p, y, src, cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("pass P ≥ %.2f (%d rows, %d wrong), fail P ≤ %.2f (%d rows, %d wrong), coverage %.2f\n",
		s.Pass, s.AutoPass.Count, s.AutoPass.Errors, s.Fail, s.AutoFail.Count, s.AutoFail.Errors, s.Coverage)
	for _, g := range s.PassGroups {
		fmt.Printf("pass side, source %d: %d rows, %d wrong, bound %.3f, tested %v\n", g.Group, g.Count, g.Errors, g.UpperBound, g.Tested)
	}
	fmt.Println("candidates tested (fail, pass):", s.Tested)

	pooled, _ := calibrate.SelectFixedSequence(p, y, nil, cfg)
	fmt.Printf("one group: pass P ≥ %.2f\n", pooled.Pass)
	fmt.Println(s.Band(0.99), s.Band(0.95), s.Band(0.01))
	// Output:
	// rows needed for any bound: 59
	// pass P ≥ 0.99 (240 rows, 2 wrong), fail P ≤ 0.03 (400 rows, 8 wrong), coverage 0.43
	// pass side, source 0: 200 rows, 2 wrong, bound 0.031, tested true
	// pass side, source 1: 40 rows, 0 wrong, bound 0.072, tested false
	// candidates tested (fail, pass): [3 2]
	// one group: pass P ≥ 0.97
	// pass escalate fail
}
