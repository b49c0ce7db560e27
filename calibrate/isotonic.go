package calibrate

import (
	"cmp"
	"math"
	"slices"
	"sort"
)

// Isotonic is a fitted increasing step-and-ramp function, the result of
// isotonic regression. X holds the block thresholds in increasing order and
// Y the fitted value at each; between thresholds the function is linear and
// outside [X[0], X[len(X)−1]] it is constant (scikit-learn's
// IsotonicRegression(out_of_bounds="clip") keeps the same X_thresholds_ and
// y_thresholds_ and predicts the same way).
//
// An Isotonic is a plain value; Predict may be called concurrently. The zero
// Isotonic predicts 0.
type Isotonic struct {
	X []float64 `json:"x"`
	Y []float64 `json:"y"`
}

// Predict returns the fitted value at x: Y[0] for x ≤ X[0], Y[n−1] for
// x ≥ X[n−1], and otherwise, for X[i−1] < x < X[i],
//
//	Y[i−1] + (Y[i] − Y[i−1])·(x − X[i−1])/(X[i] − X[i−1]).
//
// It returns NaN for NaN x and 0 for the zero Isotonic. It does not allocate;
// the cost is one binary search. Predict panics if len(m.X) != len(m.Y).
func (m Isotonic) Predict(x float64) float64 {
	n := len(m.X)
	if len(m.Y) != n {
		panic("calibrate: Isotonic.Predict: len(X) != len(Y)")
	}
	switch {
	case n == 0:
		return 0
	case math.IsNaN(x):
		return math.NaN()
	case x <= m.X[0]:
		return m.Y[0]
	case x >= m.X[n-1]:
		return m.Y[n-1]
	}
	i := sort.SearchFloat64s(m.X, x) // 1 ≤ i ≤ n−1, X[i−1] < x ≤ X[i]
	if m.X[i] == x {
		return m.Y[i]
	}
	x0, x1, y0, y1 := m.X[i-1], m.X[i], m.Y[i-1], m.Y[i]
	var frac float64
	if dx := x1 - x0; !math.IsInf(dx, 0) {
		frac = (x - x0) / dx
	} else { // thresholds more than MaxFloat64 apart: halve to stay finite
		frac = (x/2 - x0/2) / (x1/2 - x0/2)
	}
	v := y0 + (y1-y0)*frac
	// Rounding must not step outside [y0, y1], or monotonicity could break
	// by an ulp at a threshold.
	return min(max(v, min(y0, y1)), max(y0, y1))
}

// FitIsotonic fits the increasing function f minimising
//
//	Σ_i w_i·(f(x_i) − y_i)²,  y_i ∈ {0, 1},  w nil means w_i = 1,
//
// by pool-adjacent-violators. Rows with weight 0 are ignored. Rows with equal x
// are pooled first into one point whose value is their weighted mean and
// whose weight is their total weight. Adjacent blocks are merged while the
// earlier block's mean is ≥ the later one's, so the fitted block values are
// strictly increasing; each block contributes its first and (if different)
// last x as thresholds, both with the block mean as Y.
//
// A single class is not an error: the fit is then constant. Errors (wrapped in
// [*Error]): [ErrEmpty] when no row has a positive weight, [ErrNaN] for a NaN
// or infinite x, [ErrWeight]. FitIsotonic panics if len(y) or a non-nil w
// differ in length from x. The inputs are not modified. Cost: O(n log n)
// time, O(n) memory.
func FitIsotonic(x []float64, y []bool, w []float64) (Isotonic, error) {
	const fn = "FitIsotonic"
	checkLen(fn, len(x), y, w)
	for i, v := range x {
		if !finite(v) {
			return Isotonic{}, newErr(fn, i, ErrNaN)
		}
	}
	if err := checkWeights(fn, w); err != nil {
		return Isotonic{}, err
	}
	idx := make([]int, 0, len(x))
	for i := range x {
		if weightAt(w, i) > 0 {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return Isotonic{}, newErr(fn, -1, ErrEmpty)
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(x[a], x[b]) })

	// One block per distinct x to begin with; PAV merges blocks on a stack.
	type block struct {
		sumWY, sumW float64
		first, last float64 // smallest and largest x in the block
	}
	mean := func(b block) float64 { return b.sumWY / b.sumW }
	stack := make([]block, 0, len(idx))
	for k := 0; k < len(idx); {
		xv := x[idx[k]]
		b := block{first: xv, last: xv}
		for ; k < len(idx) && x[idx[k]] == xv; k++ {
			wi := weightAt(w, idx[k])
			b.sumW += wi
			b.sumWY += wi * b2f(y[idx[k]])
		}
		for len(stack) > 0 && mean(stack[len(stack)-1]) >= mean(b) {
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			b = block{sumWY: top.sumWY + b.sumWY, sumW: top.sumW + b.sumW, first: top.first, last: b.last}
		}
		stack = append(stack, b)
	}

	var m Isotonic
	for _, b := range stack {
		v := mean(b)
		m.X = append(m.X, b.first)
		m.Y = append(m.Y, v)
		if b.last != b.first {
			m.X = append(m.X, b.last)
			m.Y = append(m.Y, v)
		}
	}
	return m, nil
}
