package evalkit

import (
	"fmt"
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
// (lower is better). A metric computed on no rows is left out.
func gateMetrics(r *Report) map[string]gateMetric {
	m := map[string]gateMetric{}
	d := &r.Diagnosis
	if d.Attempted > 0 {
		m["diagnosis.accuracy"] = gateMetric{d.Accuracy, true}
		m["diagnosis.overallAccuracy"] = gateMetric{d.OverallAccuracy, true}
		m["diagnosis.successfulAccuracy"] = gateMetric{d.SuccessfulAccuracy, true}
		m["diagnosis.aurc"] = gateMetric{d.Selective.AURC, false}
	}
	if c := r.Cascade; c != nil && c.EndToEnd.Count > 0 {
		m["cascade.endToEndAccuracy"] = gateMetric{c.EndToEndAccuracy, true}
	}
	for _, dr := range r.Decisions.All() {
		if dr.N == 0 {
			continue
		}
		p := "decisions." + dr.Decision + "."
		m[p+"accuracy"] = gateMetric{dr.Accuracy, true}
		if dr.AUROC != nil {
			m[p+"auroc"] = gateMetric{*dr.AUROC, true}
		}
		m[p+"brier"] = gateMetric{dr.Brier, false}
		m[p+"ece"] = gateMetric{dr.ECE, false}
		m[p+"aurc"] = gateMetric{dr.AURC, false}
	}
	return m
}

// Compare checks cur against base: every quality metric present in both
// that got worse by more than maxDrop (an absolute difference: a drop for
// metrics where higher is better, a rise for the others) is a Regression,
// sorted by metric name. Notes say what could not be compared (a different
// mode or dataset, a metric only one report has, a partial report).
func Compare(base, cur *Report, maxDrop float64) (regs []Regression, notes []string) {
	if base.Mode != cur.Mode {
		notes = append(notes, fmt.Sprintf("modes differ: baseline %s, current %s", base.Mode, cur.Mode))
	}
	if base.Partial {
		notes = append(notes, "the baseline report is partial")
	}
	if cur.Partial {
		notes = append(notes, "the current report is partial")
	}
	if !sameInputs(base.Input.Files, cur.Input.Files) {
		notes = append(notes, "the input files differ (SHA-256): the comparison is across different data")
	}
	bm, cm := gateMetrics(base), gateMetrics(cur)
	names := make([]string, 0, len(bm))
	for k := range bm {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		b := bm[k]
		c, ok := cm[k]
		if !ok {
			notes = append(notes, k+": missing from the current report")
			continue
		}
		worse := b.value - c.value
		if !b.higher {
			worse = -worse
		}
		if worse > maxDrop {
			regs = append(regs, Regression{Metric: k, Baseline: b.value, Current: c.value, HigherIsBetter: b.higher})
		}
	}
	return regs, notes
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
