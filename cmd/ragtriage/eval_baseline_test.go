package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEvalBaselineGate(t *testing.T) {
	fixedClock(t)
	dir := t.TempDir()
	base := filepath.Join(dir, "base.json")
	if st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-pricing", pricingFile, "-out", base); st != 0 {
		t.Fatal(e)
	}
	// Unchanged: passes.
	if st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-pricing", pricingFile, "-out", filepath.Join(dir, "same.json"), "-baseline", base); st != 0 {
		t.Errorf("same data against itself: exit %d: %s", st, e)
	}
	// A baseline that was better: fails, naming the metric.
	r := readReportFile(t, base)
	*r.Diagnosis.Accuracy += 0.05
	for i := range r.Decisions.Generation {
		if r.Decisions.Generation[i].Decision == "groundedness" {
			*r.Decisions.Generation[i].Brier -= 0.03
		}
	}
	better := filepath.Join(dir, "better.json")
	if err := r.WriteJSON(better); err != nil {
		t.Fatal(err)
	}
	st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-pricing", pricingFile, "-out", filepath.Join(dir, "cur.json"), "-baseline", better, "-max-drop", "0.02")
	if st != 1 {
		t.Errorf("regression: exit %d; want 1", st)
	}
	for _, want := range []string{"regression: diagnosis.accuracy dropped", "regression: decisions.groundedness.brier rose"} {
		if !strings.Contains(e, want) {
			t.Errorf("stderr lacks %q:\n%s", want, e)
		}
	}
}

// TestEvalBaselineFailsClosed: the baseline gate fails — exit 1, naming the
// problem — when the current run has no labelled rows, when a metric of the
// baseline is missing now, and when the rows compared differ from the
// baseline's by more than -max-row-change; it never prints that no metric
// dropped when it compared nothing.
func TestEvalBaselineFailsClosed(t *testing.T) {
	fixedClock(t)
	dir := t.TempDir()
	base := filepath.Join(dir, "base.json")
	if st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-out", base); st != 0 {
		t.Fatal(e)
	}
	empty := filepath.Join(dir, "empty.jsonl")
	os.WriteFile(empty, nil, 0o644)
	unlabeled := stripLabels(t)
	for _, tc := range []struct {
		name, dataset string
		want          []string
	}{
		{"empty dataset", empty, []string{"no rows: " + empty + " holds no JSON Lines row", "no report written"}},
		{"labels stripped", unlabeled, []string{"gate: the current run has no labelled rows", "gate: diagnosis.accuracy: in the baseline, missing now", "gate: decisions.groundedness.auroc: in the baseline, missing now", "gate: labelled rows: 0, baseline 144"}},
	} {
		st, out, e := runCmd(t, "eval", "-dataset", tc.dataset, "-out", filepath.Join(dir, "cur.json"), "-baseline", base, "-max-drop", "0.02")
		if st != 1 {
			t.Errorf("%s: exit %d; want 1:\n%s", tc.name, st, e)
		}
		if strings.Contains(out, "no metric dropped") {
			t.Errorf("%s: stdout says the gate passed: %q", tc.name, out)
		}
		for _, w := range tc.want {
			if !strings.Contains(e, w) {
				t.Errorf("%s: stderr lacks %q:\n%s", tc.name, w, e)
			}
		}
	}

	// A metric of the baseline that the current report lacks.
	r := readReportFile(t, base)
	extra := r.Decisions.Generation[0]
	extra.Decision = "made_up_decision"
	r.Decisions.Generation = append(r.Decisions.Generation, extra)
	withExtra := filepath.Join(dir, "extra.json")
	if err := r.WriteJSON(withExtra); err != nil {
		t.Fatal(err)
	}
	st, out, e := runCmd(t, "eval", "-dataset", fixtureFile, "-out", filepath.Join(dir, "cur.json"), "-baseline", withExtra)
	if st != 1 || !strings.Contains(e, "gate: decisions.made_up_decision.accuracy: in the baseline, missing now") || strings.Contains(out, "no metric dropped") {
		t.Errorf("missing metric: exit %d, stdout %q, stderr:\n%s", st, out, e)
	}

	// Fewer rows: 100 of the 144 fail the default tolerance (10%), also for
	// the metrics the rows left out no longer have.
	st, out, e = runCmd(t, "eval", "-dataset", fixtureHead(t, 100), "-out", filepath.Join(dir, "cur.json"), "-baseline", base, "-max-drop", "1")
	if st != 1 || !strings.Contains(e, "gate: rows evaluated: 100, baseline 144 (-30.6%; -max-row-change allows 10.0%)") || strings.Contains(out, "no metric dropped") {
		t.Errorf("100 of 144 rows: exit %d, stdout %q, stderr:\n%s", st, out, e)
	}
	// More rows (the fixture and 30 of its rows again under new ids: every
	// metric still there): +20.8% fails the default tolerance and passes a
	// looser one; 10 more (+6.9%) pass the default.
	more30 := fixturePlus(t, 30)
	st, out, e = runCmd(t, "eval", "-dataset", more30, "-out", filepath.Join(dir, "cur.json"), "-baseline", base, "-max-drop", "1")
	if st != 1 || !strings.Contains(e, "gate: rows evaluated: 174, baseline 144 (+20.8%; -max-row-change allows 10.0%)") || strings.Contains(out, "no metric dropped") {
		t.Errorf("174 rows against 144: exit %d, stdout %q, stderr:\n%s", st, out, e)
	}
	if st, out, e := runCmd(t, "eval", "-dataset", more30, "-out", filepath.Join(dir, "cur.json"), "-baseline", base, "-max-drop", "1", "-max-row-change", "0.25"); st != 0 || !strings.Contains(out, "no metric dropped") {
		t.Errorf("174 rows against 144, -max-row-change 0.25: exit %d, stdout %q, stderr:\n%s", st, out, e)
	}
	if st, _, e := runCmd(t, "eval", "-dataset", fixturePlus(t, 10), "-out", filepath.Join(dir, "cur.json"), "-baseline", base, "-max-drop", "1"); st != 0 {
		t.Errorf("154 rows against 144: exit %d:\n%s", st, e)
	}
	for _, bad := range []string{"-1", "NaN"} {
		if st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-out", filepath.Join(dir, "cur.json"), "-max-row-change", bad); st != 2 || !strings.Contains(e, "-max-row-change") {
			t.Errorf("-max-row-change %s: exit %d, stderr %q; want a usage error", bad, st, e)
		}
	}
}

