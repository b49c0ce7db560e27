package calibrate

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
)

// Region is one automatically decided region of a [Selection].
type Region struct {
	Threshold  float64 // auto-pass: P ≥ Threshold; auto-fail: P ≤ Threshold
	Count      int     // rows in the region
	Errors     int     // wrong decisions: y = false rows in auto-pass, y = true rows in auto-fail
	ErrorRate  float64 // Errors/Count, or 0 when Count is 0
	UpperBound float64 // ClopperPearsonUpper(Errors, Count, Confidence); 1 when Count is 0
	Coverage   float64 // Count/N
}

// Selection is a two-sided routing policy for a calibrated probability P of
// "true": P ≥ Pass auto-passes, P ≤ Fail auto-fails, and everything between
// is escalated. Fail < Pass always holds, so the regions are disjoint.
//
// When no pass region was feasible HasPass is false, Pass is 1 and AutoPass
// has Count 0; a caller comparing P ≥ Pass itself would still auto-pass a P
// of exactly 1, so consult HasPass or use [Selection.Band]. Likewise, with
// no feasible fail region HasFail is false and Fail is 0, where a P of
// exactly 0 would still compare as auto-fail.
//
// A Selection is a plain value; Band may be called concurrently. The zero
// Selection escalates everything.
type Selection struct {
	Fail, Pass         float64
	AutoFail, AutoPass Region
	HasFail, HasPass   bool
	Coverage           float64 // (AutoPass.Count + AutoFail.Count)/N
	N                  int     // rows the thresholds were selected on
	Alpha, Confidence  float64 // the arguments of SelectThresholds
}

// Band is the outcome of routing one probability through a [Selection].
// The zero Band is BandEscalate, the safe outcome.
type Band int

// Bands.
const (
	BandEscalate Band = iota
	BandPass
	BandFail
)

// String returns "escalate", "pass" or "fail" (low-cardinality labels).
func (r Band) String() string {
	switch r {
	case BandPass:
		return "pass"
	case BandFail:
		return "fail"
	case BandEscalate:
		return "escalate"
	}
	return fmt.Sprintf("Band(%d)", int(r))
}

// Band returns BandPass when s.HasPass and p ≥ s.Pass, BandFail when
// s.HasFail and p ≤ s.Fail, and BandEscalate otherwise (including NaN p).
// It does not allocate.
func (s Selection) Band(p float64) Band {
	switch {
	case s.HasPass && p >= s.Pass:
		return BandPass
	case s.HasFail && p <= s.Fail:
		return BandFail
	}
	return BandEscalate
}

