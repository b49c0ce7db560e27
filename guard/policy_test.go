package guard_test

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/guardtest"
)

func TestThresholdsVerdict(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		th   guard.Thresholds
		p    float64
		want guard.Verdict
	}{
		// The zero Thresholds is unset: always uncertain.
		{guard.Thresholds{}, 0, guard.Uncertain},
		{guard.Thresholds{}, 0.5, guard.Uncertain},
		{guard.Thresholds{}, 1, guard.Uncertain},
		{guard.Thresholds{}, nan, guard.Uncertain},
		// Boundaries belong to the confident side.
		{testThresholds, 0.8, guard.Pass},
		{testThresholds, 0.2, guard.Fail},
		{testThresholds, math.Nextafter(0.8, 0), guard.Uncertain},
		{testThresholds, math.Nextafter(0.2, 1), guard.Uncertain},
		{testThresholds, 0.5, guard.Uncertain},
		{testThresholds, 1, guard.Pass},
		{testThresholds, 0, guard.Fail},
		{testThresholds, nan, guard.Uncertain},
		// Extreme but set thresholds.
		{guard.Thresholds{Fail: 0, Pass: 1}, 0, guard.Fail},
		{guard.Thresholds{Fail: 0, Pass: 1}, 1, guard.Pass},
		{guard.Thresholds{Fail: 0, Pass: 1}, 0.999, guard.Uncertain},
		{guard.Thresholds{Fail: 0, Pass: 0.5}, 0, guard.Fail},
		{guard.Thresholds{Fail: 0, Pass: 0.5}, 0.5, guard.Pass},
		{guard.Thresholds{Fail: 0.5, Pass: 1}, 0.5, guard.Fail},
	}
	for _, tt := range tests {
		if got := tt.th.Verdict(tt.p); got != tt.want {
			t.Errorf("%+v.Verdict(%v) = %v; want %v", tt.th, tt.p, got, tt.want)
		}
	}
}

func TestThresholdsValidate(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	tests := []struct {
		th   guard.Thresholds
		want bool // valid
	}{
		{guard.Thresholds{}, true},
		{testThresholds, true},
		{guard.Thresholds{Fail: 0, Pass: 1}, true},
		{guard.Thresholds{Fail: 0, Pass: 0.01}, true},
		{guard.Thresholds{Fail: 0.99, Pass: 1}, true},
		{guard.Thresholds{Fail: 0.5, Pass: 0.5}, false}, // fail must be < pass
		{guard.Thresholds{Fail: 0.8, Pass: 0.2}, false},
		{guard.Thresholds{Fail: 0.3, Pass: 0}, false},
		{guard.Thresholds{Fail: -0.1, Pass: 0.5}, false},
		{guard.Thresholds{Fail: 0.2, Pass: 1.1}, false},
		{guard.Thresholds{Fail: 1.2, Pass: 1.5}, false},
		{guard.Thresholds{Fail: -0.5, Pass: -0.1}, false},
		{guard.Thresholds{Fail: nan, Pass: 0.5}, false},
		{guard.Thresholds{Fail: 0.2, Pass: nan}, false},
		{guard.Thresholds{Fail: nan, Pass: nan}, false},
		{guard.Thresholds{Fail: -inf, Pass: 0.5}, false},
		{guard.Thresholds{Fail: 0.2, Pass: inf}, false},
	}
	for _, tt := range tests {
		err := tt.th.Validate()
		if got := err == nil; got != tt.want {
			t.Errorf("%+v.Validate() = %v; want valid=%v", tt.th, err, tt.want)
		}
	}
}

func TestThresholdsIsZero(t *testing.T) {
	if !(guard.Thresholds{}).IsZero() {
		t.Errorf("Thresholds{}.IsZero() = false; want true")
	}
	for _, th := range []guard.Thresholds{{Fail: 0, Pass: 0.5}, {Fail: 0.1, Pass: 0}, {Fail: math.NaN()}} {
		if th.IsZero() {
			t.Errorf("%+v.IsZero() = true; want false", th)
		}
	}
}

func TestPolicyForSet(t *testing.T) {
	var p guard.Policy
	for i, d := range guard.Decisions {
		th := guard.Thresholds{Fail: float64(i) / 100, Pass: 0.5 + float64(i)/100}
		p.Set(d, th)
		if got := p.For(d); got != th {
			t.Errorf("after Set(%v, %+v): For(%v) = %+v; want %+v", d, th, d, got, th)
		}
	}
	// Each decision has its own field.
	for i, d := range guard.Decisions {
		if got := p.For(d).Fail; got != float64(i)/100 {
			t.Errorf("For(%v).Fail = %v; want %v", d, got, float64(i)/100)
		}
	}
	before := p
	p.Set(guard.Decision(0), testThresholds)
	p.Set(guard.Decision(99), testThresholds)
	if p != before {
		t.Errorf("Set of an invalid decision changed the policy: %+v; want %+v", p, before)
	}
	if got := p.For(guard.Decision(0)); !got.IsZero() {
		t.Errorf("For(Decision(0)) = %+v; want the zero Thresholds", got)
	}
}

