package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// nliRows writes n NLI-style rows that all share one question (blank, or
// the FAQ question q): premise i is the context, and the answer restates
// it (grounded) or says something else (not grounded).
func nliRows(t *testing.T, n int, q string) string {
	t.Helper()
	var b strings.Builder
	words := []string{"river", "castle", "violin", "harbor", "glacier", "orchard", "lantern", "meadow", "canyon", "temple"}
	for i := range n {
		w1, w2 := words[i%len(words)], words[(i/len(words))%len(words)]
		premise := fmt.Sprintf("The %s near the %s was built in %d by the people of town %d.", w1, w2, 1800+i, i)
		answer := fmt.Sprintf("The %s near the %s was built in %d.", w1, w2, 1800+i)
		grounded := i%2 == 0
		if !grounded {
			answer = fmt.Sprintf("A %s sold %d tickets to visitors from abroad last winter.", words[(i+3)%len(words)], 7*i+3)
		}
		fmt.Fprintf(&b, `{"id":"n%d","question":%q,"contexts":[{"id":"c1","text":%q}],"answer":%q,"expected":{"generation":{"groundedness":%v}}}`+"\n",
			i, q, premise, answer, grounded)
	}
	p := filepath.Join(t.TempDir(), "nli.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Rows that all share one question (NLI prompts have none; an FAQ bot asks
// the same one) used to fall into one group, so one fold held every row and
// calibrate refused: "the rows outside fold 4 hold a single class".
func TestCalibrateSharedQuestionDoesNotCollapseFolds(t *testing.T) {
	for _, q := range []string{"", "What does the passage say?"} {
		data := nliRows(t, 80, q)
		prof := filepath.Join(t.TempDir(), "p.json")
		st, out, e := runCmd(t, "calibrate", "-dataset", data, "-alpha", "0.10", "-out", prof, "-allow-undecided")
		if st != 0 || strings.Contains(e, "single class") {
			t.Fatalf("question %q: exit %d:\n%s\n%s", q, st, out, e)
		}
		if !regexp.MustCompile(`groundedness +80 +40 +80 `).MatchString(out) {
			t.Errorf("question %q: want 80 groups (one per premise):\n%s", q, out)
		}
		if q != "" && !strings.Contains(out, `do not group rows by the question "what does the passage say?", shared by 80 of 80 rows`) {
			t.Errorf("the ignored question is not named:\n%s", out)
		}
	}
}