// SelectThresholds chooses the two thresholds of a [Selection] from
// calibration data: probabilities p of "true" and the true labels y.
//
// A candidate threshold is a distinct value of p. The auto-pass region of a
// candidate t is {i : p_i ≥ t}, whose errors are its y = false rows; the
// auto-fail region of t is {i : p_i ≤ t}, whose errors are its y = true rows.
// A region with k errors among n rows is feasible when its exact one-sided
// upper bound on the error rate is at most alpha:
//
//	ClopperPearsonUpper(k, n, confidence) ≤ alpha
//	⇔ P(X ≤ k | X ~ Binomial(n, alpha)) ≤ 1 − confidence  (the form evaluated).
//
// Feasibility is not monotone in t, so every candidate is checked. Pass is the
// smallest p value of the chosen upper region and Fail the largest p value of
// the chosen lower region; in between, rows are escalated. Thresholds are data
// values, not midpoints: new data exactly at Pass auto-pass.
//
// Without a conflict, Pass is the feasible candidate with the largest
// auto-pass coverage and Fail the one with the largest auto-fail coverage.
// If those two regions would overlap (possible for a large alpha), the pair
// of disjoint feasible regions (Fail < Pass) with the largest total coverage
// is chosen instead, ties going to the smaller auto-pass region; each region
// then still meets the bound on its own. Pass is never 0 and Fail never 1
// (an auto-pass region must exclude P = 0 and an auto-fail region P = 1), so
// Fail < Pass holds also with the defaults Pass = 1 (HasPass false) and
// Fail = 0 (HasFail false).
//
// Errors (wrapped in [*Error]): [ErrEmpty]; [ErrRange] when alpha or
// confidence is not in (0, 1) or a p is outside [0, 1]; [ErrNaN] for a NaN
// p. SelectThresholds panics if len(y) != len(p). The inputs are not
// modified. Cost: O(n log n) plus one incomplete-beta evaluation per
// distinct p value and side.
func SelectThresholds(p []float64, y []bool, alpha, confidence float64) (Selection, error) {
	const fn = "SelectThresholds"
	checkLen(fn, len(p), y, nil)
	if !(alpha > 0 && alpha < 1) {
		return Selection{}, newErr(fn, -1, fmt.Errorf("alpha = %v not in (0, 1): %w", alpha, ErrRange))
	}
	if !(confidence > 0 && confidence < 1) {
		return Selection{}, newErr(fn, -1, fmt.Errorf("confidence = %v not in (0, 1): %w", confidence, ErrRange))
	}
	if err := checkProbs(fn, p); err != nil {
		return Selection{}, err
	}
	n := len(p)
	t := newThresholdTable(p, y)
	feasible := func(errs, count int) bool {
		return count > 0 && errs < count && binomCDF(errs, count, alpha) <= 1-confidence
	}
	bestPass, bestFail := t.widestPair(t.bestFailUpTo(feasible), feasible)

	region := func(threshold float64, count, errs int) Region {
		r := Region{Threshold: threshold, Count: count, Errors: errs, UpperBound: 1}
		if count > 0 {
			r.ErrorRate = float64(errs) / float64(count)
			r.UpperBound = ClopperPearsonUpper(errs, count, confidence)
			r.Coverage = float64(count) / float64(n)
		}
		return r
	}
	s := Selection{
		Pass: 1, Fail: 0,
		AutoPass: region(1, 0, 0), AutoFail: region(0, 0, 0),
		N: n, Alpha: alpha, Confidence: confidence,
	}
	if bestPass >= 0 {
		c, e := t.passRegion(bestPass)
		s.Pass, s.HasPass, s.AutoPass = t.vals[bestPass], true, region(t.vals[bestPass], c, e)
	}
	if bestFail >= 0 {
		c, e := t.failRegion(bestFail)
		s.Fail, s.HasFail, s.AutoFail = t.vals[bestFail], true, region(t.vals[bestFail], c, e)
	}
	s.Coverage = float64(s.AutoPass.Count+s.AutoFail.Count) / float64(n)
	return s, nil
}

// thresholdTable holds the candidate thresholds of SelectThresholds, the
// distinct values of p in increasing order, with the number of rows (le)
// and of true rows (posLE) at or below each.
type thresholdTable struct {
	vals      []float64
	le, posLE []int
	n, pos    int // rows and true rows in all
}

func newThresholdTable(p []float64, y []bool) thresholdTable {
	idx := ascending(p)
	n := len(p)
	var vals []float64
	var le, posLE []int
	rows, pos := 0, 0
	for k := 0; k < n; {
		v := p[idx[k]]
		for ; k < n && p[idx[k]] == v; k++ {
			rows++
			if y[idx[k]] {
				pos++
			}
		}
		vals = append(vals, v)
		le = append(le, rows)
		posLE = append(posLE, pos)
	}
	return thresholdTable{vals: vals, le: le, posLE: posLE, n: n, pos: pos}
}

// below returns the rows and true rows strictly below vals[j].
func (t *thresholdTable) below(j int) (rows, pos int) {
	if j == 0 {
		return 0, 0
	}
	return t.le[j-1], t.posLE[j-1]
}

// passRegion counts the rows with p ≥ vals[j] and the errors (false rows)
// among them.
func (t *thresholdTable) passRegion(j int) (count, errs int) {
	r, q := t.below(j)
	count = t.n - r
	return count, count - (t.pos - q)
}

// failRegion counts the rows with p ≤ vals[j] and the errors (true rows)
// among them.
func (t *thresholdTable) failRegion(j int) (count, errs int) { return t.le[j], t.posLE[j] }

// failCount is the size of the auto-fail region of candidate j (0 for -1,
// no region).
func (t *thresholdTable) failCount(j int) int {
	if j < 0 {
		return 0
	}
	c, _ := t.failRegion(j)
	return c
}

