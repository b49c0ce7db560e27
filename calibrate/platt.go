package calibrate

import (
	"fmt"
	"math"
)

// Platt is Platt's sigmoid calibration of a single score s:
//
//	P(true | s) = 1 / (1 + exp(A·s + B))
//
// A Platt is a plain value; Predict may be called concurrently. A score that
// rises with the probability of true gives A < 0. The zero Platt predicts 0.5.
type Platt struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

// Predict returns P(true | s). It does not allocate and does not overflow.
func (p Platt) Predict(s float64) float64 {
	return sigmoid(-(p.A*s + p.B))
}

// FitPlatt fits a [Platt] sigmoid to scores with labels y and optional weights
// w (nil means every weight is 1), following Platt (1999) with his smoothed
// targets
//
//	t_i = (N₊ + 1)/(N₊ + 2) if y_i,  1/(N₋ + 2) otherwise,
//
// where N₊ and N₋ are the total weights of the positive and negative rows (the
// counts when w is nil). It minimises the cross-entropy
//
//	F(A, B) = −Σ_i w_i·[ t_i·log p_i + (1 − t_i)·log(1 − p_i) ],  p_i = 1/(1+exp(A·s_i + B)),
//
// by Newton's method with backtracking, as recommended by Lin, Lin & Weng
// (2007), "A note on Platt's probabilistic outputs for support vector
// machines", starting from A = 0, B = log((N₋ + 1)/(N₊ + 1)). Because the
// targets lie strictly inside (0, 1), F has a finite minimiser even when the
// scores separate the classes.
//
// Errors (wrapped in [*Error]): [ErrEmpty], [ErrNaN] for a NaN or infinite
// score, [ErrWeight], [ErrOneClass], and [ErrNotConverged] (returned with the
// last iterate) should Newton's method not converge in 100 iterations.
// FitPlatt panics if len(y) or a non-nil w differ in length from score. The
// inputs are not modified.
func FitPlatt(score []float64, y []bool, w []float64) (Platt, error) {
	const fn = "FitPlatt"
	checkLen(fn, len(score), y, w)
	if len(score) == 0 {
		return Platt{}, newErr(fn, -1, ErrEmpty)
	}
	for i, s := range score {
		if !finite(s) {
			return Platt{}, newErr(fn, i, ErrNaN)
		}
	}
	if err := checkWeights(fn, w); err != nil {
		return Platt{}, err
	}
	var nPos, nNeg float64
	for i, yi := range y {
		if yi {
			nPos += weightAt(w, i)
		} else {
			nNeg += weightAt(w, i)
		}
	}
	if nPos+nNeg == 0 {
		return Platt{}, newErr(fn, -1, ErrEmpty)
	}
	if nPos == 0 || nNeg == 0 {
		return Platt{}, newErr(fn, -1, ErrOneClass)
	}
	hi, lo := (nPos+1)/(nPos+2), 1/(nNeg+2)
	t := make([]float64, len(y))
	rows := make([][]float64, len(score))
	for i := range score {
		rows[i] = score[i : i+1 : i+1] // read-only view, no copy
		if y[i] {
			t[i] = hi
		} else {
			t[i] = lo
		}
	}
	// Fit logit P = β·s + b; Platt's parameters are A = −β, B = −b.
	prob := fitProblem{x: rows, t: t, w: w}
	theta := []float64{0, math.Log((nPos + 1) / (nNeg + 1))}
	converged, iters := prob.newton(theta, 100, 1e-10)
	p := Platt{A: -theta[0], B: -theta[1]}
	if !converged {
		return p, newErr(fn, -1, fmt.Errorf("%w in %d iterations", ErrNotConverged, iters))
	}
	return p, nil
}
