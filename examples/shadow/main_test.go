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
		"shadow: 3 offered, 3 evaluated, 0 dropped, 0 lost",
		`"What is the capital of France?" → PASS, route fallback, action allow (fallback settled 3, left 0)`,
		`"How long do I have to ask for a refund?" → GENERATOR_UNGROUNDED, route auto, action block`,
		`"How long does standard shipping take?" → JUDGE_UNCERTAIN, route fallback, action block`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(spans.String(), `"Name": "ragtriage.evaluate"`); n != 3 {
		t.Errorf("%d evaluation spans exported; want 3", n)
	}
	if strings.Contains(spans.String(), "Paris is the capital") {
		t.Error("user text on the spans without -content")
	}
}
