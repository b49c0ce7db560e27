package calibrate

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// logisticGradient returns ∇L at m (see FitLogistic), the quantity that must
// vanish at the optimum.
func logisticGradient(m Logistic, x [][]float64, y []bool, w []float64, l2 float64) []float64 {
	d := len(m.Weights)
	g := make([]float64, d+1)
	for i, row := range x {
		r := weightAt(w, i) * (m.Predict(row) - b2f(y[i]))
		for j, v := range row {
			g[j] += r * v
		}
		g[d] += r
	}
	for j, b := range m.Weights {
		g[j] += l2 * b
	}
	return g
}

// synthLogistic draws n rows from a known logistic model with a fixed seed.
func synthLogistic(n int, beta []float64, bias float64, seed uint64) ([][]float64, []bool) {
	r := rand.New(rand.NewPCG(seed, 1))
	x := make([][]float64, n)
	y := make([]bool, n)
	for i := range x {
		row := make([]float64, len(beta))
		z := bias
		for j := range row {
			row[j] = r.NormFloat64()
			z += beta[j] * row[j]
		}
		x[i] = row
		y[i] = r.Float64() < sigmoid(z)
	}
	return x, y
}

func TestFitLogisticRecoversCoefficients(t *testing.T) {
	// 20 000 rows from P = σ(−0.3 + 1.5·x₁ − 2·x₂ + 0.5·x₃), x ~ N(0, I),
	// seed fixed. The standard errors are ≈ 0.03, so 0.1 is > 3 SE.
	const coefTol = 0.1
	// At the optimum the gradient vanishes; Newton converges quadratically,
	// so it is zero to rounding (scaled by n).
	const gradTol = 1e-12
	beta, bias := []float64{1.5, -2, 0.5}, -0.3
	x, y := synthLogistic(20000, beta, bias, 42)
	m, err := FitLogistic(x, y, nil, LogisticConfig{})
	if err != nil {
		t.Fatalf("FitLogistic: %v", err)
	}
	for j, want := range beta {
		if !close(m.Weights[j], want, coefTol) {
			t.Errorf("Weights[%d] = %v; want %v ± %v", j, m.Weights[j], want, coefTol)
		}
	}
	if !close(m.Bias, bias, coefTol) {
		t.Errorf("Bias = %v; want %v ± %v", m.Bias, bias, coefTol)
	}
	for j, g := range logisticGradient(m, x, y, nil, 0) {
		if math.Abs(g)/float64(len(x)) > gradTol {
			t.Errorf("gradient[%d]/n = %g at the fit; want |·| ≤ %g", j, g/float64(len(x)), gradTol)
		}
	}
}

func TestFitLogisticSaturated(t *testing.T) {
	// One binary feature: the model is saturated, so the MLE reproduces the
	// observed frequencies. Hand computation: at x = 0, 1 of 4 rows is true,
	// logit(1/4) = −ln 3 = Bias; at x = 1, 3 of 4, logit(3/4) = ln 3 =
	// Bias + Weight, so Weight = 2 ln 3.
	const tol = 1e-9 // iterative
	x := [][]float64{{0}, {0}, {0}, {0}, {1}, {1}, {1}, {1}}
	y := []bool{true, false, false, false, true, true, true, false}
	m, err := FitLogistic(x, y, nil, LogisticConfig{})
	if err != nil {
		t.Fatalf("FitLogistic: %v", err)
	}
	if want := 2 * math.Log(3); !close(m.Weights[0], want, tol) {
		t.Errorf("Weight = %.15g; want 2 ln 3 = %.15g", m.Weights[0], want)
	}
	if want := -math.Log(3); !close(m.Bias, want, tol) {
		t.Errorf("Bias = %.15g; want −ln 3 = %.15g", m.Bias, want)
	}
	if got := m.Predict([]float64{1}); !close(got, 0.75, tol) {
		t.Errorf("Predict([1]) = %v; want 0.75", got)
	}
}

