package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
)

// The loop's third command with a promise monitor: a profile calibrated on
// BEGIN meets MultiNLI traffic, audited at 20% by a simulated teacher that
// is wrong 5% of the time. The report's promise block says where (decision,
// side) and when (row, audited rows, audits) the monitor tripped; after the
// trip the side decides nothing (its verdicts are withheld, the rows
// escalate). On BEGIN itself it does not trip. -monitor=false has no block.
func TestEvalAuditMonitorTrips(t *testing.T) {
	fixedClock(t)
	dir := t.TempDir()
	prof := filepath.Join(dir, "P.json")
	if st, _, e := runCmd(t, "calibrate", "-dataset", "../../data/dev/begin_wow_groundedness.jsonl", "-alpha", "0.10", "-out", prof); st != 0 {
		t.Fatalf("calibrate: exit %d: %s", st, e)
	}
	if b, _ := os.ReadFile(prof); !strings.Contains(string(b), `"alpha": 0.1`) {
		t.Fatalf("the profile does not record its alpha")
	}
	eval := func(data string, extra ...string) (string, string) {
		out := filepath.Join(dir, filepath.Base(data)+".json")
		md := filepath.Join(dir, filepath.Base(data)+".md")
		args := append([]string{"eval", "-dataset", data, "-profile", prof, "-mode", "cascade", "-fallback", "simulated",
			"-sim-error-rate", "0.05", "-sim-unlabeled", "abstain", "-audit", "0.2", "-pricing", pricingFile, "-out", out, "-md", md}, extra...)
		st, _, e := runCmd(t, args...)
		if st != 0 {
			t.Fatalf("eval %s: exit %d: %s", data, st, e)
		}
		b, _ := os.ReadFile(md)
		return out, string(b) + "\n" + e
	}

	// MultiNLI against the promise at 0.05 (the profile's alpha is 0.10,
	// at which 56 audits of a 20%-disagreeing side do not yet reject).
	out, text := eval("../../data/dev/nli_mnli.jsonl", "-monitor-alpha", "0.05")
	pr := readReportFile(t, out).Promise
	if pr == nil || pr.Alpha != 0.05 || len(pr.Trips) != 1 {
		t.Fatalf("promise block %+v; want one trip at alpha 0.05", pr)
	}
	tr := pr.Trips[0]
	if tr.Decision != "groundedness" || tr.Side != "fail" || tr.Row <= 0 || tr.Row > pr.Rows || tr.AuditedRows <= 0 ||
		tr.Audits <= 0 || tr.Disagreements <= 0 || tr.EValue < 100 || tr.ID == "" {
		t.Errorf("trip %+v; want groundedness fail, with its row, audits and e-value ≥ 1/δ", tr)
	}
	for _, s := range pr.Sides {
		if s.Decision != "groundedness" || s.Side != "fail" {
			continue
		}
		if s.TripRow != tr.Row || s.After.Verdicts != 0 || s.Withheld == 0 || s.Before.Wrong == 0 {
			t.Errorf("side %+v; want no automatic verdict after row %d, withheld ones instead, wrong ones before", s, tr.Row)
		}
	}
	for _, want := range []string{"## Promise monitor", "It tripped: groundedness fail at row", "promise broken", "cause=" + string(guard.CausePromiseBroken)} {
		if !strings.Contains(text, want) {
			t.Errorf("Markdown and log lack %q", want)
		}
	}

	// In distribution: BEGIN, at the profile's own alpha.
	out, _ = eval("../../data/dev/begin_wow_groundedness.jsonl")
	if pr := readReportFile(t, out).Promise; pr == nil || pr.Alpha != 0.1 || len(pr.Trips) != 0 || pr.AuditedRows == 0 {
		t.Errorf("BEGIN: promise block %+v; want audits, no trip, alpha from the profile", pr)
	}
	out, _ = eval("../../data/dev/begin_wow_groundedness.jsonl", "-monitor=false")
	if pr := readReportFile(t, out).Promise; pr != nil {
		t.Errorf("-monitor=false: promise block %+v; want none", pr)
	}
	if st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-mode", "cascade", "-audit", "0.2", "-monitor-alpha", "2", "-out", filepath.Join(dir, "x.json")); st != 2 || !strings.Contains(e, "-monitor-alpha 2") {
		t.Errorf("-monitor-alpha 2: exit %d: %s", st, e)
	}
}
