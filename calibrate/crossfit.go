package calibrate

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
)

// FitStandardized fits a [Logistic] like [FitLogistic], but on standardized
// features, and folds the standardization back into the returned weights, so
// that the model applies to raw features:
//
//	z_ij = (x_ij − μ_j)/σ_j,  σ_j = the population standard deviation (1 when below 1e-9),
//	β_j = β'_j/σ_j,  b = b' − Σ_j β'_j·μ_j/σ_j,
//
// where (β', b') is FitLogistic's fit on z. Standardizing first makes a ridge
// penalty (cfg.L2) act evenly on features of different scales. Sign
// constraints (cfg.Signs) carry over unchanged: σ_j > 0, so β_j has the sign
// of β'_j, and a weight clamped at 0 stays exactly 0. μ and σ are
// unweighted. Errors and panics are those of FitLogistic; with
// [ErrNotConverged] or [ErrSeparable] the last iterate is returned folded
// back to raw features like a converged fit, for callers that accept an
// approximate model. The inputs are not modified.
func FitStandardized(x [][]float64, y []bool, w []float64, cfg LogisticConfig) (Logistic, error) {
	const fn = "FitStandardized"
	checkLen(fn, len(x), y, w)
	if len(x) == 0 {
		return Logistic{}, newErr(fn, -1, ErrEmpty)
	}
	k := len(x[0])
	for i, row := range x {
		if len(row) != k {
			return Logistic{}, newErr(fn, i, ErrRagged)
		}
	}
	mean := make([]float64, k)
	sd := make([]float64, k)
	for _, row := range x {
		for j, v := range row {
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(len(x))
	}
	for _, row := range x {
		for j, v := range row {
			sd[j] += (v - mean[j]) * (v - mean[j])
		}
	}
	for j := range sd {
		sd[j] = math.Sqrt(sd[j] / float64(len(x)))
		if sd[j] < 1e-9 {
			sd[j] = 1
		}
	}
	z := make([][]float64, len(x))
	cells := make([]float64, len(x)*k)
	for r, row := range x {
		zr := cells[r*k : (r+1)*k : (r+1)*k]
		for j, v := range row {
			zr[j] = (v - mean[j]) / sd[j]
		}
		z[r] = zr
	}
	m, err := FitLogistic(z, y, w, cfg)
	if err != nil && !errors.Is(err, ErrNotConverged) && !errors.Is(err, ErrSeparable) {
		return m, err
	}
	// The approximate model of ErrNotConverged and ErrSeparable is folded
	// back too, so that a caller that accepts it gets raw-feature weights.
	out := Logistic{Weights: make([]float64, k), Bias: m.Bias}
	for j := range out.Weights {
		out.Weights[j] = m.Weights[j] / sd[j]
		out.Bias -= m.Weights[j] * mean[j] / sd[j]
	}
	return out, err
}

// GroupFold assigns a group of rows to one of k folds (0 … k−1) by the
// FNV-1a 64-bit hash of its key: hash mod k. Rows that share a group (the
// same question, the same passage) share a fold, so that cross-validation
// never trains on one and scores the other. The assignment depends only on
// the key. GroupFold panics if k < 1.
func GroupFold(group string, k int) int {
	if k < 1 {
		panic("calibrate: GroupFold: k < 1")
	}
	h := fnv.New64a()
	h.Write([]byte(group))
	return int(h.Sum64() % uint64(k))
}

// CrossValPredict returns out-of-fold predictions: for each fold f in 0 … k−1
// it fits [FitStandardized] on the rows with folds[i] ≠ f and predicts the
// rows with folds[i] = f. Every row's prediction thus comes from a model that
// did not see it. A fold with no rows is skipped.
//
// An error names the fold whose fit failed (for example [ErrOneClass] when
// the other folds hold a single class) and comes with nil predictions, except
// [ErrNotConverged]: the predictions of the last iterate are returned with an
// error that wraps it, for callers that accept an approximate fit. CrossValPredict panics if folds, y or
// a non-nil w differ in length from x, or if a fold index is outside [0, k).
func CrossValPredict(x [][]float64, y []bool, w []float64, folds []int, k int, cfg LogisticConfig) ([]float64, error) {
	const fn = "CrossValPredict"
	checkLen(fn, len(x), y, w)
	if len(folds) != len(x) {
		panic("calibrate: CrossValPredict: slice length mismatch")
	}
	for _, f := range folds {
		if f < 0 || f >= k {
			panic("calibrate: CrossValPredict: fold index out of range")
		}
	}
	oof := make([]float64, len(x))
	var approx error
	for f := range k {
		var xs [][]float64
		var ys []bool
		var ws []float64
		held := 0
		for i := range x {
			if folds[i] == f {
				held++
				continue
			}
			xs = append(xs, x[i])
			ys = append(ys, y[i])
			if w != nil {
				ws = append(ws, w[i])
			}
		}
		if held == 0 {
			continue
		}
		m, err := FitStandardized(xs, ys, ws, cfg)
		if errors.Is(err, ErrNotConverged) {
			// Keep the approximate model's predictions; report it.
			approx = errors.Join(approx, fmt.Errorf("calibrate: CrossValPredict: fold %d: %w", f, err))
		} else if err != nil {
			return nil, fmt.Errorf("calibrate: CrossValPredict: fold %d: %w", f, err)
		}
		for i := range x {
			if folds[i] == f {
				oof[i] = m.Predict(x[i])
			}
		}
	}
	return oof, approx
}

// Thresholds returns the selection as a (fail, pass) pair for a policy whose
// rule is "P ≤ fail fails, P ≥ pass passes": Fail when HasFail (else 0) and
// Pass when HasPass (else 1). With neither region it is (0, 1), which decides
// only the probabilities exactly 0 and 1.
func (s Selection) Thresholds() (fail, pass float64) {
	fail, pass = 0, 1
	if s.HasFail {
		fail = s.Fail
	}
	if s.HasPass {
		pass = s.Pass
	}
	return fail, pass
}
