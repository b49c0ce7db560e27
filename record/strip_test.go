package record_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/record"
)

// TestWithoutText: the copy a record carries without content capture holds
// no user text, the teacher's included, and keeps every number: the
// feature vectors, the draw, the teacher's probabilities and verdicts.
func TestWithoutText(t *testing.T) {
	const secret = "the refund takes 90 days"
	q := guard.Quote{Source: guard.SourceAnswer, Start: 0, End: len(secret), Text: secret}
	ev := []guard.Evidence{{Decision: guard.Groundedness, Kind: "my_kind", Detail: "says " + secret, Quote: q, Counterpart: q}}
	r := guard.Result{Diagnosis: guard.GeneratorUngrounded, Reason: `"` + secret + `" appears in no context`,
		Evidence: ev, Citations: []guard.Citation{{Sentence: q, Context: q}},
		Estimates: []guard.Estimate{{Decision: guard.Groundedness, Reason: secret}},
		Features:  &guard.Features{Version: "v", Vectors: []guard.FeatureVector{{Decision: guard.Groundedness, X: []float64{0.5, 2}}}},
		Draw:      &guard.Draw{Kind: guard.DrawExplore, Rate: 1, Inclusion: 1, Drawn: true},
		Teacher: &guard.Teacher{Judge: "llm", Reason: `quote "` + secret + `" not found`,
			Estimates: []guard.Estimate{{Decision: guard.Groundedness, P: 0.1, Reason: `"` + secret + `"`, Evidence: ev,
				Citations: []guard.Citation{{Sentence: q}}, Features: []float64{1}}}}}
	r.Teacher.Verdicts.Generation.Groundedness = guard.Fail
	out := record.WithoutText(&r)
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "90 days") {
		t.Errorf("text left in %s", b)
	}
	if out.Estimates != nil || out.Evidence[0].Kind != record.OtherKind || out.Teacher.Estimates[0].Evidence[0].Kind != record.OtherKind {
		t.Errorf("estimates %v, kinds %v %v", out.Estimates, out.Evidence[0].Kind, out.Teacher.Estimates[0].Evidence[0].Kind)
	}
	if out.Features.Vectors[0].X[1] != 2 || !out.Draw.Drawn || out.Teacher.Estimates[0].P != 0.1 || out.Teacher.Verdicts.Generation.Groundedness != guard.Fail {
		t.Errorf("numbers lost: %s", b)
	}
	// r itself is untouched.
	if r.Teacher.Estimates[0].Reason == "" || r.Evidence[0].Quote.Text != secret || r.Estimates == nil {
		t.Error("WithoutText modified its argument")
	}
}
