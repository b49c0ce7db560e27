package report

import (
	"fmt"
	"math"
	"sort"
	"strings"
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
// Probability metrics measure the judges' probabilities themselves; they
// are gated only between reports made with the same profile.
type gateMetric struct {
	value       float64
	higher      bool
	probability bool
}

// gateMetrics lists the quality metrics the baseline gate compares. They
// are the diagnosis accuracies and AURC, and the cascade's end-to-end
// accuracy. Per decision, they say what the policy did with the labelled
// items: coverage is the share decided automatically (higher is better).
// autoErrorRate is the error rate of those decided (lower is better); it
// is present when some were decided. Then come the probability metrics:
// accuracy at 0.5 and AUROC (higher is better), Brier, ECE and AURC (lower
// is better). A metric computed on no rows (null) is left out.
func gateMetrics(r *Report) map[string]gateMetric {
	m := map[string]gateMetric{}
	add := func(name string, v *float64, higher, prob bool) {
		if v != nil {
			m[name] = gateMetric{*v, higher, prob}
		}
	}
	d := &r.Diagnosis
	if d.Attempted > 0 {
		add("diagnosis.accuracy", d.Accuracy, true, false)
		add("diagnosis.overallAccuracy", d.OverallAccuracy, true, false)
		add("diagnosis.successfulAccuracy", d.SuccessfulAccuracy, true, false)
		add("diagnosis.aurc", d.Selective.AURC, false, false)
	}
	if c := r.Cascade; c != nil && c.EndToEnd.Count > 0 {
		add("cascade.endToEndAccuracy", c.EndToEndAccuracy, true, false)
	}
	for _, dr := range r.Decisions.All() {
		if dr.N == 0 {
			continue
		}
		p := "decisions." + dr.Decision + "."
		po := &dr.Policy
		cov := po.Coverage
		add(p+"coverage", &cov, true, false)
		if n := po.AutoPass.Count + po.AutoFail.Count; n > 0 {
			rate := float64(po.AutoPass.Errors+po.AutoFail.Errors) / float64(n)
			add(p+"autoErrorRate", &rate, false, false)
		}
		add(p+"accuracy", dr.Accuracy, true, true)
		add(p+"auroc", dr.AUROC, true, true)
		add(p+"brier", dr.Brier, false, true)
		add(p+"ece", dr.ECE, false, true)
		add(p+"aurc", dr.AURC, false, true)
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
//
// When the reports were made with different profiles, the probability
// metrics (accuracy at 0.5, AUROC, Brier, ECE, AURC) compare two models,
// and a calibrated profile holds the probabilities of rows without hard
// evidence inside its escalation band on purpose. Their changes are then
// notes, and a note names both profiles. What the policy did stays gated:
// the diagnosis metrics, and each decision's coverage and error rate of
// the automatic decisions. A profile that decides more is not a regression
// unless it decides with more error. Where the baseline decided nothing,
// its error rate counts as 0: the current one is gated against 0.
func Compare(base, cur *Report, opt GateOptions) GateResult {
	var g GateResult
	otherProfile := base.Reproduce.ProfileVersion != cur.Reproduce.ProfileVersion
	if otherProfile {
		g.Notes = append(g.Notes, fmt.Sprintf("the reports used different profiles: baseline %s, current %s; "+
			"the probability metrics (accuracy at 0.5, AUROC, Brier, ECE, AURC) compare different models and are not gated; "+
			"the diagnosis metrics and each decision's coverage and automatic-decision error rate are",
			profileName(base.Reproduce.ProfileVersion), profileName(cur.Reproduce.ProfileVersion)))
	}
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
		if worse <= opt.MaxDrop {
			continue
		}
		r := Regression{Metric: k, Baseline: b.value, Current: c.value, HigherIsBetter: b.higher}
		if otherProfile && b.probability {
			g.Notes = append(g.Notes, r.String()+": not gated (the profiles differ)")
			continue
		}
		g.Regressions = append(g.Regressions, r)
	}
	g.newMetrics(bm, cm, opt.MaxDrop)
	return g
}

// newMetrics notes the metrics only cur has. The error rate of automatic
// decisions the baseline did not make is gated all the same: deciding
// nothing makes no error, so the baseline's rate counts as 0, and a rate
// above maxDrop is a regression.
func (g *GateResult) newMetrics(bm, cm map[string]gateMetric, maxDrop float64) {
	for _, k := range sortedKeys(cm) {
		if _, ok := bm[k]; ok {
			continue
		}
		c := cm[k]
		if !strings.HasSuffix(k, ".autoErrorRate") {
			g.Notes = append(g.Notes, k+": new, not in the baseline")
			continue
		}
		if c.value > maxDrop {
			g.Regressions = append(g.Regressions, Regression{Metric: k, Current: c.value})
			continue
		}
		g.Notes = append(g.Notes, fmt.Sprintf("%s: new, not in the baseline (it decided nothing): %.4f, within %.4f of 0", k, c.value, maxDrop))
	}
	sort.Slice(g.Regressions, func(i, j int) bool { return g.Regressions[i].Metric < g.Regressions[j].Metric })
}

// profileName is a report's profile version, or what an empty one means.
func profileName(v string) string {
	if v == "" {
		return "(none recorded)"
	}
	return v
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
