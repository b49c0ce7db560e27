package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ReadReport reads what WriteJSON wrote, and refuses by name a report whose
// reproducibility block has the old "variant" key.
func TestReadReport(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	rep := &Report{Schema: ReportSchema, Reproduce: Reproducibility{DecisionVariant: "mixed"}}
	if err := rep.WriteJSON(good); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"decisionVariant": "mixed"`) {
		t.Errorf("written without decisionVariant:\n%.300s", b)
	}
	got, err := ReadReport(good)
	if err != nil || got.Reproduce.DecisionVariant != "mixed" {
		t.Fatalf("ReadReport = %+v, %v; want decisionVariant mixed", got, err)
	}

	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	rp := m["reproducibility"].(map[string]any)
	rp["variant"] = rp["decisionVariant"]
	delete(rp, "decisionVariant")
	old, _ := json.Marshal(m)
	oldPath := filepath.Join(dir, "old.json")
	if err := os.WriteFile(oldPath, old, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ReadReport(oldPath)
	if err == nil || !strings.Contains(err.Error(), "old.json: reproducibility.variant: the report is in the old format") {
		t.Errorf("old report: %v; want an error naming the file and the old key", err)
	}
}
