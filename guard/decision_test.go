package guard_test

import (
	"encoding/json"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
)

func TestDecisionNames(t *testing.T) {
	want := []string{"chunk_relevance", "context_sufficiency", "context_conflict", "answer_relevance", "groundedness", "contradiction", "correctness"}
	if len(guard.Decisions) != len(want) {
		t.Fatalf("len(Decisions) = %d; want %d", len(guard.Decisions), len(want))
	}
	for i, d := range guard.Decisions {
		if got := d.String(); got != want[i] {
			t.Errorf("Decisions[%d].String() = %q; want %q", i, got, want[i])
		}
		if got, err := guard.ParseDecision(want[i]); err != nil || got != d {
			t.Errorf("ParseDecision(%q) = %v, %v; want %v", want[i], got, err, d)
		}
		b, err := json.Marshal(d)
		if err != nil || string(b) != `"`+want[i]+`"` {
			t.Errorf("Marshal(%v) = %s, %v", d, b, err)
		}
		var back guard.Decision
		if err := json.Unmarshal(b, &back); err != nil || back != d {
			t.Errorf("Unmarshal(%s) = %v, %v; want %v", b, back, err, d)
		}
		if !d.Valid() {
			t.Errorf("%v.Valid() = false", d)
		}
		if got, want := d.Retrieval(), i < 3; got != want {
			t.Errorf("%v.Retrieval() = %v; want %v", d, got, want)
		}
		adverse := d == guard.ContextConflict || d == guard.Contradiction
		if got := d.Adverse(); got != adverse {
			t.Errorf("%v.Adverse() = %v; want %v", d, got, adverse)
		}
		// The answer's verdict: swapped for the adverse decisions, an involution.
		for _, v := range []guard.Verdict{guard.Uncertain, guard.Pass, guard.Fail} {
			want := v
			if adverse && v == guard.Pass {
				want = guard.Fail
			} else if adverse && v == guard.Fail {
				want = guard.Pass
			}
			if got := d.AnswerVerdict(v); got != want {
				t.Errorf("%v.AnswerVerdict(%v) = %v; want %v", d, v, got, want)
			}
			if got := d.AnswerVerdict(d.AnswerVerdict(v)); got != v {
				t.Errorf("%v.AnswerVerdict twice of %v = %v", d, v, got)
			}
		}
		// Policy.Verdict: a confidently low P is healthy only for the adverse decisions.
		var pol guard.Policy
		pol.Set(d, guard.Thresholds{Fail: 0.2, Pass: 0.8})
		low, high := pol.Verdict(d, 0.1), pol.Verdict(d, 0.9)
		if adverse && (low != guard.Pass || high != guard.Fail) || !adverse && (low != guard.Fail || high != guard.Pass) {
			t.Errorf("%v: Policy.Verdict(0.1) = %v, (0.9) = %v", d, low, high)
		}
		if got := pol.Verdict(d, 0.5); got != guard.Uncertain {
			t.Errorf("%v: Policy.Verdict(0.5) = %v; want uncertain", d, got)
		}
	}
	for _, d := range []guard.Decision{0, 8, 255} {
		if d.Valid() {
			t.Errorf("Decision(%d).Valid() = true", uint8(d))
		}
		if _, err := json.Marshal(d); err == nil {
			t.Errorf("Marshal(Decision(%d)) succeeded; want an error", uint8(d))
		}
	}
	if got := guard.Decision(0).String(); got != "Decision(0)" {
		t.Errorf("Decision(0).String() = %q", got)
	}
	for _, name := range []string{"", "Groundedness", "faithfulness"} {
		if d, err := guard.ParseDecision(name); err == nil {
			t.Errorf("ParseDecision(%q) = %v, nil; want an error", name, d)
		}
	}
}

func TestDefinitions(t *testing.T) {
	with, without := guard.Definitions(guard.WithReference), guard.Definitions(guard.WithoutReference)
	if with.ID == without.ID {
		t.Errorf("both definition sets have ID %q; want distinct IDs", with.ID)
	}
	if with.Variant != guard.WithReference || without.Variant != guard.WithoutReference {
		t.Errorf("variants = %v, %v", with.Variant, without.Variant)
	}
	if len(with.Definitions) != 7 || len(without.Definitions) != 6 {
		t.Errorf("len(definitions) = %d with reference, %d without; want 7, 6", len(with.Definitions), len(without.Definitions))
	}
	if _, ok := without.Lookup(guard.Correctness); ok {
		t.Errorf("the without-reference set defines correctness")
	}
	ids := map[string]bool{}
	for _, set := range []guard.DefinitionSet{with, without} {
		for _, d := range set.Definitions {
			if ids[d.ID] {
				t.Errorf("definition ID %q used twice", d.ID)
			}
			ids[d.ID] = true
			if d.Version != guard.DefinitionsVersion || d.Question == "" {
				t.Errorf("definition %+v: want version %s and a question", d, guard.DefinitionsVersion)
			}
		}
	}
	// Definitions returns a copy.
	with.Definitions[0].Question = "changed"
	if again := guard.Definitions(guard.WithReference); again.Definitions[0].Question == "changed" {
		t.Errorf("modifying the result of Definitions changed the built-in set")
	}
}
