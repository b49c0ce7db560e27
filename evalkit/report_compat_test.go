package evalkit

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/evalkit/report"
)

// The report-level variant is "decisionVariant"; reports written before
// that said "variant", and still read.
func TestReproducibilityDecisionVariant(t *testing.T) {
	var old report.Reproducibility
	if err := json.Unmarshal([]byte(`{"timestamp":"t","decisionSets":[{"id":"s","variant":"with-reference","rows":2}],"variant":"with-reference"}`), &old); err != nil {
		t.Fatal(err)
	}
	if old.DecisionVariant != "with-reference" || old.Timestamp != "t" || len(old.DecisionSets) != 1 || old.DecisionSets[0].Variant != "with-reference" {
		t.Errorf("old block read as %+v", old)
	}
	var both report.Reproducibility
	if err := json.Unmarshal([]byte(`{"variant":"with-reference","decisionVariant":"mixed"}`), &both); err != nil || both.DecisionVariant != "mixed" {
		t.Errorf("both keys: %+v, %v; want decisionVariant to win", both, err)
	}
	b, err := json.Marshal(report.Reproducibility{DecisionVariant: "mixed"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"decisionVariant":"mixed"`) || strings.Contains(string(b), `"variant":"mixed"`) {
		t.Errorf("written as %s", b)
	}
	if err := json.Unmarshal([]byte(`{"variant":3}`), new(report.Reproducibility)); err == nil {
		t.Error("a non-string variant was accepted")
	}
}
