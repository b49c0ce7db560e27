package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/evalkit/dataset"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
	"github.com/ragtriage/ragtriage/record"
)

// readRecords reads a -records-out file line by line, checking each record
// as readers do.
func readRecords(t *testing.T, path string) []record.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []record.Record
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for n := 1; sc.Scan(); n++ {
		var r record.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		if err := record.Check(&r); err != nil || r.Version != record.Version {
			t.Fatalf("%s:%d: version %q: %v", path, n, r.Version, err)
		}
		out = append(out, r)
	}
	return out
}

// rowIDs lists the ids of a dataset file's rows.
func rowIDs(t *testing.T, path string) []string {
	t.Helper()
	src := dataset.NewFileSource(path)
	defer src.Close()
	var ids []string
	for {
		it, err := src.Next()
		if err != nil {
			break
		}
		ids = append(ids, it.ID)
	}
	return ids
}

func TestEvalExploreRecordsOut(t *testing.T) {
	fixedClock(t)
	dir := t.TempDir()
	recs, out := filepath.Join(dir, "R.jsonl"), filepath.Join(dir, "shadow.json")
	st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-mode", "cascade", "-fallback", "simulated", "-sim-error-rate", "0.05",
		"-sim-unlabeled", "abstain", "-explore", "1", "-records-out", recs, "-pricing", pricingFile, "-out", out)
	if st != 0 {
		t.Fatalf("exit %d: %s", st, e)
	}
	ids := rowIDs(t, fixtureFile)
	got := readRecords(t, recs)
	if len(got) != len(ids) {
		t.Fatalf("%d records for %d rows", len(got), len(ids))
	}
	for i, r := range got {
		if r.ID != ids[i] {
			t.Fatalf("record %d: id %q; want the row's %q", i, r.ID, ids[i])
		}
		if r.Sample != nil {
			t.Fatalf("record %s carries its sample without -records-content", r.ID)
		}
		res := &r.Result
		if res.Features == nil || res.Features.Version != lexical.FeaturesVersion || len(res.Features.Vectors) == 0 {
			t.Fatalf("record %s: features %+v", r.ID, res.Features)
		}
		if d := res.Draw; d == nil || !d.Drawn || d.Kind != guard.DrawExplore || d.Inclusion != 1 || d.Seed != 1 {
			t.Fatalf("record %s: draw %+v", r.ID, d)
		}
		if res.Teacher == nil || res.Teacher.Judge == "" || len(res.Teacher.Estimates) == 0 {
			t.Fatalf("record %s: teacher %+v", r.ID, res.Teacher)
		}
		for _, ev := range res.Evidence {
			if ev.Quote.Text != "" || ev.Detail != "" {
				t.Fatalf("record %s: evidence with text %+v", r.ID, ev)
			}
		}
	}
	rep := readReportFile(t, out)
	d := rep.Draws
	if d == nil || d.Rows != len(ids) || d.Drawn != len(ids) || d.Taught != len(ids) || d.Answered != len(ids) || d.ByKind["explore"] != len(ids) {
		t.Errorf("report draws %+v", d)
	}
	// The same rows as a dataset, the records' texts nowhere.
	raw, _ := os.ReadFile(recs)
	src := dataset.NewFileSource(fixtureFile)
	it, _ := src.Next()
	src.Close()
	if q := it.Sample.Question; len(q) > 10 && strings.Contains(string(raw), q) {
		t.Errorf("records hold the question %q", q)
	}

	// -records-content adds the samples.
	recs2 := filepath.Join(dir, "R2.jsonl")
	runCmd(t, "eval", "-dataset", fixtureFile, "-mode", "cascade", "-sim-unlabeled", "abstain", "-explore", "1",
		"-records-out", recs2, "-records-content", "-pricing", pricingFile, "-out", filepath.Join(dir, "o2.json"))
	if got := readRecords(t, recs2); len(got) != len(ids) || got[0].Sample == nil || got[0].Sample.Question != it.Sample.Question {
		t.Errorf("-records-content: %d records, first sample %+v", len(got), got[0].Sample)
	}
}