// TestEvalBaselineOtherProfile: a profile calibrated on a dataset passes
// the baseline gate against the shipped profile's report on the same data:
// it decides more, which is not a regression. The gate names both profiles
// and does not gate their probability metrics (issue 19, item 3).
func TestEvalBaselineOtherProfile(t *testing.T) {
	fixedClock(t)
	dir := t.TempDir()
	const data = "../../data/dev/halueval.jsonl"
	prof := filepath.Join(dir, "p.json")
	if st, _, e := runCmd(t, "calibrate", "-dataset", data, "-out", prof); st != 0 {
		t.Fatalf("calibrate: exit %d:\n%s", st, e)
	}
	base, cur := filepath.Join(dir, "base.json"), filepath.Join(dir, "cur.json")
	if st, _, e := runCmd(t, "eval", "-dataset", data, "-out", base); st != 0 {
		t.Fatalf("eval: exit %d:\n%s", st, e)
	}
	st, out, e := runCmd(t, "eval", "-dataset", data, "-profile", prof, "-out", cur, "-baseline", base)
	if st != 0 || strings.Contains(e, "regression:") {
		t.Errorf("the calibrated profile fails the gate on its own data: exit %d:\n%s", st, e)
	}
	b, c := readReportFile(t, base), readReportFile(t, cur)
	want := "baseline: the reports used different profiles: baseline " + b.Reproduce.ProfileVersion + ", current " + c.Reproduce.ProfileVersion
	if b.Reproduce.ProfileVersion == c.Reproduce.ProfileVersion || !strings.Contains(e, want) {
		t.Errorf("stderr lacks %q:\n%s", want, e)
	}
	if !strings.Contains(out, "no metric dropped") {
		t.Errorf("stdout: %q", out)
	}
	more := false
	for _, d := range c.Decisions.All() {
		for _, bd := range b.Decisions.All() {
			if bd.Decision == d.Decision && d.Policy.Coverage > bd.Policy.Coverage {
				more = true
			}
		}
	}
	if !more {
		t.Errorf("the calibrated profile decides no more than the shipped one: the test shows nothing")
	}
}
