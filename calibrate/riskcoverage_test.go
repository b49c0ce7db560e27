package calibrate

import (
	"math"
	"testing"
)

// Hand computation: confidences 0.9, 0.8, 0.7, 0.6 with errors at the
// second and fourth rows give prefix risks 0, 1/2, 1/3, 2/4, so
// AURC = (0 + 0.5 + 1/3 + 0.5)/4.
func TestRiskCoverageHand(t *testing.T) {
	const tol = 1e-12
	conf := []float64{0.7, 0.9, 0.6, 0.8}
	wrong := []bool{false, false, true, true}
	curve := RiskCoverage(conf, wrong)
	wantRisk := []float64{0, 0.5, 1.0 / 3, 0.5}
	wantConf := []float64{0.9, 0.8, 0.7, 0.6}
	if len(curve) != 4 {
		t.Fatalf("RiskCoverage: %d points; want 4", len(curve))
	}
	for k, pt := range curve {
		if !close(pt.Risk, wantRisk[k], tol) || pt.Confidence != wantConf[k] || pt.Accepted != k+1 || !close(pt.Coverage, float64(k+1)/4, tol) {
			t.Errorf("point %d = %+v; want risk %v confidence %v", k, pt, wantRisk[k], wantConf[k])
		}
	}
	if got, want := AURC(conf, wrong), (0+0.5+1.0/3+0.5)/4; !close(got, want, tol) {
		t.Errorf("AURC = %v; want %v", got, want)
	}
	if conf[0] != 0.7 || !wrong[2] {
		t.Error("inputs modified")
	}
}

func TestRiskCoverageEdges(t *testing.T) {
	if c := RiskCoverage(nil, nil); len(c) != 0 {
		t.Errorf("empty curve has %d points", len(c))
	}
	if a := AURC(nil, nil); a != 0 {
		t.Errorf("AURC(empty) = %v; want 0", a)
	}
	if a := AURC([]float64{0.5, 0.2}, []bool{true, true}); a != 1 {
		t.Errorf("AURC(all wrong) = %v; want 1", a)
	}
	// Ties keep input order; NaN sorts last.
	c := RiskCoverage([]float64{0.5, math.NaN(), 0.5}, []bool{true, false, false})
	if c[0].Errors != 1 || c[1].Errors != 1 || !math.IsNaN(c[2].Confidence) {
		t.Errorf("ties/NaN order wrong: %+v", c)
	}
	mustPanic(t, "RiskCoverage", func() { RiskCoverage([]float64{1}, nil) })
	mustPanic(t, "AURC", func() { AURC([]float64{1}, nil) })
}

func TestThinCurve(t *testing.T) {
	conf := make([]float64, 1000)
	wrong := make([]bool, 1000)
	for i := range conf {
		conf[i] = float64(i) / 1000
		wrong[i] = i%3 == 0
	}
	c := RiskCoverage(conf, wrong)
	th := ThinCurve(c, 11)
	if len(th) != 11 || th[0] != c[0] || th[10] != c[999] {
		t.Fatalf("ThinCurve: %d points, ends %+v %+v", len(th), th[0], th[len(th)-1])
	}
	for i := 1; i < len(th); i++ {
		if th[i].Accepted <= th[i-1].Accepted {
			t.Errorf("points not increasing at %d", i)
		}
	}
	if got := ThinCurve(c[:5], 11); len(got) != 5 {
		t.Errorf("short curve thinned to %d points", len(got))
	}
	mustPanic(t, "ThinCurve", func() { ThinCurve(c, 1) })
}

// Hand computation of a 3-class confusion matrix.
func TestConfusionClassScores(t *testing.T) {
	const tol = 1e-12
	truth := []int{0, 0, 0, 1, 1, 2}
	pred := []int{0, 0, 1, 1, 2, 2}
	m := Confusion(truth, pred, 4)
	want := [][]int{{2, 1, 0, 0}, {0, 1, 1, 0}, {0, 0, 1, 0}, {0, 0, 0, 0}}
	for i := range want {
		for j := range want[i] {
			if m[i][j] != want[i][j] {
				t.Fatalf("Confusion = %v; want %v", m, want)
			}
		}
	}
	s := ClassScores(m)
	// class 0: P=2/2, R=2/3; class 1: P=1/2, R=1/2; class 2: P=1/2, R=1; class 3: all zero.
	checks := []struct{ p, r float64 }{{1, 2.0 / 3}, {0.5, 0.5}, {0.5, 1}, {0, 0}}
	for c, w := range checks {
		f1 := 0.0
		if w.p+w.r > 0 {
			f1 = 2 * w.p * w.r / (w.p + w.r)
		}
		if !close(s[c].Precision, w.p, tol) || !close(s[c].Recall, w.r, tol) || !close(s[c].F1, f1, tol) {
			t.Errorf("class %d = %+v; want P %v R %v F1 %v", c, s[c], w.p, w.r, f1)
		}
	}
	if s[0].Support != 3 || s[1].Predicted != 2 || s[2].Correct != 1 {
		t.Errorf("counts wrong: %+v", s)
	}
	mustPanic(t, "Confusion", func() { Confusion([]int{0}, []int{3}, 2) })
	mustPanic(t, "ClassScores", func() { ClassScores([][]int{{1, 2}}) })
}
