package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRun runs the shadow example offline and checks that every answer was
// judged in the background with the outcome its case names, and that the
// evaluation spans were exported.
func TestRun(t *testing.T) {
	var spans, info bytes.Buffer
	if err := run(context.Background(), &spans, &info, "", false, ""); err != nil {
		t.Fatal(err)
	}
	out := info.String()
	for _, want := range []string{
		"shadow: 4 offered, 4 evaluated, 0 dropped, 0 lost, 0 timed out",
		`"What is the capital of France?" → PASS, route fallback, action allow (fallback settled `,
		`"How long do I have to ask for a refund?" → GENERATOR_UNGROUNDED, route fallback, action block (fallback settled `,
		`"How long does standard shipping take?" → JUDGE_UNCERTAIN, route fallback, action block (fallback settled `,
		`left 1: samples disagree: 3 yes, 2 no [fallback_abstained])`,
		`"Who painted the Mona Lisa and where does it hang?" → RETRIEVAL_MISS, route fallback, action block (fallback settled `,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(spans.String(), `"Name": "ragtriage.evaluate"`); n != 4 {
		t.Errorf("%d evaluation spans exported; want 4", n)
	}
	if strings.Contains(spans.String(), "Paris is the capital") || strings.Contains(spans.String(), "Mona Lisa") {
		t.Error("user text on the spans without -content")
	}
}

// TestRunRecords writes the records to a file: after run returns (shadow,
// then chain shut down) every evaluation's record is in it.
func TestRunRecords(t *testing.T) {
	var spans, info bytes.Buffer
	path := filepath.Join(t.TempDir(), "records.jsonl")
	if err := run(context.Background(), &spans, &info, "", false, path); err != nil {
		t.Fatal(err)
	}
	if want := "records: 4 written to " + path + ", 0 failed, 0 dropped"; !strings.Contains(info.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, info.String())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n != 4 {
		t.Errorf("%d record lines; want 4", n)
	}
}
