package render

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/evalkit/report"
)

// The committed reports (testdata/reports: JSON and the Markdown the CLI
// wrote beside it) render back from their JSON to the same Markdown, and to
// one self-contained HTML page.
func TestRenderCommittedReports(t *testing.T) {
	paths, err := filepath.Glob("../../testdata/reports/*.json")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no committed reports: %v", err)
	}
	for _, p := range paths {
		rep, err := report.ReadReport(p)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(strings.TrimSuffix(p, ".json") + ".md")
		if err != nil {
			t.Fatal(err)
		}
		if got := Markdown(rep); got != string(want) {
			t.Errorf("%s: Markdown differs from the committed .md", filepath.Base(p))
		}
		h := HTML(rep)
		if !strings.HasPrefix(h, "<!DOCTYPE html>") || strings.Contains(h, "<script") || !strings.Contains(h, "<svg") {
			t.Errorf("%s: HTML is not one self-contained page with charts", filepath.Base(p))
		}
	}
}