func TestEvalAuditAndPrimaryTeacher(t *testing.T) {
	fixedClock(t)
	dir := t.TempDir()
	recs, out := filepath.Join(dir, "R.jsonl"), filepath.Join(dir, "r.json")
	// The calibrate golden profile decides some sides alone; the shipped
	// one decides none, so it would leave nothing to audit.
	st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-profile", "testdata/calibrate/profile.json", "-mode", "cascade",
		"-fallback", "simulated", "-sim-unlabeled", "primary",
		"-audit", "1", "-explore", "0.5", "-draw-seed", "9", "-records-out", recs, "-pricing", pricingFile, "-out", out)
	if st != 0 {
		t.Fatalf("exit %d: %s", st, e)
	}
	audits, explores, fromPrimary := 0, 0, 0
	for _, r := range readRecords(t, recs) {
		d, res := r.Result.Draw, &r.Result
		if d == nil || d.Seed != 9 {
			t.Fatalf("%s: draw %+v", r.ID, d)
		}
		// Some side decided alone (a verdict the fallback did not settle):
		// audited at rate 1. Anything else is explored at 0.5.
		alone := false
		if res.Teacher != nil {
			alone = len(guard.AuditOutcomes(res)) > 0
		}
		switch {
		case d.Kind == guard.DrawAudit:
			if !d.Drawn || d.Inclusion != 1 {
				t.Errorf("%s decided partly alone: draw %+v; want audited", r.ID, d)
			}
			audits++
		case alone:
			t.Errorf("%s: explored (draw %+v), but its teacher compares sides decided alone", r.ID, d)
		case d.Kind != guard.DrawExplore || d.Inclusion != 0.5:
			t.Errorf("%s escalated: draw %+v; want explore at 0.5", r.ID, d)
		case d.Drawn:
			explores++
		}
		if tc := res.Teacher; tc != nil && tc.FromPrimary {
			fromPrimary++
			for _, est := range tc.Estimates {
				if est.Judge == lexical.Name && !est.Abstained {
					v := answerVerdictOf(&tc.Verdicts, est)
					if v != guard.Uncertain {
						t.Errorf("%s: teacher verdict %v read from the primary judge on %s", r.ID, v, est.Decision)
					}
				}
			}
		}
	}
	rep := readReportFile(t, out)
	if d := rep.Draws; d == nil || d.ByKind["audit"] != audits || d.ByKind["explore"] != explores || d.FromPrimary != fromPrimary || fromPrimary == 0 || audits == 0 {
		t.Errorf("report draws %+v; counted audits %d explores %d fromPrimary %d", rep.Draws, audits, explores, fromPrimary)
	}

	// Draws need a teacher.
	if st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-audit", "0.2", "-out", filepath.Join(dir, "x.json")); st != 2 || !strings.Contains(e, "need -mode cascade") {
		t.Errorf("-audit in primary mode: exit %d: %s", st, e)
	}
	if st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-mode", "cascade", "-explore", "1.5", "-out", filepath.Join(dir, "x.json")); st != 2 || !strings.Contains(e, "-explore 1.5") {
		t.Errorf("-explore 1.5: exit %d: %s", st, e)
	}
}

// answerVerdictOf is the teacher's verdict on the decision (and context) of
// est.
func answerVerdictOf(v *guard.Verdicts, est guard.Estimate) guard.Verdict {
	if est.Decision == guard.ChunkRelevance {
		x, _ := v.Retrieval.ChunkRelevance.Get(est.ContextID)
		return x
	}
	r := guard.Result{Verdicts: *v}
	x, _ := r.Verdict(est.Decision)
	return x
}

// A draw the cascade refuses (its budget is spent) is recorded with its
// cause and counted, never retried; the counts add up.
func TestEvalDrawsRefusedByBudget(t *testing.T) {
	fixedClock(t)
	dir := t.TempDir()
	recs, out := filepath.Join(dir, "R.jsonl"), filepath.Join(dir, "r.json")
	st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-mode", "cascade", "-sim-unlabeled", "abstain", "-explore", "1",
		"-fallback-budget-calls", "5", "-fallback-budget-window", "1h", "-records-out", recs, "-pricing", pricingFile, "-out", out)
	if st != 0 {
		t.Fatalf("exit %d: %s", st, e)
	}
	budget := 0
	for _, r := range readRecords(t, recs) {
		if tc := r.Result.Teacher; tc != nil && tc.Cause == guard.CauseBudget {
			budget++
		}
	}
	d := readReportFile(t, out).Draws
	sum := 0
	for _, n := range d.ByCause {
		sum += n
	}
	if budget == 0 || d.ByCause["budget"] != budget || d.Refused != budget || d.Taught != d.Answered+sum || d.Taught != d.Drawn {
		t.Errorf("draws %+v; %d records refused by the budget", d, budget)
	}
}

// judge writes no feature vectors unless -features asks for them.
func TestJudgeFeaturesFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{{nil, false}, {[]string{"-features"}, true}} {
		st, out, e := runCmd(t, append(append([]string{"judge"}, tc.args...), "../../testdata/cli/halueval-sample.jsonl")...)
		if st != 0 {
			t.Fatalf("judge %v: exit %d: %s", tc.args, st, e)
		}
		if got := strings.Contains(out, `"features":{"version":"`+lexical.FeaturesVersion+`"`); got != tc.want {
			t.Errorf("judge %v: features in the output %v; want %v", tc.args, got, tc.want)
		}
	}
}
