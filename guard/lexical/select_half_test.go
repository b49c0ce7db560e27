package lexical_test

import (
	"testing"

	"github.com/ragtriage/ragtriage/calibrate"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

// haluEvalLike builds groundedness selection data shaped like HaluEval's
// teacher-labelled stream: 250 grounded answers at P ≈ 0.94 without hard
// evidence, 126 ungrounded ones with hard evidence at low P, 2 grounded
// ones with hard evidence at P 0.93, and 122 ungrounded ones without hard
// evidence at P ≤ 0.3. Labels come from a judge wrong on every 20th row of
// each kind.
func haluEvalLike() (p []float64, y, hard []bool) {
	add := func(n int, lo, hi float64, truth, h bool) {
		for i := range n {
			p = append(p, lo+(hi-lo)*float64(i)/float64(n))
			y = append(y, truth != (i%20 == 19))
			hard = append(hard, h)
		}
	}
	add(250, 0.93, 0.95, true, false)
	add(126, 0.001, 0.1, false, true)
	add(2, 0.93, 0.931, true, true)
	add(122, 0.05, 0.3, false, false)
	return p, y, hard
}

// TestSelectGroundedSidesOfHalf: with one sequence per side at the full δ
// (the predicted start), a fail-side sequence runs on past P = ½ while its
// region's errors stay within the bound: here the one run on the floored P
// (which chooses the pass side) reaches the grounded answers at P 0.93, and
// the pass side, stepping back from the overlap, loses every candidate. (On
// HaluEval's records the first run's fail side also reached two
// hard-evidence answers at P 0.93, and the soft floor set above it left no
// room for a pass side.) Keeping the sides apart at P = ½ certifies both.
func TestSelectGroundedSidesOfHalf(t *testing.T) {
	p, y, hard := haluEvalLike()
	group := make([]int, len(p))
	cfg := calibrate.FixedSequenceConfig{Alpha: 0.10, Confidence: 0.95, PredictedStart: true}
	s, err := lexical.SelectPolicy(guard.Groundedness, p, y, group, hard, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !s.Thresholds.NoPass {
		t.Fatalf("without SidesOfHalf: thresholds %+v; want no pass side (the case this guards)", s.Thresholds)
	}
	cfg.SidesOfHalf = true
	s, err = lexical.SelectPolicy(guard.Groundedness, p, y, group, hard, cfg)
	if err != nil {
		t.Fatal(err)
	}
	th := s.Thresholds
	if th.NoFail || th.NoPass || th.Fail >= 0.5 || th.Pass <= 0.5 {
		t.Errorf("SidesOfHalf: thresholds %+v; want a fail side below ½ and a pass side above", th)
	}
	if s.Pass.AutoPass.Count < 240 || s.Fail.AutoFail.Count < 120 {
		t.Errorf("SidesOfHalf: auto-pass %d rows, auto-fail %d; want ≥ 240 and ≥ 120", s.Pass.AutoPass.Count, s.Fail.AutoFail.Count)
	}
}
