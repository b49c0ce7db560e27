package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The issue 21 command on dev BEGIN rows: the share holds the fallback to
// about 20% of the rows, catches more ungrounded answers than random
// admission would, and the traffic estimate's interval covers the labeled
// ungrounded share. -mode recorded over the records gives the same
// estimate; records without inclusion probabilities give none.
func TestEvalFallbackShare(t *testing.T) {
	fixedClock(t)
	dir := t.TempDir()
	recs, out := filepath.Join(dir, "R.jsonl"), filepath.Join(dir, "report.json")
	st, _, e := runCmd(t, "eval", "-dataset", beginDev, "-mode", "cascade", "-fallback", "simulated", "-sim-error-rate", "0",
		"-sim-unlabeled", "abstain", "-fallback-share", "0.2", "-degrade", "fail_open", "-records-out", recs, "-pricing", pricingFile, "-out", out)
	if st != 0 {
		t.Fatalf("exit %d: %s", st, e)
	}
	rep := readReportFile(t, out)
	k := rep.Cascade.Catch
	if k == nil || k.CallShare > 0.22 || k.CaughtShare == nil || k.RandomCaughtShare == nil || *k.CaughtShare < *k.RandomCaughtShare+0.1 {
		t.Fatalf("catch %+v; want at most 22%% of rows called and clearly more caught than at random", k)
	}
	g := rep.Estimates["groundedness"]
	if g == nil || !g.Available || g.LabeledFailShare == nil || *g.Low > *g.LabeledFailShare || *g.High < *g.LabeledFailShare {
		t.Fatalf("groundedness estimate %+v; want an interval covering the labeled share", g)
	}
	if a := rep.Estimates["answerRelevance"]; a == nil || a.Available || a.FailShare != nil || !strings.Contains(a.Reason, "non-response") {
		t.Errorf("answer relevance (no labels, the simulated fallback abstains): %+v; want unavailable", a)
	}

	// The records, replayed: the same estimate.
	out2 := filepath.Join(dir, "recorded.json")
	if st, _, e := runCmd(t, "eval", "-records", recs, "-dataset", beginDev, "-mode", "recorded", "-pricing", pricingFile, "-out", out2); st != 0 {
		t.Fatalf("recorded: exit %d: %s", st, e)
	}
	g2 := readReportFile(t, out2).Estimates["groundedness"]
	if g2 == nil || !g2.Available || *g2.FailShare != *g.FailShare || *g2.Low != *g.Low || *g2.High != *g.High {
		t.Errorf("recorded estimate %+v; want the cascade run's %+v", g2, g)
	}

	// Older records carry no inclusion probability: no estimate.
	raw, err := os.ReadFile(recs)
	if err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(dir, "old.jsonl")
	stripped := bytes.ReplaceAll(raw, []byte(`,"inclusion":`), []byte(`,"inclusionX":`))
	if err := os.WriteFile(old, stripped, 0o644); err != nil {
		t.Fatal(err)
	}
	out3 := filepath.Join(dir, "old.json")
	if st, _, e := runCmd(t, "eval", "-records", old, "-dataset", beginDev, "-mode", "recorded", "-pricing", pricingFile, "-out", out3); st != 0 {
		t.Fatalf("old records: exit %d: %s", st, e)
	}
	g3 := readReportFile(t, out3).Estimates["groundedness"]
	if g3 == nil || g3.Available || g3.FailShare != nil || !strings.Contains(g3.Reason, "no inclusion probability") {
		t.Errorf("old records: %+v; want unavailable, saying why", g3)
	}
}

func TestEvalFallbackShareFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-fallback-share", "1.5"}, "want a fraction in (0, 1]"},
		{[]string{"-fallback-share", "0.2", "-fallback-share-window", "0"}, "-fallback-share-window"},
		{[]string{"-fallback-share", "0.2", "-fallback-share-uniform", "1"}, "ShareUniform"},
	} {
		args := append([]string{"eval", "-dataset", beginDev, "-mode", "cascade", "-fallback", "simulated", "-out", filepath.Join(t.TempDir(), "r.json")}, tc.args...)
		st, _, e := runCmd(t, args...)
		if st == 0 || !strings.Contains(e, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want an error saying %q", tc.args, st, e, tc.want)
		}
	}
}
