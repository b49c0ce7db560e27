package calibrate

import (
	"cmp"
	"math"
	"slices"
)

// RiskPoint is one point of a risk–coverage curve: after accepting the
// Accepted most confident rows, Coverage = Accepted/N of all rows are decided
// automatically and Risk = Errors/Accepted of them are wrong. Confidence is
// the confidence of the last row accepted, so accepting every row whose
// confidence is at least Confidence reaches this point (up to ties).
type RiskPoint struct {
	Accepted   int     `json:"accepted"`
	Errors     int     `json:"errors"`
	Coverage   float64 `json:"coverage"`
	Risk       float64 `json:"risk"`
	Confidence float64 `json:"confidence"`
}

// RiskCoverage returns the risk–coverage curve of a selective decision: conf
// is each row's confidence (higher means more sure), wrong says whether the
// decision on that row is an error. Rows are sorted by descending confidence
// (ties keep their input order, so the result is deterministic) and the curve
// has one point per prefix k = 1 … N of that order:
//
//	Coverage_k = k/N,  Risk_k = (Σ_{i ≤ k} wrong_(i))/k.
//
// Rows with a NaN confidence are placed last. Empty input gives an empty
// curve. RiskCoverage panics if len(wrong) != len(conf). The inputs are not
// modified; the cost is O(N log N) and one index slice.
func RiskCoverage(conf []float64, wrong []bool) []RiskPoint {
	checkLen("RiskCoverage", len(conf), wrong, nil)
	idx := byConfidence(conf)
	out := make([]RiskPoint, len(idx))
	errs := 0
	n := float64(len(idx))
	for k, i := range idx {
		if wrong[i] {
			errs++
		}
		out[k] = RiskPoint{Accepted: k + 1, Errors: errs, Coverage: float64(k+1) / n,
			Risk: float64(errs) / float64(k+1), Confidence: conf[i]}
	}
	return out
}

// AURC returns the area under the risk–coverage curve of [RiskCoverage], the
// mean prefix risk:
//
//	AURC = (1/N)·Σ_{k=1..N} Risk_k.
//
// Lower is better; a decision that is never wrong has AURC 0, and one that is
// always wrong has AURC 1. Empty input gives 0. AURC panics if len(wrong) !=
// len(conf) and does not modify its inputs.
func AURC(conf []float64, wrong []bool) float64 {
	checkLen("AURC", len(conf), wrong, nil)
	if len(conf) == 0 {
		return 0
	}
	idx := byConfidence(conf)
	var sum float64
	errs := 0
	for k, i := range idx {
		if wrong[i] {
			errs++
		}
		sum += float64(errs) / float64(k+1)
	}
	return sum / float64(len(idx))
}

// byConfidence returns the row indices by descending confidence, NaN last,
// ties in input order.
func byConfidence(conf []float64) []int {
	idx := make([]int, len(conf))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		ca, cb := conf[a], conf[b]
		switch na, nb := math.IsNaN(ca), math.IsNaN(cb); {
		case na && nb:
			return 0
		case na:
			return 1
		case nb:
			return -1
		}
		return cmp.Compare(cb, ca)
	})
	return idx
}

// ThinCurve returns at most n points of a risk–coverage curve (n ≥ 2): the
// first and last points and, between them, the first point at or after each
// coverage i/(n−1). It returns curve itself when it has at most n points. It
// panics if n < 2.
func ThinCurve(curve []RiskPoint, n int) []RiskPoint {
	if n < 2 {
		panic("calibrate: ThinCurve: n < 2")
	}
	if len(curve) <= n {
		return curve
	}
	out := make([]RiskPoint, 0, n)
	last := -1
	for i := range n {
		k := int(math.Ceil(float64(i)*float64(len(curve))/float64(n-1))) - 1
		k = min(max(k, 0), len(curve)-1)
		if k > last {
			out = append(out, curve[k])
			last = k
		}
	}
	return out
}
