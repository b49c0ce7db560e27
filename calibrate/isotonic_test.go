package calibrate

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestFitIsotonic(t *testing.T) {
	// Hand-pooled with pool-adjacent-violators (scikit-learn's
	// IsotonicRegression gives the same X_thresholds_/y_thresholds_).
	const tol = 1e-15
	tests := []struct {
		name  string
		x     []float64
		y     []bool
		w     []float64
		wantX []float64
		wantY []float64
	}{
		{
			// 1,0 → pool {1,2}: ½; 1 ok; 0 → pool {3,4}: ½, equal to the
			// previous block → pool {1..4}: ½; 0 → pool {1..5}: 2/5; 1 ok.
			name:  "violating sequence",
			x:     []float64{1, 2, 3, 4, 5, 6},
			y:     []bool{true, false, true, false, false, true},
			wantX: []float64{1, 5, 6},
			wantY: []float64{0.4, 0.4, 1},
		},
		{
			// Unsorted input, same data as above in another order.
			name:  "unsorted",
			x:     []float64{6, 3, 1, 5, 2, 4},
			y:     []bool{true, true, true, false, false, false},
			wantX: []float64{1, 5, 6},
			wantY: []float64{0.4, 0.4, 1},
		},
		{
			// Ties pooled first: x=1 → (1·1 + 3·0)/4 = ¼ (weight 4); x=2 → 0
			// (weight 2); x=3 → 1. ¼ ≥ 0 → pool: 1/6 (weight 6).
			name:  "weighted ties",
			x:     []float64{1, 1, 2, 2, 3},
			y:     []bool{true, false, false, false, true},
			w:     []float64{1, 3, 1, 1, 1},
			wantX: []float64{1, 2, 3},
			wantY: []float64{1.0 / 6, 1.0 / 6, 1},
		},
		{
			name:  "already increasing",
			x:     []float64{0.1, 0.2, 0.3},
			y:     []bool{false, false, true},
			wantX: []float64{0.1, 0.2, 0.3},
			wantY: []float64{0, 0, 1},
		},
		{
			// Equal values are merged into one block (first and last kept).
			name:  "single class",
			x:     []float64{3, 1, 2},
			y:     []bool{true, true, true},
			wantX: []float64{1, 3},
			wantY: []float64{1, 1},
		},
		{
			// A zero-weight row is ignored entirely, its x included.
			name:  "zero weight",
			x:     []float64{1, 2, 3},
			y:     []bool{false, true, false},
			w:     []float64{1, 1, 0},
			wantX: []float64{1, 2},
			wantY: []float64{0, 1},
		},
		{
			name:  "one row",
			x:     []float64{0.5},
			y:     []bool{true},
			wantX: []float64{0.5},
			wantY: []float64{1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := FitIsotonic(tt.x, tt.y, tt.w)
			if err != nil {
				t.Fatalf("FitIsotonic: %v", err)
			}
			if !slices.Equal(m.X, tt.wantX) || len(m.Y) != len(tt.wantY) {
				t.Fatalf("FitIsotonic = %+v; want X = %v, Y = %v", m, tt.wantX, tt.wantY)
			}
			for i := range m.Y {
				if !close(m.Y[i], tt.wantY[i], tol) {
					t.Errorf("FitIsotonic Y = %v; want %v", m.Y, tt.wantY)
					break
				}
			}
		})
	}
}

