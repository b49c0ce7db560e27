package main

import (
	"bytes"
	"context"
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
		"shadow: 4 offered, 4 evaluated, 0 dropped, 0 lost",
		`"What is the capital of France?" → PASS, route fallback, action allow (fallback settled `,
		`"How long do I have to ask for a refund?" → GENERATOR_UNGROUNDED, route fallback, action block (fallback settled `,
		`"How long does standard shipping take?" → JUDGE_UNCERTAIN, route fallback, action block (fallback settled `,
		`left 1: samples disagree: 3 yes, 2 no [fallback_abstained])`,
		`"Who painted the Mona Lisa and where does it hang?" → RETRIEVAL_MISS, route auto, action block` + "\n",
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
