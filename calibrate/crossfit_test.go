package calibrate

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// FitStandardized must give the same probabilities as FitLogistic without a
// penalty (standardizing is then only a reparametrisation).
func TestFitStandardizedMatchesUnpenalised(t *testing.T) {
	const tol = 1e-6
	r := rand.New(rand.NewPCG(3, 4))
	var x [][]float64
	var y []bool
	for range 400 {
		a, b := r.NormFloat64()*10+50, r.NormFloat64()*0.01
		x = append(x, []float64{a, b})
		y = append(y, r.Float64() < sigmoid(0.2*(a-50)+100*b))
	}
	plain, err := FitLogistic(x, y, nil, LogisticConfig{})
	if err != nil {
		t.Fatal(err)
	}
	std, err := FitStandardized(x, y, nil, LogisticConfig{})
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range x {
		if p, q := plain.Predict(row), std.Predict(row); math.Abs(p-q) > tol {
			t.Fatalf("row %d: FitLogistic %v, FitStandardized %v", i, p, q)
		}
	}
	if _, err := FitStandardized(nil, nil, nil, LogisticConfig{}); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty: err = %v; want ErrEmpty", err)
	}
	if _, err := FitStandardized([][]float64{{1}, {1, 2}}, []bool{true, false}, nil, LogisticConfig{}); !errors.Is(err, ErrRagged) {
		t.Errorf("ragged: err = %v; want ErrRagged", err)
	}
}

func TestCrossValPredict(t *testing.T) {
	var x [][]float64
	var y []bool
	var folds []int
	for i := range 200 {
		v := float64(i%20) / 20
		x = append(x, []float64{v})
		y = append(y, (i*7)%20 < i%20)
		folds = append(folds, i%5)
	}
	oof, err := CrossValPredict(x, y, nil, folds, 5, LogisticConfig{L2: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Each fold's predictions come from a model fitted without it: refit
	// fold 2 by hand and compare.
	var xs [][]float64
	var ys []bool
	for i := range x {
		if folds[i] != 2 {
			xs, ys = append(xs, x[i]), append(ys, y[i])
		}
	}
	m, err := FitStandardized(xs, ys, nil, LogisticConfig{L2: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range x {
		if folds[i] == 2 && oof[i] != m.Predict(x[i]) {
			t.Fatalf("row %d: oof %v; want %v", i, oof[i], m.Predict(x[i]))
		}
	}
	// A training set with one class is reported with its fold.
	one := []bool{true, true, true, true, false}
	_, err = CrossValPredict([][]float64{{1}, {2}, {3}, {4}, {5}}, one, nil, []int{0, 0, 0, 0, 1}, 2, LogisticConfig{})
	if !errors.Is(err, ErrOneClass) {
		t.Errorf("err = %v; want ErrOneClass", err)
	}
	mustPanic(t, "CrossValPredict", func() { CrossValPredict(x, y, nil, folds[:3], 5, LogisticConfig{}) })
}

func TestGroupFold(t *testing.T) {
	seen := map[int]bool{}
	for _, g := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		f := GroupFold(g, 5)
		if f < 0 || f >= 5 || GroupFold(g, 5) != f {
			t.Fatalf("GroupFold(%q) = %d", g, f)
		}
		seen[f] = true
	}
	if len(seen) < 2 {
		t.Error("every group in one fold")
	}
	mustPanic(t, "GroupFold", func() { GroupFold("a", 0) })
}

func TestSelectionThresholds(t *testing.T) {
	if f, p := (Selection{}).Thresholds(); f != 0 || p != 1 {
		t.Errorf("zero selection: (%v, %v); want (0, 1)", f, p)
	}
	if f, p := (Selection{Fail: 0.2, Pass: 0.9, HasFail: true, HasPass: true}).Thresholds(); f != 0.2 || p != 0.9 {
		t.Errorf("(%v, %v); want (0.2, 0.9)", f, p)
	}
}

// An approximate fit (ErrNotConverged) comes back on raw features, like a
// converged one: it predicts raw rows as FitLogistic's iterate predicts the
// standardized ones.
func TestFitStandardizedNotConvergedIsRaw(t *testing.T) {
	const tol = 1e-12
	x := [][]float64{{1, 200}, {2, 180}, {3, 260}, {4, 210}, {5, 330}, {6, 300}, {7, 390}, {8, 350}}
	y := []bool{false, false, true, false, true, false, true, true}
	cfg := LogisticConfig{L2: 1, MaxIter: 1}
	m, err := FitStandardized(x, y, nil, cfg)
	if !errors.Is(err, ErrNotConverged) {
		t.Fatalf("err = %v; want ErrNotConverged", err)
	}
	mean, sd := []float64{0, 0}, []float64{0, 0}
	for _, r := range x {
		for j, v := range r {
			mean[j] += v / float64(len(x))
		}
	}
	for _, r := range x {
		for j, v := range r {
			sd[j] += (v - mean[j]) * (v - mean[j]) / float64(len(x))
		}
	}
	z := make([][]float64, len(x))
	for i, r := range x {
		z[i] = []float64{(r[0] - mean[0]) / math.Sqrt(sd[0]), (r[1] - mean[1]) / math.Sqrt(sd[1])}
	}
	ms, _ := FitLogistic(z, y, nil, cfg)
	for i := range x {
		if got, want := m.Predict(x[i]), ms.Predict(z[i]); math.Abs(got-want) > tol {
			t.Errorf("row %d: raw prediction %v; standardized iterate gives %v", i, got, want)
		}
	}
}