func TestIsotonicPredict(t *testing.T) {
	// Linear interpolation by hand, clipped at the ends.
	const tol = 1e-15
	m := Isotonic{X: []float64{1, 5, 6}, Y: []float64{0.4, 0.4, 1}}
	tests := []struct{ x, want float64 }{
		{-100, 0.4}, {1, 0.4}, {3, 0.4}, {5, 0.4},
		{5.5, 0.7}, {5.25, 0.55}, {6, 1}, {math.Inf(1), 1}, {math.Inf(-1), 0.4},
	}
	for _, tt := range tests {
		if got := m.Predict(tt.x); !close(got, tt.want, tol) {
			t.Errorf("Predict(%v) = %v; want %v", tt.x, got, tt.want)
		}
	}
	if got := m.Predict(math.NaN()); !math.IsNaN(got) {
		t.Errorf("Predict(NaN) = %v; want NaN", got)
	}
	if got := (Isotonic{}).Predict(0.3); got != 0 {
		t.Errorf("zero Isotonic.Predict = %v; want 0", got)
	}
	mustPanic(t, "Isotonic.Predict(len(X) != len(Y))", func() {
		Isotonic{X: []float64{1}}.Predict(1)
	})
}

func TestFitIsotonicErrors(t *testing.T) {
	tests := []struct {
		name string
		x    []float64
		y    []bool
		w    []float64
		want error
	}{
		{"empty", nil, nil, nil, ErrEmpty},
		{"all zero weight", []float64{1}, []bool{true}, []float64{0}, ErrEmpty},
		{"NaN", []float64{math.NaN()}, []bool{true}, nil, ErrNaN},
		{"Inf", []float64{1, math.Inf(1)}, []bool{true, false}, nil, ErrNaN},
		{"negative weight", []float64{1}, []bool{true}, []float64{-2}, ErrWeight},
	}
	for _, tt := range tests {
		if _, err := FitIsotonic(tt.x, tt.y, tt.w); !errors.Is(err, tt.want) {
			t.Errorf("%s: FitIsotonic error = %v; want %v", tt.name, err, tt.want)
		}
	}
	mustPanic(t, "FitIsotonic(length mismatch)", func() {
		FitIsotonic([]float64{1, 2}, []bool{true}, nil)
	})
}

func TestFitIsotonicDoesNotMutate(t *testing.T) {
	x := []float64{3, 1, 2, 1}
	y := []bool{false, true, true, false}
	w := []float64{1, 2, 3, 4}
	x0, y0, w0 := slices.Clone(x), slices.Clone(y), slices.Clone(w)
	if _, err := FitIsotonic(x, y, w); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(x, x0) || !slices.Equal(y, y0) || !slices.Equal(w, w0) {
		t.Error("FitIsotonic modified its inputs")
	}
}

// minMaxIsotonic is an independent O(m³) reference: the increasing least-
// squares fit at the j-th distinct x is max_{i≤j} min_{k≥j} Av(i..k), the
// weighted mean of y over distinct points i..k (Barlow et al. 1972, the
// max–min formula). It returns the distinct xs and the fitted values.
func minMaxIsotonic(x []float64, y []bool, w []float64) (xs, fit []float64) {
	type pt struct{ x, sw, swy float64 }
	var pts []pt
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case x[a] < x[b]:
			return -1
		case x[a] > x[b]:
			return 1
		}
		return 0
	})
	for _, i := range idx {
		wi := weightAt(w, i)
		if wi == 0 {
			continue
		}
		if len(pts) > 0 && pts[len(pts)-1].x == x[i] {
			pts[len(pts)-1].sw += wi
			pts[len(pts)-1].swy += wi * b2f(y[i])
			continue
		}
		pts = append(pts, pt{x[i], wi, wi * b2f(y[i])})
	}
	for j := range pts {
		best := math.Inf(-1)
		for i := 0; i <= j; i++ {
			lo := math.Inf(1)
			var sw, swy float64
			for k := i; k < len(pts); k++ {
				sw += pts[k].sw
				swy += pts[k].swy
				if k >= j {
					lo = math.Min(lo, swy/sw)
				}
			}
			best = math.Max(best, lo)
		}
		xs = append(xs, pts[j].x)
		fit = append(fit, best)
	}
	return xs, fit
}

