package calibrate

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"
)

// plattGradient returns ∂F/∂A and ∂F/∂B (see FitPlatt), zero at the optimum:
// ∂F/∂A = Σ w (t − p) s, ∂F/∂B = Σ w (t − p).
func plattGradient(m Platt, s []float64, y []bool, w []float64) (ga, gb float64) {
	var nPos, nNeg float64
	for i, yi := range y {
		if yi {
			nPos += weightAt(w, i)
		} else {
			nNeg += weightAt(w, i)
		}
	}
	for i := range s {
		t := 1 / (nNeg + 2)
		if y[i] {
			t = (nPos + 1) / (nPos + 2)
		}
		r := weightAt(w, i) * (t - m.Predict(s[i]))
		ga += r * s[i]
		gb += r
	}
	return ga, gb
}

func TestFitPlattSaturated(t *testing.T) {
	// Two distinct scores make the sigmoid saturated: it reproduces the mean
	// smoothed target at each score. By hand: N₊ = N₋ = 4, so t₊ = 5/6 and
	// t₋ = 1/6. At s = +1 (3 true, 1 false) the mean target is
	// (3·5/6 + 1/6)/4 = 2/3; at s = −1 (1 true, 3 false) it is 1/3.
	// −(A + B) = logit(2/3) = ln 2 and −(−A + B) = logit(1/3) = −ln 2 give
	// A = −ln 2, B = 0.
	const tol = 1e-12 // iterative, but Newton converges to rounding
	s := []float64{-1, -1, -1, -1, 1, 1, 1, 1}
	y := []bool{true, false, false, false, true, true, true, false}
	p, err := FitPlatt(s, y, nil)
	if err != nil {
		t.Fatalf("FitPlatt: %v", err)
	}
	if !close(p.A, -math.Ln2, tol) || !close(p.B, 0, tol) {
		t.Errorf("FitPlatt = %+v; want {A: −ln 2 = %v, B: 0}", p, -math.Ln2)
	}
	if got := p.Predict(1); !close(got, 2.0/3, tol) {
		t.Errorf("Predict(1) = %v; want 2/3", got)
	}
}

func TestFitPlattStationary(t *testing.T) {
	// On generic weighted data the gradient of F must vanish at the fit.
	const tol = 1e-12 // per row
	x, y := synthLogistic(400, []float64{2.5}, -0.5, 11)
	s := make([]float64, len(x))
	w := make([]float64, len(x))
	for i := range x {
		s[i] = 3*x[i][0] + 1 // an uncalibrated score
		w[i] = 1 + float64(i%5)
	}
	p, err := FitPlatt(s, y, w)
	if err != nil {
		t.Fatalf("FitPlatt: %v", err)
	}
	if !(p.A < 0) {
		t.Errorf("FitPlatt: A = %v; want A < 0 for a score increasing with P(true)", p.A)
	}
	ga, gb := plattGradient(p, s, y, w)
	if n := float64(len(s)); math.Abs(ga)/n > tol || math.Abs(gb)/n > tol {
		t.Errorf("gradient/n at the fit = (%g, %g); want |·| ≤ %g", ga/n, gb/n, tol)
	}
}

func TestFitPlattSeparable(t *testing.T) {
	// Perfectly separating scores: Platt's smoothed targets keep the optimum
	// finite, and the gradient still vanishes.
	const tol = 1e-12
	s := []float64{-3, -2, -1, 1, 2, 3}
	y := []bool{false, false, false, true, true, true}
	p, err := FitPlatt(s, y, nil)
	if err != nil {
		t.Fatalf("FitPlatt(separable): %v", err)
	}
	if !finite(p.A) || !finite(p.B) {
		t.Fatalf("FitPlatt(separable) = %+v; want finite", p)
	}
	ga, gb := plattGradient(p, s, y, nil)
	if math.Abs(ga) > tol || math.Abs(gb) > tol {
		t.Errorf("gradient at the fit = (%g, %g); want 0 ± %g", ga, gb, tol)
	}
	// ∂F/∂B = 0 means the predictions average the targets: by hand
	// (3·4/5 + 3·1/5)/6 = 1/2. The sigmoid must not have saturated.
	var mean float64
	for _, si := range s {
		mean += p.Predict(si) / float64(len(s))
	}
	if !close(mean, 0.5, tol) {
		t.Errorf("mean prediction = %v; want 1/2", mean)
	}
	if got := p.Predict(3); !(got > 0.5 && got < 0.99) {
		t.Errorf("Predict(3) = %v; want in (0.5, 0.99)", got)
	}
}

