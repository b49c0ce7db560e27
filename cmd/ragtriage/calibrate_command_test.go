package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

func TestCalibrateCommand(t *testing.T) {
	fixedClock(t)
	dir := t.TempDir()
	prof := filepath.Join(dir, "profile.json")
	// Every labeled decision: some have too few labels.
	st, _, e := runCmd(t, "calibrate", "-dataset", fixtureFile, "-out", prof)
	if st != 1 || !strings.Contains(e, "refusing: context_conflict: 6 labels, fewer than -min-labels 30") {
		t.Errorf("exit %d; want 1 with a refusal naming context_conflict:\n%s", st, e)
	}
	if _, err := os.Stat(prof); err == nil {
		t.Error("a profile was written despite the refusal")
	}
	// A single class.
	one := filepath.Join(dir, "one.jsonl")
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, `{"id":"r%d","question":"q%d?","contexts":[{"id":"c1","text":"text %d"}],"answer":"a%d","expected":{"generation":{"groundedness":true}}}`+"\n", i, i, i, i)
	}
	os.WriteFile(one, []byte(b.String()), 0o644)
	st, _, e = runCmd(t, "calibrate", "-dataset", one, "-out", prof)
	if st != 1 || !strings.Contains(e, "groundedness: all 40 labels are true: a calibrator cannot be fitted on a single class") {
		t.Errorf("one class: exit %d:\n%s", st, e)
	}
	// The decisions with enough labels.
	rep := filepath.Join(dir, "cal.json")
	st, out, e := runCmd(t, "calibrate", "-dataset", fixtureFile, "-decisions", "groundedness,correctness,chunk_relevance", "-out", prof, "-report", rep, "-allow-undecided")
	if st != 0 {
		t.Fatalf("exit %d:\n%s", st, e)
	}
	if !strings.Contains(out, "groundedness") || !strings.Contains(out, "kept from the base profile") {
		t.Errorf("summary:\n%s", out)
	}
	p, err := lexical.LoadProfile(prof)
	if err != nil {
		t.Fatalf("written profile does not load: %v", err)
	}
	if !strings.HasPrefix(p.Version, "calibrated-20260102-") || len(p.Data) != 1 || p.Data[0].Path != "fixture.jsonl" {
		t.Errorf("profile version %q, data %+v", p.Version, p.Data)
	}
	if !strings.HasPrefix(p.Decisions["context_conflict"].Sources[0], "not refitted") {
		t.Errorf("kept decision not marked: %v", p.Decisions["context_conflict"].Sources)
	}
	// The thresholds keep their promise on the out-of-fold predictions.
	var cr calibrationReport
	cb, _ := os.ReadFile(rep)
	if err := json.Unmarshal(cb, &cr); err != nil {
		t.Fatal(err)
	}
	for _, d := range cr.Decisions {
		for _, reg := range []struct {
			name string
			r    float64
			n    int
		}{{"auto-pass", d.AutoPass.UpperBound, d.AutoPass.Count}, {"auto-fail", d.AutoFail.UpperBound, d.AutoFail.Count}} {
			if reg.n > 0 && reg.r > 0.05 {
				t.Errorf("%s %s: upper bound %.3f > alpha", d.Decision, reg.name, reg.r)
			}
		}
		th := p.Policy.For(mustDecision(t, d.Decision))
		if th != d.Policy {
			t.Errorf("%s: profile policy %+v, report %+v", d.Decision, th, d.Policy)
		}
	}
	// It loads with judge -profile and eval -profile.
	var o, e2 bytes.Buffer
	if st := run([]string{"judge", "-profile", prof, sampleFile}, strings.NewReader(""), &o, &e2); st != 0 {
		t.Errorf("judge -profile: exit %d: %s", st, e2.String())
	}
	if st, _, e := runCmd(t, "eval", "-dataset", fixtureFile, "-profile", prof, "-pricing", pricingFile, "-out", filepath.Join(dir, "r.json")); st != 0 {
		t.Errorf("eval -profile: exit %d: %s", st, e)
	}
	if g, err := lexical.New(p); err != nil {
		t.Error(err)
	} else if _, err := guard.New(guard.WithJudge(g), guard.WithPolicy(g.Policy())); err != nil {
		t.Error(err)
	}
}

func mustDecision(t *testing.T, name string) guard.Decision {
	t.Helper()
	d, err := guard.ParseDecision(name)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
