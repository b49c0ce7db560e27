package report

import (
	"strings"
	"testing"
)

// gateReport is a report with one labelled decision and the profile named.
func gateReport(profile string, brier, coverage float64, decided, errors int) *Report {
	r := &Report{Reproduce: Reproducibility{ProfileVersion: profile}}
	r.Input.RowsEvaluated, r.Input.RowsLabeled = 100, 100
	acc := 0.8
	d := Decision{Decision: "groundedness", N: 100, Labeled: 100, Accuracy: &acc, Brier: &brier}
	d.Policy.Coverage = coverage
	d.Policy.AutoPass = RegionStats{Count: decided, Errors: errors}
	r.Decisions.Generation = []Decision{d}
	return r
}

// TestCompareProfiles: between reports of different profiles, the
// probability metrics are notes (naming both profiles), while coverage and
// the automatic decisions' error rate stay gated; with one profile every
// metric is gated.
func TestCompareProfiles(t *testing.T) {
	opt := GateOptions{MaxDrop: 0.02, MaxRowChange: 0.1}
	for _, tc := range []struct {
		name               string
		base, cur          *Report
		regressions, notes []string
	}{
		{"same profile, Brier rose", gateReport("p1", 0.10, 0, 0, 0), gateReport("p1", 0.20, 0, 0, 0),
			[]string{"decisions.groundedness.brier rose"}, nil},
		{"other profile deciding more, Brier rose", gateReport("p1", 0.10, 0, 0, 0), gateReport("p2", 0.20, 0.7, 70, 1),
			nil, []string{"the reports used different profiles: baseline p1, current p2", "decisions.groundedness.brier rose from 0.1000 to 0.2000 (+0.1000): not gated",
				"decisions.groundedness.autoErrorRate: new"}},
		{"other profile, more automatic errors", gateReport("p1", 0.10, 0.5, 50, 0), gateReport("p2", 0.10, 0.5, 50, 5),
			[]string{"decisions.groundedness.autoErrorRate rose from 0.0000 to 0.1000"}, []string{"different profiles"}},
		{"other profile deciding what the baseline did not, mostly wrong", gateReport("p1", 0.10, 0, 0, 0), gateReport("p2", 0.10, 0.14, 14, 13),
			[]string{"decisions.groundedness.autoErrorRate rose from 0.0000 to 0.9286"}, []string{"different profiles"}},
		{"same profile deciding what the baseline did not, 3% wrong", gateReport("p1", 0.10, 0, 0, 0), gateReport("p1", 0.10, 0.3, 30, 1),
			[]string{"decisions.groundedness.autoErrorRate rose from 0.0000 to 0.0333"}, nil},
		{"same profile, decides less", gateReport("p1", 0.10, 0.5, 50, 0), gateReport("p1", 0.10, 0.2, 20, 0),
			[]string{"decisions.groundedness.coverage dropped from 0.5000 to 0.2000"}, nil},
	} {
		g := Compare(tc.base, tc.cur, opt)
		var regs []string
		for _, r := range g.Regressions {
			regs = append(regs, r.String())
		}
		if len(regs) != len(tc.regressions) {
			t.Errorf("%s: regressions %q; want %q", tc.name, regs, tc.regressions)
		}
		for i, w := range tc.regressions {
			if i < len(regs) && !strings.HasPrefix(regs[i], w) {
				t.Errorf("%s: regression %q; want %q", tc.name, regs[i], w)
			}
		}
		notes := strings.Join(g.Notes, "\n")
		for _, w := range tc.notes {
			if !strings.Contains(notes, w) {
				t.Errorf("%s: notes lack %q:\n%s", tc.name, w, notes)
			}
		}
		if g.Failed() != (len(tc.regressions) > 0) {
			t.Errorf("%s: Failed() = %v; problems %q", tc.name, g.Failed(), g.Problems)
		}
	}
}
