package report

import (
	"fmt"
	"math"
	"sort"
)

// Regression is a quality metric that got worse than a baseline allows.
type Regression struct {
	// Metric names the metric, e.g. "diagnosis.accuracy" or
	// "decisions.groundedness.auroc".
	Metric   string
	Baseline float64
	Current  float64
	// HigherIsBetter says in which direction the metric improves.
	HigherIsBetter bool
}

func (r Regression) String() string {
	dir := "dropped"
	if !r.HigherIsBetter {
		dir = "rose"
	}
	return fmt.Sprintf("%s %s from %.4f to %.4f (%+.4f)", r.Metric, dir, r.Baseline, r.Current, r.Current-r.Baseline)
}

// gateMetric is one quality metric of a report and its direction.
type gateMetric struct {
	value  float64
	higher bool
}

// gateMetrics lists the quality metrics the baseline gate compares: the
// diagnosis accuracies and AURC, the cascade's end-to-end accuracy, and per
// decision accuracy and AUROC (higher is better) and Brier, ECE and AURC
// (lower is better). A metric computed on no rows (null) is left out.
func gateMetrics(r *Report) map[string]gateMetric {
	m := map[string]gateMetric{}
	add := func(name string, v *float64, higher bool) {
		if v != nil {
			m[name] = gateMetric{*v, higher}
		}
	}
	d := &r.Diagnosis
	if d.Attempted > 0 {
		add("diagnosis.accuracy", d.Accuracy, true)
		add("diagnosis.overallAccuracy", d.OverallAccuracy, true)
		add("diagnosis.successfulAccuracy", d.SuccessfulAccuracy, true)
		add("diagnosis.aurc", d.Selective.AURC, false)
	}
	if c := r.Cascade; c != nil && c.EndToEnd.Count > 0 {
		add("cascade.endToEndAccuracy", c.EndToEndAccuracy, true)
	}
	for _, dr := range r.Decisions.All() {
		if dr.N == 0 {
			continue
		}
		p := "decisions." + dr.Decision + "."
		add(p+"accuracy", dr.Accuracy, true)
		add(p+"auroc", dr.AUROC, true)
		add(p+"brier", dr.Brier, false)
		add(p+"ece", dr.ECE, false)
		add(p+"aurc", dr.AURC, false)
	}
	return m
}

// GateOptions sets the tolerances of the baseline gate.
type GateOptions struct {
	// MaxDrop is the largest worsening of a quality metric tolerated, as an
	// absolute difference.
	MaxDrop float64
	// MaxRowChange is the largest change tolerated in the rows evaluated,
	// and in the labelled rows, relative to the baseline's (0.1: ±10%).
	MaxRowChange float64
}

// GateResult is the outcome of the baseline gate. The gate fails when it
// found a regression or a problem: it fails closed, so a comparison that
// could not be made is a problem, not a pass.
type GateResult struct {
	// Regressions are the metrics that got worse by more than MaxDrop,
	// sorted by name.
	Regressions []Regression
	// Problems say why the reports could not be compared as they should: the
	// current run (or the baseline) has no labelled rows, a metric of the
	// baseline is missing from the current report, the rows evaluated or
	// labelled changed by more than MaxRowChange.
	Problems []string
	// Notes say what differs without failing the gate: the mode, the input
	// files, a partial report, metrics only the current report has.
	Notes []string
}

// Failed reports whether the gate fails.
func (g GateResult) Failed() bool { return len(g.Regressions) > 0 || len(g.Problems) > 0 }