func TestPolicyValidate(t *testing.T) {
	if err := (&guard.Policy{}).Validate(); err != nil {
		t.Errorf("Policy{}.Validate() = %v; want nil", err)
	}
	if err := testPolicy.Validate(); err != nil {
		t.Errorf("testPolicy.Validate() = %v; want nil", err)
	}
	bad := []guard.Thresholds{
		{Fail: 0.5, Pass: 0.5},
		{Fail: 0.9, Pass: 0.1},
		{Fail: -0.1, Pass: 0.5},
		{Fail: 0.1, Pass: 1.5},
		{Fail: math.NaN(), Pass: 0.5},
		{Fail: 0.1, Pass: math.NaN()},
	}
	for _, d := range guard.Decisions {
		for _, th := range bad {
			p := testPolicy
			p.Set(d, th)
			err := p.Validate()
			if err == nil {
				t.Errorf("Validate(policy with %v=%+v) = nil; want an error", d, th)
				continue
			}
			if !strings.Contains(err.Error(), d.String()) {
				t.Errorf("Validate(policy with %v=%+v) = %q; want it to name %v", d, th, err, d)
			}
			if _, err := guard.New(guard.WithPolicy(p)); err == nil {
				t.Errorf("New(WithPolicy(policy with %v=%+v)) succeeded; want an error", d, th)
			}
		}
	}
}

// The zero policy escalates everything, however confident the judges are.
func TestZeroPolicyEscalates(t *testing.T) {
	for _, ref := range []bool{false, true} {
		for _, opts := range [][]guard.Option{
			{guard.WithJudge(healthyJudge())},
			{guard.WithJudge(healthyJudge()), guard.WithPolicy(guard.Policy{})},
			{guard.WithJudge(guardtest.Fixed{Default: 1})},
			{guard.WithJudge(guardtest.Fixed{Default: 0})},
			{}, // no judge at all
		} {
			g := mustNew(t, opts...)
			if p := g.Policy(); p != (guard.Policy{}) {
				t.Errorf("Policy() = %+v; want the zero Policy", p)
			}
			s := newSample(ref, "c1", "c2")
			r, err := g.Evaluate(context.Background(), s)
			if err != nil {
				t.Fatalf("Evaluate: %v", err)
			}
			if r.Diagnosis != guard.JudgeUncertain || r.Route != guard.RouteReview {
				t.Errorf("zero policy, reference=%v: Diagnose = %v/%v; want %v/%v", ref, r.Diagnosis, r.Route, guard.JudgeUncertain, guard.RouteReview)
			}
			for _, d := range guard.Decisions {
				if d == guard.ChunkRelevance {
					for _, e := range r.Verdicts.Retrieval.ChunkRelevance {
						if e.Value != guard.Uncertain {
							t.Errorf("zero policy: chunk %s verdict = %v; want uncertain", e.Key, e.Value)
						}
					}
					continue
				}
				if v, ok := r.Verdict(d); ok && v != guard.Uncertain {
					t.Errorf("zero policy: %v verdict = %v; want uncertain", d, v)
				}
			}
		}
	}
}

func TestVerdictJSON(t *testing.T) {
	for v, want := range map[guard.Verdict]string{guard.Uncertain: `"uncertain"`, guard.Pass: `"pass"`, guard.Fail: `"fail"`} {
		b, err := json.Marshal(v)
		if err != nil || string(b) != want {
			t.Errorf("Marshal(%v) = %s, %v; want %s", v, b, err, want)
		}
		var back guard.Verdict = 7
		if err := json.Unmarshal(b, &back); err != nil || back != v {
			t.Errorf("Unmarshal(%s) = %v, %v; want %v", b, back, err, v)
		}
	}
	for _, in := range []string{`"PASS"`, `"maybe"`, `1`, `null`} {
		var v guard.Verdict
		if err := json.Unmarshal([]byte(in), &v); err == nil && in != `null` {
			t.Errorf("Unmarshal(%s) = %v, nil; want an error", in, v)
		}
	}
	if got := guard.Verdict(9).String(); got != "Verdict(9)" {
		t.Errorf("Verdict(9).String() = %q; want %q", got, "Verdict(9)")
	}
	var zero guard.Verdict
	if zero != guard.Uncertain {
		t.Errorf("zero Verdict = %v; want uncertain", zero)
	}
}

func TestPolicyDecides(t *testing.T) {
	undecided := func() guard.Policy {
		var p guard.Policy
		for _, d := range guard.Decisions {
			p.Set(d, guard.Undecided())
		}
		return p
	}
	onlyPass := undecided()
	onlyPass.Set(guard.Groundedness, guard.Thresholds{Pass: 0.9, NoFail: true})
	onlyFail := undecided()
	onlyFail.Set(guard.ChunkRelevance, guard.Thresholds{Fail: 0.05, NoPass: true})
	invalid := undecided()
	invalid.Set(guard.Groundedness, guard.Thresholds{Fail: 0.8, Pass: 0.2})
	for _, tc := range []struct {
		name string
		p    guard.Policy
		want bool
	}{
		{"zero", guard.Policy{}, false},
		{"every side undecided", undecided(), false},
		{"invalid thresholds", invalid, false},
		{"one pass side", onlyPass, true},
		{"one fail side", onlyFail, true},
		{"uniform", guard.UniformPolicy(0.3, 0.7), true},
	} {
		if got := tc.p.Decides(); got != tc.want {
			t.Errorf("%s: Decides() = %v; want %v", tc.name, got, tc.want)
		}
	}
}