// checkIsotonic verifies the properties every fit must have: predictions
// monotone and within [0, 1], agreement with the max–min reference at every
// distinct x, and preservation of the weighted sum Σ w·y.
func checkIsotonic(t *testing.T, x []float64, y []bool, w []float64) {
	t.Helper()
	const tol = 1e-9 // sums of up to a few hundred terms
	m, err := FitIsotonic(x, y, w)
	if err != nil {
		return // data errors are tested elsewhere
	}
	xs, want := minMaxIsotonic(x, y, w)
	for j := range xs {
		if got := m.Predict(xs[j]); !close(got, want[j], tol) {
			t.Fatalf("FitIsotonic(x=%v, y=%v, w=%v).Predict(%v) = %v; max–min reference %v", x, y, w, xs[j], got, want[j])
		}
	}
	var sumFit, sumY float64
	for i := range x {
		sumFit += weightAt(w, i) * m.Predict(x[i])
		sumY += weightAt(w, i) * b2f(y[i])
	}
	if !close(sumFit, sumY, tol*math.Max(1, sumY)) {
		t.Fatalf("Σ w·f(x) = %v; want Σ w·y = %v (x=%v, y=%v, w=%v)", sumFit, sumY, x, y, w)
	}
	// Monotone on a grid spanning the thresholds, including the thresholds
	// themselves and their float neighbours.
	grid := []float64{math.Inf(-1)}
	for _, xv := range m.X {
		grid = append(grid, math.Nextafter(xv, math.Inf(-1)), xv, math.Nextafter(xv, math.Inf(1)))
	}
	for i := 1; i < len(m.X); i++ {
		for k := 1; k < 8; k++ {
			grid = append(grid, m.X[i-1]+(m.X[i]-m.X[i-1])*float64(k)/8)
		}
	}
	slices.Sort(grid)
	prev := math.Inf(-1)
	for _, g := range grid {
		p := m.Predict(g)
		if math.IsNaN(p) || p < prev || p < 0 || p > 1 {
			t.Fatalf("Predict(%v) = %v after %v: not monotone within [0, 1] (model %+v)", g, p, prev, m)
		}
		prev = p
	}
}

func TestIsotonicProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 300 {
		n := 1 + r.IntN(40)
		x := make([]float64, n)
		y := make([]bool, n)
		var w []float64
		if trial%2 == 1 {
			w = make([]float64, n)
		}
		for i := range x {
			x[i] = float64(r.IntN(12)) / 4 // many ties
			y[i] = r.Float64() < x[i]/3
			if w != nil {
				w[i] = float64(r.IntN(4)) // some zero weights
			}
		}
		checkIsotonic(t, x, y, w)
	}
}

func FuzzIsotonic(f *testing.F) {
	f.Add([]byte{1, 0, 2, 1, 3, 0, 3, 1, 200, 0})
	f.Add([]byte{9, 1, 8, 0, 7, 1, 6, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		// Each 9-byte chunk: 8 bytes of x (a float64 bit pattern), then a
		// byte whose low bit is y and whose next bits give a weight 0–3.
		var x, w []float64
		var y []bool
		for len(data) >= 9 && len(x) < 64 {
			v := math.Float64frombits(binary.LittleEndian.Uint64(data))
			if !finite(v) {
				v = float64(data[0]) // keep the row, make it valid
			}
			x = append(x, v)
			y = append(y, data[8]&1 == 1)
			w = append(w, float64(data[8]>>1&3))
			data = data[9:]
		}
		checkIsotonic(t, x, y, w)
		checkIsotonic(t, x, y, nil)
	})
}

func ExampleFitIsotonic() {
	score := []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6}
	y := []bool{false, true, false, false, true, true}
	m, err := FitIsotonic(score, y, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("X:", m.X)
	fmt.Printf("Y: %.3f\n", m.Y)
	fmt.Printf("P(0.45) = %.3f\n", m.Predict(0.45))
	// Output:
	// X: [0.1 0.2 0.4 0.5 0.6]
	// Y: [0.000 0.333 0.333 1.000 1.000]
	// P(0.45) = 0.667
}