func TestFitLogisticWeightsAsRepeats(t *testing.T) {
	// Integer weights must give the same fit as repeating the rows.
	const tol = 1e-9 // iterative
	x := [][]float64{{0.5, 1}, {-1, 2}, {2, -1}, {0, 0}, {1, 1}, {-2, 0.5}}
	y := []bool{true, false, true, false, true, false}
	w := []float64{2, 1, 3, 1, 0, 2}
	var xr [][]float64
	var yr []bool
	for i := range x {
		for range int(w[i]) {
			xr = append(xr, x[i])
			yr = append(yr, y[i])
		}
	}
	for _, l2 := range []float64{0.1, 1} {
		cfg := LogisticConfig{L2: l2}
		mw, err := FitLogistic(x, y, w, cfg)
		if err != nil {
			t.Fatalf("weighted FitLogistic(L2=%v): %v", l2, err)
		}
		mr, err := FitLogistic(xr, yr, nil, cfg)
		if err != nil {
			t.Fatalf("repeated FitLogistic(L2=%v): %v", l2, err)
		}
		for j := range mw.Weights {
			if !close(mw.Weights[j], mr.Weights[j], tol) {
				t.Errorf("L2=%v: weighted Weights[%d] = %v; repeated rows give %v", l2, j, mw.Weights[j], mr.Weights[j])
			}
		}
		if !close(mw.Bias, mr.Bias, tol) {
			t.Errorf("L2=%v: weighted Bias = %v; repeated rows give %v", l2, mw.Bias, mr.Bias)
		}
	}
}

func TestFitLogisticL2Stationary(t *testing.T) {
	// With a ridge penalty the gradient Σ w(p−y)x + λβ must vanish.
	const gradTol = 1e-12 // relative to n
	x, y := synthLogistic(500, []float64{3, -1}, 0.7, 7)
	w := make([]float64, len(x))
	for i := range w {
		w[i] = 0.5 + float64(i%3)
	}
	for _, l2 := range []float64{0.01, 1, 100} {
		m, err := FitLogistic(x, y, w, LogisticConfig{L2: l2})
		if err != nil {
			t.Fatalf("FitLogistic(L2=%v): %v", l2, err)
		}
		for j, g := range logisticGradient(m, x, y, w, l2) {
			if math.Abs(g)/float64(len(x)) > gradTol {
				t.Errorf("L2=%v: gradient[%d]/n = %g; want |·| ≤ %g", l2, j, g/float64(len(x)), gradTol)
			}
		}
	}
}

func TestFitLogisticSeparable(t *testing.T) {
	x := [][]float64{{-2}, {-1}, {1}, {2}}
	y := []bool{false, false, true, true}

	m, err := FitLogistic(x, y, nil, LogisticConfig{})
	if !errors.Is(err, ErrSeparable) {
		t.Fatalf("FitLogistic(separable, L2=0) error = %v; want ErrSeparable", err)
	}
	if !finite(m.Bias) || !finite(m.Weights[0]) {
		t.Fatalf("FitLogistic(separable) = %+v; want finite weights", m)
	}
	for i, row := range x {
		if got := m.Predict(row) > 0.5; got != y[i] {
			t.Errorf("separable fit: Predict(%v) = %v; want the side of y = %v", row, m.Predict(row), y[i])
		}
	}

	// A ridge penalty makes the optimum finite. Symmetric data give Bias 0.
	m, err = FitLogistic(x, y, nil, LogisticConfig{L2: 1})
	if err != nil {
		t.Fatalf("FitLogistic(separable, L2=1): %v", err)
	}
	if !close(m.Bias, 0, 1e-12) || !(m.Weights[0] > 0) {
		t.Errorf("FitLogistic(separable, L2=1) = %+v; want Bias 0 and a positive weight", m)
	}
	for j, g := range logisticGradient(m, x, y, nil, 1) {
		if math.Abs(g) > 1e-12 {
			t.Errorf("L2=1: gradient[%d] = %g; want 0", j, g)
		}
	}
}