// Compare checks cur against base. Every quality metric present in both
// that got worse by more than opt.MaxDrop (an absolute difference: a drop
// for metrics where higher is better, a rise for the others) is a
// Regression, sorted by metric name. It fails closed: a report with no
// labelled row, a metric of the baseline missing from cur, and a number of
// rows evaluated or labelled that differs from the baseline's by more than
// opt.MaxRowChange (relative) are Problems. Notes say what differs without
// failing (a different mode or input data, a partial report, a metric only
// cur has).
func Compare(base, cur *Report, opt GateOptions) GateResult {
	var g GateResult
	if base.Mode != cur.Mode {
		g.Notes = append(g.Notes, fmt.Sprintf("modes differ: baseline %s, current %s", base.Mode, cur.Mode))
	}
	if base.Partial {
		g.Notes = append(g.Notes, "the baseline report is partial")
	}
	if cur.Partial {
		g.Notes = append(g.Notes, "the current report is partial")
	}
	if !sameInputs(base.Input.Files, cur.Input.Files) {
		g.Notes = append(g.Notes, "the input files differ (SHA-256): the comparison is across different data")
	}
	if cur.Input.RowsLabeled == 0 {
		g.Problems = append(g.Problems, "the current run has no labelled rows: no quality metric can be compared")
	}
	if base.Input.RowsLabeled == 0 {
		g.Problems = append(g.Problems, "the baseline has no labelled rows: no quality metric can be compared")
	}
	for _, c := range []struct {
		what      string
		base, cur int
	}{
		{"rows evaluated", base.Input.RowsEvaluated, cur.Input.RowsEvaluated},
		{"labelled rows", base.Input.RowsLabeled, cur.Input.RowsLabeled},
	} {
		if p := rowChange(c.what, c.base, c.cur, opt.MaxRowChange); p != "" {
			g.Problems = append(g.Problems, p)
		}
	}
	bm, cm := gateMetrics(base), gateMetrics(cur)
	for _, k := range sortedKeys(bm) {
		b := bm[k]
		c, ok := cm[k]
		if !ok {
			g.Problems = append(g.Problems, k+": in the baseline, missing now")
			continue
		}
		worse := b.value - c.value
		if !b.higher {
			worse = -worse
		}
		if worse > opt.MaxDrop {
			g.Regressions = append(g.Regressions, Regression{Metric: k, Baseline: b.value, Current: c.value, HigherIsBetter: b.higher})
		}
	}
	for _, k := range sortedKeys(cm) {
		if _, ok := bm[k]; !ok {
			g.Notes = append(g.Notes, k+": new, not in the baseline")
		}
	}
	return g
}

// rowChange describes a change of a row count beyond the tolerance, or
// returns "".
func rowChange(what string, base, cur int, tol float64) string {
	if base == cur {
		return ""
	}
	if base == 0 {
		return fmt.Sprintf("%s: %d, baseline 0", what, cur)
	}
	change := float64(cur-base) / float64(base)
	if math.Abs(change) <= tol {
		return ""
	}
	return fmt.Sprintf("%s: %d, baseline %d (%+.1f%%; -max-row-change allows %.1f%%)", what, cur, base, 100*change, 100*tol)
}

func sortedKeys(m map[string]gateMetric) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func sameInputs(a, b []InputFile) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].SHA256 != b[i].SHA256 {
			return false
		}
	}
	return true
}

// CheckFallbackErrors returns why the fallback's failures should fail a
// run: calls failed at the transport level (no HTTP response) and the
// fallback gave no estimate at all, or more than maxRate of its calls
// failed. Reports without a fallbackErrors block (primary and recorded
// mode) have none.
func CheckFallbackErrors(r *Report, maxRate float64) []string {
	fe := r.FallbackErrors
	if fe == nil || fe.Failed == 0 {
		return nil
	}
	var out []string
	if fe.Transport > 0 && fe.Estimates == 0 {
		out = append(out, fmt.Sprintf("%d of %d fallback calls got no HTTP response (transport failure) and the fallback settled nothing", fe.Transport, fe.Calls))
	}
	if rate := float64(fe.Failed) / float64(fe.Calls); rate > maxRate {
		out = append(out, fmt.Sprintf("%d of %d fallback calls failed (%.1f%%), more than the %.1f%% allowed", fe.Failed, fe.Calls, 100*rate, 100*maxRate))
	}
	return out
}
