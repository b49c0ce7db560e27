package fit

import (
	"fmt"

	"github.com/ragtriage/ragtriage/calibrate"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

// HeldOut is the cross-fitted check of a decision's thresholds: for each
// fold, thresholds chosen on the other folds' out-of-fold P, applied to
// the fold.
type HeldOut struct {
	N              int     `json:"n"`
	AutoPass       int     `json:"autoPass"`
	AutoPassErrors int     `json:"autoPassErrors"`
	AutoFail       int     `json:"autoFail"`
	AutoFailErrors int     `json:"autoFailErrors"`
	Coverage       float64 `json:"coverage"`
	ErrorRate      float64 `json:"errorRate"`
}

// CheckHeldOut runs the held-out check of f, fitted on exs. It is cross-fitted,
// not nested: the other folds' P come from models that saw this fold.
// Synthetic examples are left out, as they are when thresholds are chosen.
func CheckHeldOut(f *Fitted, exs []Example, st Settings) (HeldOut, error) {
	var h HeldOut
	for k := range st.Folds {
		if !hasReal(exs, func(e *Example) bool { return e.Fold != k }) {
			continue
		}
		s, err := choose(f.Decision, exs, f.OOF, func(e *Example) bool { return e.Fold != k }, st)
		if err != nil {
			return HeldOut{}, fmt.Errorf("held-out check, fold %d: %w", k, err)
		}
		for i := range exs {
			e := &exs[i]
			if e.Fold != k || e.Synthetic {
				continue
			}
			// A sample-level check is judged by the fail side alone.
			if v := s.Thresholds.Verdict(gate(s, f.OOF[i], e.Hard)); !e.selectOnly() || v == guard.Fail {
				h.count(v, e.Y)
			}
		}
	}
	if h.N > 0 {
		h.Coverage = float64(h.AutoPass+h.AutoFail) / float64(h.N)
	}
	if dec := h.AutoPass + h.AutoFail; dec > 0 {
		h.ErrorRate = float64(h.AutoPassErrors+h.AutoFailErrors) / float64(dec)
	}
	return h, nil
}

// hasReal reports whether a real example is in.
func hasReal(exs []Example, in func(*Example) bool) bool {
	for i := range exs {
		if e := &exs[i]; in(e) && !e.Synthetic {
			return true
		}
	}
	return false
}

// count adds one held-out verdict v on an example labelled y.
func (h *HeldOut) count(v guard.Verdict, y bool) {
	h.N++
	switch v {
	case guard.Pass:
		h.AutoPass++
		if !y {
			h.AutoPassErrors++
		}
	case guard.Fail:
		h.AutoFail++
		if y {
			h.AutoFailErrors++
		}
	}
}

// Quality summarizes predictions p of labels y. AUROC is −1, and err says
// why, when it is undefined (a single class).
func Quality(p []float64, y []bool) (q lexical.Quality, err error) {
	q = lexical.Quality{N: len(p), Brier: calibrate.Brier(p, y, nil), ECE: calibrate.ECE(p, y, nil, 10), AUROC: -1}
	a, err := calibrate.AUROC(p, y, nil)
	if err == nil {
		q.AUROC = a
	}
	return q, err
}

// PassRule chooses the pass rule from labelled rows: results[i] is row i
// judged with out-of-fold P, good[i] whether its answer should pass and
// source[i] its labelled source. It is the most lenient rule whose
// auto-passes keep the promise on every source (lexical.SelectPassRule).
func PassRule(results []guard.Result, good []bool, source []int, st Settings) (guard.PassRule, []lexical.RuleCheck) {
	passed := make([][]bool, len(guard.PassRules))
	for k := range passed {
		passed[k] = make([]bool, len(results))
	}
	for i := range results {
		for k, ok := range Passes(results[i]) {
			passed[k][i] = ok
		}
	}
	return lexical.SelectPassRule(passed, good, source, st.Alpha, st.Confidence)
}

// Passes reports, for each rule of guard.PassRules, whether res diagnoses
// as a pass under it.
func Passes(res guard.Result) []bool {
	out := make([]bool, len(guard.PassRules))
	for k, rule := range guard.PassRules {
		res.PassRule = rule
		out[k] = guard.Diagnose(&res).Diagnosis == guard.PassDiagnosis
	}
	return out
}