func TestFitLogisticCollinear(t *testing.T) {
	// A duplicated feature makes the unpenalised Hessian singular; the fit
	// must still converge (the damping picks one of the equivalent optima)
	// and predict the saturated frequencies of TestFitLogisticSaturated.
	const tol = 1e-9
	x := [][]float64{{0, 0}, {0, 0}, {0, 0}, {0, 0}, {1, 1}, {1, 1}, {1, 1}, {1, 1}}
	y := []bool{true, false, false, false, true, true, true, false}
	m, err := FitLogistic(x, y, nil, LogisticConfig{})
	if err != nil {
		t.Fatalf("FitLogistic(collinear): %v", err)
	}
	if got := m.Predict([]float64{1, 1}); !close(got, 0.75, tol) {
		t.Errorf("Predict([1 1]) = %v; want 0.75", got)
	}
	if got := m.Predict([]float64{0, 0}); !close(got, 0.25, tol) {
		t.Errorf("Predict([0 0]) = %v; want 0.25", got)
	}
}

func TestFitLogisticIntercept(t *testing.T) {
	// No features: Bias = logit(weighted fraction true) = ln(3/1) by hand.
	const tol = 1e-12
	x := [][]float64{{}, {}, {}}
	m, err := FitLogistic(x, []bool{true, false, true}, []float64{1, 1, 2}, LogisticConfig{})
	if err != nil {
		t.Fatalf("FitLogistic(no features): %v", err)
	}
	if want := math.Log(3); !close(m.Bias, want, tol) {
		t.Errorf("Bias = %v; want ln 3 = %v", m.Bias, want)
	}
}

func TestFitLogisticErrors(t *testing.T) {
	ok := [][]float64{{1}, {2}}
	okY := []bool{true, false}
	tests := []struct {
		name string
		x    [][]float64
		y    []bool
		w    []float64
		cfg  LogisticConfig
		want error
		row  int
	}{
		{"empty", nil, nil, nil, LogisticConfig{}, ErrEmpty, -1},
		{"ragged", [][]float64{{1, 2}, {3}}, okY, nil, LogisticConfig{}, ErrRagged, 1},
		{"NaN feature", [][]float64{{1}, {math.NaN()}}, okY, nil, LogisticConfig{}, ErrNaN, 1},
		{"Inf feature", [][]float64{{math.Inf(-1)}, {1}}, okY, nil, LogisticConfig{}, ErrNaN, 0},
		{"single class", ok, []bool{true, true}, nil, LogisticConfig{}, ErrOneClass, -1},
		{"class only at weight 0", ok, okY, []float64{1, 0}, LogisticConfig{}, ErrOneClass, -1},
		{"zero total weight", ok, okY, []float64{0, 0}, LogisticConfig{}, ErrEmpty, -1},
		{"negative weight", ok, okY, []float64{1, -1}, LogisticConfig{}, ErrWeight, 1},
		{"NaN weight", ok, okY, []float64{math.NaN(), 1}, LogisticConfig{}, ErrWeight, 0},
		{"negative L2", ok, okY, nil, LogisticConfig{L2: -1}, ErrRange, -1},
		{"NaN L2", ok, okY, nil, LogisticConfig{L2: math.NaN()}, ErrRange, -1},
		{"negative MaxIter", ok, okY, nil, LogisticConfig{MaxIter: -1}, ErrRange, -1},
		{"negative Tol", ok, okY, nil, LogisticConfig{Tol: -1}, ErrRange, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FitLogistic(tt.x, tt.y, tt.w, tt.cfg)
			if !errors.Is(err, tt.want) {
				t.Fatalf("FitLogistic error = %v; want %v", err, tt.want)
			}
			var e *Error
			if !errors.As(err, &e) || e.Func != "FitLogistic" || e.Row != tt.row {
				t.Errorf("FitLogistic error = %#v; want *Error{Func: FitLogistic, Row: %d}", err, tt.row)
			}
		})
	}
}

func TestFitLogisticNotConverged(t *testing.T) {
	x, y := synthLogistic(200, []float64{2}, 0, 3)
	m, err := FitLogistic(x, y, nil, LogisticConfig{MaxIter: 1})
	if !errors.Is(err, ErrNotConverged) {
		t.Fatalf("FitLogistic(MaxIter=1) error = %v; want ErrNotConverged", err)
	}
	if len(m.Weights) != 1 || !finite(m.Weights[0]) {
		t.Errorf("FitLogistic(MaxIter=1) = %+v; want the finite last iterate", m)
	}
}

