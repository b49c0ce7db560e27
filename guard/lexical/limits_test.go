package lexical_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

// TestLimitsInputTooLarge requires a sample beyond the judge's Limits to
// come out as abstentions with cause input_too_large, never a pass, with a
// reason that names the limit and by how much it was passed.
func TestLimitsInputTooLarge(t *testing.T) {
	big := guard.Sample{Question: "What number is it?", Answer: strings.Repeat("7 ", 3000),
		Contexts: []guard.Context{{ID: "c1", Text: strings.Repeat("7 ", 3000)}, {ID: "c2", Text: strings.Repeat("7 ", 3000)}}}
	cases := []struct {
		name   string
		limits lexical.Limits
		reason []string
	}{
		{"bytes", lexical.Limits{MaxBytes: 1000}, []string{"Limits.MaxBytes (1000)", "18018 bytes", "17018 over"}},
		{"work", lexical.Limits{MaxWork: 5000}, []string{"Limits.MaxWork (5000", "stopped after"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, err := lexical.NewGuard(lexical.WithProfile(nil, lexical.WithLimits(c.limits)))
			if err != nil {
				t.Fatal(err)
			}
			res, err := g.Evaluate(context.Background(), big)
			if err != nil {
				t.Fatal(err)
			}
			if res.Action == guard.Allow || res.Diagnosis == guard.PassDiagnosis {
				t.Errorf("action %v, diagnosis %v; want no pass", res.Action, res.Diagnosis)
			}
			if len(res.Abstentions) != len(guard.Decisions)-2+len(big.Contexts) {
				t.Errorf("%d abstentions; want every decision's", len(res.Abstentions))
			}
			for _, a := range res.Abstentions {
				if a.Cause != guard.CauseInputTooLarge || !errors.Is(a.Err(), guard.ErrInputTooLarge) {
					t.Errorf("%v: cause %q; want input_too_large", a.Decision, a.Cause)
				}
				for _, w := range c.reason {
					if !strings.Contains(a.Reason, w) {
						t.Errorf("%v: reason %q lacks %q", a.Decision, a.Reason, w)
					}
				}
			}
		})
	}
	// The defaults read the same sample whole.
	g, err := lexical.NewGuard()
	if err != nil {
		t.Fatal(err)
	}
	if res, err := g.Evaluate(context.Background(), big); err != nil || len(res.Abstentions) != 0 {
		t.Errorf("default limits: %v abstentions, %v; want none", res.Abstentions, err)
	}
}