func TestFitPlattWeightsAsRepeats(t *testing.T) {
	const tol = 1e-10
	s := []float64{0.1, 0.4, 0.35, 0.8, 0.6, 0.2}
	y := []bool{false, false, true, true, true, false}
	w := []float64{1, 2, 1, 3, 1, 2}
	var sr []float64
	var yr []bool
	for i := range s {
		for range int(w[i]) {
			sr = append(sr, s[i])
			yr = append(yr, y[i])
		}
	}
	pw, err := FitPlatt(s, y, w)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := FitPlatt(sr, yr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !close(pw.A, pr.A, tol) || !close(pw.B, pr.B, tol) {
		t.Errorf("weighted FitPlatt = %+v; repeated rows give %+v", pw, pr)
	}
}

func TestFitPlattErrors(t *testing.T) {
	tests := []struct {
		name  string
		score []float64
		y     []bool
		w     []float64
		want  error
	}{
		{"empty", nil, nil, nil, ErrEmpty},
		{"NaN", []float64{1, math.NaN()}, []bool{true, false}, nil, ErrNaN},
		{"Inf", []float64{math.Inf(1), 0}, []bool{true, false}, nil, ErrNaN},
		{"single class", []float64{1, 2}, []bool{false, false}, nil, ErrOneClass},
		{"negative weight", []float64{1, 2}, []bool{true, false}, []float64{-1, 1}, ErrWeight},
		{"zero weight", []float64{1, 2}, []bool{true, false}, []float64{0, 0}, ErrEmpty},
	}
	for _, tt := range tests {
		if _, err := FitPlatt(tt.score, tt.y, tt.w); !errors.Is(err, tt.want) {
			t.Errorf("%s: FitPlatt error = %v; want %v", tt.name, err, tt.want)
		}
	}
	mustPanic(t, "FitPlatt(length mismatch)", func() { FitPlatt([]float64{1}, nil, nil) })
}

func TestFitPlattDoesNotMutate(t *testing.T) {
	s := []float64{0.3, 0.1, 0.9, 0.5}
	y := []bool{false, false, true, true}
	s0, y0 := append([]float64(nil), s...), append([]bool(nil), y...)
	if _, err := FitPlatt(s, y, nil); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s, s0) || !reflect.DeepEqual(y, y0) {
		t.Error("FitPlatt modified its inputs")
	}
}

func TestPlattPredict(t *testing.T) {
	// 1/(1+exp(A·s+B)) by hand.
	const tol = 1e-15
	tests := []struct {
		p    Platt
		s    float64
		want float64
	}{
		{Platt{}, 7, 0.5},
		{Platt{A: -1, B: 0}, math.Log(3), 0.75},
		{Platt{A: 1, B: 0}, 1e308, 0},
		{Platt{A: -1, B: 0}, 1e308, 1},
	}
	for _, tt := range tests {
		if got := tt.p.Predict(tt.s); !close(got, tt.want, tol) {
			t.Errorf("%+v.Predict(%v) = %v; want %v", tt.p, tt.s, got, tt.want)
		}
	}
}

func ExampleFitPlatt() {
	// Raw judge scores on a 0–10 scale with the true labels.
	score := []float64{9, 8, 7, 7, 6, 5, 4, 3, 2, 1}
	y := []bool{true, true, true, false, true, false, true, false, false, false}
	p, err := FitPlatt(score, y, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("A = %.3f, B = %.3f\n", p.A, p.B)
	fmt.Printf("P(true | 9) = %.3f, P(true | 2) = %.3f\n", p.Predict(9), p.Predict(2))
	// Output:
	// A = -0.415, B = 2.175
	// P(true | 9) = 0.827, P(true | 2) = 0.207
}