func TestFitLogisticDoesNotMutate(t *testing.T) {
	x, y := synthLogistic(50, []float64{1, -1}, 0, 9)
	w := make([]float64, len(x))
	for i := range w {
		w[i] = float64(i%4) + 0.5
	}
	x0, y0, w0 := cloneRows(x), append([]bool(nil), y...), append([]float64(nil), w...)
	if _, err := FitLogistic(x, y, w, LogisticConfig{L2: 0.5}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(x, x0) || !reflect.DeepEqual(y, y0) || !reflect.DeepEqual(w, w0) {
		t.Error("FitLogistic modified its inputs")
	}
}

func TestFitLogisticPanics(t *testing.T) {
	mustPanic(t, "FitLogistic(len(y) != len(x))", func() {
		FitLogistic([][]float64{{1}}, []bool{true, false}, nil, LogisticConfig{})
	})
	mustPanic(t, "FitLogistic(len(w) != len(x))", func() {
		FitLogistic([][]float64{{1}, {2}}, []bool{true, false}, []float64{1}, LogisticConfig{})
	})
	mustPanic(t, "Logistic.Predict(wrong length)", func() {
		Logistic{Weights: []float64{1, 2}}.Predict([]float64{1})
	})
}

func TestLogisticPredict(t *testing.T) {
	// σ(z) by hand: σ(0) = 1/2, σ(ln 3) = 3/4; extreme z must not overflow.
	const tol = 1e-15
	tests := []struct {
		m    Logistic
		x    []float64
		want float64
	}{
		{Logistic{}, nil, 0.5},
		{Logistic{Weights: []float64{1}, Bias: math.Log(3) - 2}, []float64{2}, 0.75},
		{Logistic{Weights: []float64{1e308, 1e308}}, []float64{10, 10}, 1},
		{Logistic{Weights: []float64{-1e308}}, []float64{1e10}, 0},
		{Logistic{Bias: -800}, nil, 0}, // exp(−800) underflows
		{Logistic{Bias: 800}, nil, 1},
		{Logistic{Bias: -40}, nil, 4.248354255291589e-18}, // exp(−40)/(1+exp(−40))
	}
	for _, tt := range tests {
		if got := tt.m.Predict(tt.x); !close(got, tt.want, tol*math.Max(tt.want, 1e-30)) {
			t.Errorf("%+v.Predict(%v) = %v; want %v", tt.m, tt.x, got, tt.want)
		}
	}
}

func TestPredictAllocs(t *testing.T) {
	lm := Logistic{Weights: []float64{1, 2}, Bias: 0.5}
	x := []float64{0.3, -0.2}
	iso := Isotonic{X: []float64{0, 0.5, 1}, Y: []float64{0.1, 0.2, 0.9}}
	sel := Selection{Fail: 0.2, Pass: 0.8, HasFail: true, HasPass: true}
	for name, f := range map[string]func(){
		"Logistic.Predict": func() { lm.Predict(x) },
		"Platt.Predict":    func() { Platt{A: -2, B: 1}.Predict(0.3) },
		"Isotonic.Predict": func() { iso.Predict(0.7) },
		"Selection.Band":   func() { sel.Band(0.5) },
	} {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s allocates %v times per call; want 0", name, n)
		}
	}
}

func ExampleFitLogistic() {
	// Two features per row: a retrieval score and an answer-overlap score.
	x := [][]float64{{0.9, 0.8}, {0.8, 0.4}, {0.3, 0.9}, {0.2, 0.1}, {0.7, 0.7}, {0.1, 0.3}, {0.6, 0.2}, {0.4, 0.6}}
	y := []bool{true, true, false, false, true, false, false, true}
	m, err := FitLogistic(x, y, nil, LogisticConfig{L2: 0.1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("P(true | [0.85 0.75]) = %.3f\n", m.Predict([]float64{0.85, 0.75}))
	fmt.Printf("P(true | [0.15 0.20]) = %.3f\n", m.Predict([]float64{0.15, 0.20}))
	// Output:
	// P(true | [0.85 0.75]) = 0.820
	// P(true | [0.15 0.20]) = 0.165
}
