package guard_test

import (
	"context"
	"encoding/json"
	"math"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/guardtest"
)

func TestUndecidedSides(t *testing.T) {
	cases := []struct {
		th   guard.Thresholds
		p    float64
		want guard.Verdict
	}{
		{guard.Undecided(), 0, guard.Uncertain},
		{guard.Undecided(), 1, guard.Uncertain},
		{guard.Thresholds{Fail: 0.1, Pass: 1, NoPass: true}, 1, guard.Uncertain},
		{guard.Thresholds{Fail: 0.1, Pass: 1, NoPass: true}, 0.05, guard.Fail},
		{guard.Thresholds{Fail: 0, Pass: 0.9, NoFail: true}, 0, guard.Uncertain},
		{guard.Thresholds{Fail: 0, Pass: 0.9, NoFail: true}, 0.95, guard.Pass},
		{guard.Thresholds{Fail: 0, Pass: 1}, 1, guard.Pass}, // set thresholds still decide the extremes
		{guard.Thresholds{Fail: 0.1, Pass: 0.9}, math.NaN(), guard.Uncertain},
		// An invalid t decides nothing: one side off and the other unset
		// (pass 0 would pass everything).
		{guard.Thresholds{NoFail: true}, 0.01, guard.Uncertain},
		{guard.Thresholds{NoPass: true, Fail: 1}, 0.99, guard.Uncertain},
		{guard.Thresholds{Fail: 0.9, Pass: 0.1}, 0.5, guard.Uncertain},
	}
	for _, c := range cases {
		if got := c.th.Verdict(c.p); got != c.want {
			t.Errorf("%+v.Verdict(%v) = %v; want %v", c.th, c.p, got, c.want)
		}
	}
	if guard.Undecided().IsZero() || !guard.Undecided().IsUndecided() {
		t.Errorf("Undecided() must be set and undecided")
	}
	for _, th := range []guard.Thresholds{guard.Undecided(), {NoFail: true, NoPass: true}, {NoFail: true, Pass: 0.9}, {NoPass: true, Fail: 0.1}} {
		if err := th.Validate(); err != nil {
			t.Errorf("%+v.Validate() = %v; want nil", th, err)
		}
	}
	for _, th := range []guard.Thresholds{{NoFail: true}, {NoPass: true, Fail: 1}, {Fail: 0.5, Pass: 0.5}} {
		if err := th.Validate(); err == nil {
			t.Errorf("%+v.Validate() = nil; want an error", th)
		}
	}
	b, err := json.Marshal(guard.Undecided())
	if err != nil {
		t.Fatal(err)
	}
	var back guard.Thresholds
	if err := json.Unmarshal(b, &back); err != nil || back != guard.Undecided() {
		t.Errorf("round trip of %s = %+v, %v", b, back, err)
	}
}

func TestPassRule(t *testing.T) {
	// Sufficiency uncertain, everything else healthy.
	base := healthy()
	base[guard.ContextSufficiency] = 0.5
	conflictUnsure := healthy()
	conflictUnsure[guard.ContextConflict] = 0.5
	contraUnsure := healthy()
	contraUnsure[guard.Contradiction] = 0.5
	groundUnsure := healthy()
	groundUnsure[guard.Groundedness] = 0.5
	relevUnsure := healthy()
	relevUnsure[guard.AnswerRelevance] = 0.5
	failing := healthy()
	failing[guard.ContextSufficiency] = 0.5
	failing[guard.AnswerRelevance] = 0.1
	cases := []struct {
		name string
		rule guard.PassRule
		p    map[guard.Decision]float64
		want guard.Diagnosis
	}{
		{"all: sufficiency uncertain escalates", guard.PassAll, base, guard.JudgeUncertain},
		{"waive-sufficiency", guard.PassWaiveSufficiency, base, guard.PassDiagnosis},
		{"waive-sufficiency keeps conflict", guard.PassWaiveSufficiency, conflictUnsure, guard.JudgeUncertain},
		{"waive-retrieval waives conflict", guard.PassWaiveRetrieval, conflictUnsure, guard.PassDiagnosis},
		{"waive-retrieval keeps contradiction", guard.PassWaiveRetrieval, contraUnsure, guard.JudgeUncertain},
		{"grounded-relevant waives contradiction", guard.PassGroundedRelevant, contraUnsure, guard.PassDiagnosis},
		{"grounded-relevant keeps groundedness", guard.PassGroundedRelevant, groundUnsure, guard.JudgeUncertain},
		{"a confident failure wins under every rule", guard.PassGroundedRelevant, failing, guard.AnswerIrrelevant},
		{"grounded waives relevance", guard.PassGrounded, relevUnsure, guard.PassDiagnosis},
		{"grounded keeps groundedness", guard.PassGrounded, groundUnsure, guard.JudgeUncertain},
	}
	for _, c := range cases {
		pol := testPolicy
		pol.PassRule = c.rule
		j := guardtest.Fixed{P: c.p, Chunks: map[string]float64{"c1": 0.9}}
		g := mustNew(t, guard.WithJudge(j), guard.WithPolicy(pol))
		r, err := g.Evaluate(context.Background(), newSample(false, "c1"))
		if err != nil {
			t.Fatal(err)
		}
		if r.Diagnosis != c.want {
			t.Errorf("%s: diagnosis %v (%s); want %v", c.name, r.Diagnosis, r.Reason, c.want)
		}
	}
	for _, r := range guard.PassRules {
		b, _ := json.Marshal(r)
		var back guard.PassRule
		if err := json.Unmarshal(b, &back); err != nil || back != r {
			t.Errorf("pass rule %v round trip: %s → %v, %v", r, b, back, err)
		}
	}
}
