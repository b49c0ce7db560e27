package record_test

import (
	"encoding/json"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/record"
)

// A version 1 record said "fail" for "confidently no conflict"; upgraded,
// the verdicts of conflict and contradiction speak for the answer and the
// others are unchanged.
func TestUpgradeVersion1(t *testing.T) {
	line := `{"recordVersion":"ragtriage.record/1","id":"a","result":{"retrieval":{"contextSufficiency":0.9,"contextConflict":0.05},` +
		`"generation":{"groundedness":0.2,"answerRelevance":0.9,"contradiction":0.95},` +
		`"verdicts":{"retrieval":{"contextSufficiency":"pass","contextConflict":"fail"},"generation":{"groundedness":"fail","answerRelevance":"pass","contradiction":"pass"}}}}`
	var r record.Record
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatal(err)
	}
	if !record.Upgrade(&r) || r.Version != record.Version {
		t.Fatalf("Upgrade: version %q", r.Version)
	}
	for d, want := range map[guard.Decision]guard.Verdict{
		guard.ContextSufficiency: guard.Pass, guard.ContextConflict: guard.Pass,
		guard.Groundedness: guard.Fail, guard.AnswerRelevance: guard.Pass, guard.Contradiction: guard.Fail,
	} {
		if got, _ := r.Result.Verdict(d); got != want {
			t.Errorf("%v: verdict %v; want %v", d, got, want)
		}
	}
	if p := r.Result.Prob(guard.ContextConflict); !p.Known || p.Value != 0.05 {
		t.Errorf("conflict P = %+v; want 0.05", p)
	}
	if record.Upgrade(&r) {
		t.Error("a second Upgrade changed the record")
	}
}
