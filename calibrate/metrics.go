package calibrate

import (
	"cmp"
	"math"
	"slices"
)

// AUROC returns the area under the ROC curve of score for labels y with
// optional weights w (nil means every weight is 1): the probability that a
// randomly drawn positive scores above a randomly drawn negative, ties
// counting one half (the Mann–Whitney U statistic divided by W₊·W₋):
//
//	AUROC = Σ_{i: y_i} Σ_{j: ¬y_j} w_i·w_j·( [s_i > s_j] + ½·[s_i = s_j] ) / (W₊·W₋),
//
// where W₊ and W₋ are the total weights of the positive and negative rows.
// Integer weights behave like repeated rows. ±Inf scores are allowed.
//
// Errors (wrapped in [*Error]): [ErrEmpty], [ErrNaN] for a NaN score,
// [ErrWeight], [ErrOneClass] when W₊ or W₋ is 0. AUROC panics if len(y) or a
// non-nil w differ in length from score. Cost: O(n log n) time, one index
// slice of n ints; the inputs are not modified.
func AUROC(score []float64, y []bool, w []float64) (float64, error) {
	const fn = "AUROC"
	checkLen(fn, len(score), y, w)
	if len(score) == 0 {
		return 0, newErr(fn, -1, ErrEmpty)
	}
	for i, s := range score {
		if math.IsNaN(s) {
			return 0, newErr(fn, i, ErrNaN)
		}
	}
	if err := checkWeights(fn, w); err != nil {
		return 0, err
	}
	idx := make([]int, len(score))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(score[a], score[b]) })

	var num, wPos, negBelow float64
	for i := 0; i < len(idx); {
		s := score[idx[i]]
		var gPos, gNeg float64 // weights in this group of tied scores
		for ; i < len(idx) && score[idx[i]] == s; i++ {
			if y[idx[i]] {
				gPos += weightAt(w, idx[i])
			} else {
				gNeg += weightAt(w, idx[i])
			}
		}
		num += gPos * (negBelow + 0.5*gNeg)
		negBelow += gNeg
		wPos += gPos
	}
	if wPos == 0 || negBelow == 0 {
		return 0, newErr(fn, -1, ErrOneClass)
	}
	return num / (wPos * negBelow), nil
}

// Brier returns the weighted Brier score (w nil means every weight is 1)
//
//	Brier = Σ_i w_i·(p_i − y_i)² / Σ_i w_i,  y_i ∈ {0, 1}.
//
// It returns 0 for empty input or zero total weight, and NaN if a p_i is NaN.
// Weights must be non-negative. Brier panics if len(y) or a non-nil w differ
// in length from p. It does not allocate.
func Brier(p []float64, y []bool, w []float64) float64 {
	checkLen("Brier", len(p), y, w)
	var s, sw float64
	for i, pi := range p {
		wi := weightAt(w, i)
		d := pi - b2f(y[i])
		s += wi * d * d
		sw += wi
	}
	if sw == 0 {
		return 0
	}
	return s / sw
}

// Bin is one bucket of a reliability diagram.
type Bin struct {
	Lower, Upper float64 // the bucket is [Lower, Upper), or [Lower, 1] for the last
	Count        int     // rows in the bucket
	Weight       float64 // W_b, total weight of the rows in the bucket
	MeanP        float64 // Σ_{i∈b} w_i·p_i / W_b, or 0 when W_b = 0
	FracPos      float64 // Σ_{i∈b} w_i·y_i / W_b, or 0 when W_b = 0
}

// Reliability returns the reliability diagram of probabilities p for labels y
// with optional weights w (nil means every weight is 1) in bins equal-width
// buckets over [0, 1]. Bucket b (0-based) is [b/bins, (b+1)/bins), except the
// last, which is [(bins−1)/bins, 1] and so includes 1.0; the edges are exactly
// the float64 values float64(b)/float64(bins) reported in Lower and Upper.
// Every bucket is present, empty ones with Count 0 and MeanP = FracPos = 0.
//
// Values of p below 0 are counted in the first bucket and values above 1 in
// the last; rows whose p is NaN are skipped (use [ECE] or [Brier], which
// return NaN, to detect them). scikit-learn's calibration_curve uses the same
// half-open buckets (its edges come from np.linspace, which can differ from
// b/bins in the last bit) but drops empty ones.
//
// Reliability panics if bins < 1, or if len(y) or a non-nil w differ in length
// from p. Weights must be non-negative. It allocates only the result.
func Reliability(p []float64, y []bool, w []float64, bins int) []Bin {
	checkLen("Reliability", len(p), y, w)
	if bins < 1 {
		panic("calibrate: Reliability: bins < 1")
	}
	out := make([]Bin, bins)
	nb := float64(bins)
	for b := range out {
		out[b].Lower = float64(b) / nb
		out[b].Upper = float64(b+1) / nb
	}
	for i, pi := range p {
		if math.IsNaN(pi) {
			continue
		}
		b := binIndex(pi, bins)
		wi := weightAt(w, i)
		out[b].Count++
		out[b].Weight += wi
		out[b].MeanP += wi * pi
		out[b].FracPos += wi * b2f(y[i])
	}
	for b := range out {
		if out[b].Weight > 0 {
			out[b].MeanP /= out[b].Weight
			out[b].FracPos /= out[b].Weight
		} else {
			out[b].MeanP, out[b].FracPos = 0, 0
		}
	}
	return out
}

// binIndex returns the bucket of p (not NaN) consistent with the edges
// float64(b)/float64(bins).
func binIndex(p float64, bins int) int {
	nb := float64(bins)
	p = min(max(p, 0), 1)
	b := min(int(p*nb), bins-1)
	for b > 0 && p < float64(b)/nb {
		b--
	}
	for b < bins-1 && p >= float64(b+1)/nb {
		b++
	}
	return b
}

// ECE returns the expected calibration error over the buckets of
// [Reliability]:
//
//	ECE = Σ_b (W_b / W)·|FracPos_b − MeanP_b|,  W = Σ_b W_b.
//
// Empty buckets add 0; empty input (or zero total weight) gives 0; a NaN p
// gives NaN. ECE panics if bins < 1, or if len(y) or a non-nil w differ in
// length from p.
func ECE(p []float64, y []bool, w []float64, bins int) float64 {
	checkLen("ECE", len(p), y, w)
	if bins < 1 {
		panic("calibrate: ECE: bins < 1")
	}
	for _, pi := range p {
		if math.IsNaN(pi) {
			return math.NaN()
		}
	}
	var total, sum float64
	for _, b := range Reliability(p, y, w, bins) {
		total += b.Weight
		sum += b.Weight * math.Abs(b.FracPos-b.MeanP)
	}
	if total == 0 {
		return 0
	}
	return sum / total
}