// bestFailUpTo returns, for each candidate j, the largest feasible
// auto-fail candidate index ≤ j, or −1.
func (t *thresholdTable) bestFailUpTo(feasible func(errs, count int) bool) []int {
	best := make([]int, len(t.vals))
	for j := range best {
		best[j] = -1
		if j > 0 {
			best[j] = best[j-1]
		}
		if t.vals[j] < 1 {
			if c, e := t.failRegion(j); feasible(e, c) {
				best[j] = j
			}
		}
	}
	return best
}

// widestPair maximises total coverage over disjoint feasible (pass, fail)
// pairs, either side possibly absent (-1). Scanning pass candidates from the
// top grows the auto-pass region, so keeping only strict improvements breaks
// ties towards the smaller auto-pass region.
func (t *thresholdTable) widestPair(bestFail []int, feasible func(errs, count int) bool) (pass, fail int) {
	m := len(t.vals)
	pass, fail = -1, bestFail[m-1]
	bestTotal := t.failCount(fail)
	for j := m - 1; j >= 0 && t.vals[j] > 0; j-- {
		c, e := t.passRegion(j)
		if !feasible(e, c) {
			continue
		}
		f := -1
		if j > 0 {
			f = bestFail[j-1]
		}
		if total := c + t.failCount(f); total > bestTotal {
			bestTotal, pass, fail = total, j, f
		}
	}
	return pass, fail
}

// SweepPoint is the outcome of one (Fail, Pass) pair in [SweepTwoSided].
// Coverages are fractions of all rows; error rates are fractions of the rows
// in the region (0 for an empty region).
type SweepPoint struct {
	Fail, Pass                                            float64
	AutoPassCoverage, AutoFailCoverage, EscalatedCoverage float64
	AutoPassErrors, AutoFailErrors                        int
	AutoPassErrorRate, AutoFailErrorRate                  float64
}

// SweepTwoSided evaluates every pair (f, q) from fails × passes with f < q
// (pairs with f ≥ q, or a NaN, are skipped), in order: fails outer, passes
// inner. For a pair, rows with p ≥ q auto-pass (errors: y = false), rows with
// p ≤ f auto-fail (errors: y = true) and the rest, including rows with NaN p,
// are escalated:
//
//	AutoPassCoverage = #{p ≥ q}/N,  AutoPassErrorRate = #{p ≥ q, ¬y}/#{p ≥ q},
//	AutoFailCoverage = #{p ≤ f}/N,  AutoFailErrorRate = #{p ≤ f, y}/#{p ≤ f},
//	EscalatedCoverage = 1 − AutoPassCoverage − AutoFailCoverage  (0 when N = 0).
//
// It panics if len(y) != len(p). The inputs are not modified. Cost:
// O(n log n + |fails|·|passes|·log n).
func SweepTwoSided(p []float64, y []bool, fails, passes []float64) []SweepPoint {
	checkLen("SweepTwoSided", len(p), y, nil)
	idx := make([]int, 0, len(p))
	for i, v := range p {
		if !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(p[a], p[b]) })
	sorted := make([]float64, len(idx))
	posPrefix := make([]int, len(idx)+1) // true rows among sorted[:i]
	for k, i := range idx {
		sorted[k] = p[i]
		posPrefix[k+1] = posPrefix[k]
		if y[i] {
			posPrefix[k+1]++
		}
	}
	total := float64(len(p))
	frac := func(a, b int) float64 {
		if b == 0 {
			return 0
		}
		return float64(a) / float64(b)
	}
	out := make([]SweepPoint, 0, len(fails)*len(passes))
	for _, f := range fails {
		nFail := sort.Search(len(sorted), func(i int) bool { return sorted[i] > f })
		failErr := posPrefix[nFail]
		for _, q := range passes {
			if !(f < q) {
				continue
			}
			start := sort.SearchFloat64s(sorted, q)
			nPass := len(sorted) - start
			passErr := nPass - (posPrefix[len(sorted)] - posPrefix[start])
			pt := SweepPoint{
				Fail: f, Pass: q,
				AutoPassErrors: passErr, AutoFailErrors: failErr,
				AutoPassErrorRate: frac(passErr, nPass), AutoFailErrorRate: frac(failErr, nFail),
			}
			if total > 0 {
				pt.AutoPassCoverage = float64(nPass) / total
				pt.AutoFailCoverage = float64(nFail) / total
				pt.EscalatedCoverage = float64(len(p)-nPass-nFail) / total
			}
			out = append(out, pt)
		}
	}
	return out
}
