package main

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

// knownMisses lists the cases the embedded judges miss today (their
// KnownMiss in cases.go) and how each misses: one problem per prefix, in
// checker order. A case stops being a known miss by passing; then this entry
// and its KnownMiss go.
var knownMisses = map[string][]string{
	"evasive-answer":                    {"answer_relevance P="},
	"conflicting-chunks":                {"context_conflict P=", "no conflict evidence"},
	"honest-refusal-off-topic-contexts": {"diagnosis JUDGE_UNCERTAIN"},
}

// TestSelftest runs the planted cases of `ragtriage selftest` (cases.go) as
// subtests: go test -run 'TestSelftest/negation-flip' -v shows one. A case
// must pass unless it is a known miss; a known miss must still miss, and in
// the way knownMisses says.
func TestSelftest(t *testing.T) {
	g, err := lexical.NewGuard()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range cases {
		c := &cases[i]
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			problems, desc, _ := runCase(ctx, g, c)
			if c.KnownMiss == "" {
				if len(problems) > 0 {
					t.Errorf("%s\nresult: %s", strings.Join(problems, "\n"), desc)
				}
				t.Log(desc)
				return
			}
			checkKnownMiss(t, c.Name, problems, desc)
			t.Logf("known miss (%s): %s", c.KnownMiss, desc)
		})
	}
}

// checkKnownMiss fails unless a known miss's problems are those knownMisses
// lists for it.
func checkKnownMiss(t *testing.T, name string, problems []string, desc string) {
	t.Helper()
	want, ok := knownMisses[name]
	switch {
	case !ok:
		t.Errorf("%s has a KnownMiss but no entry in knownMisses: say how it misses", name)
	case len(problems) == 0:
		t.Errorf("known miss %s passes now: drop its KnownMiss (cases.go) and its knownMisses entry\nresult: %s", name, desc)
	case len(problems) != len(want):
		t.Errorf("known miss %s: problems %q; want one each starting %q\nresult: %s", name, problems, want, desc)
	default:
		for i, p := range problems {
			if !strings.HasPrefix(p, want[i]) {
				t.Errorf("known miss %s: problem %d is %q; want it to start %q\nresult: %s", name, i, p, want[i], desc)
			}
		}
	}
}

// TestKnownMissesListed checks that knownMisses names only cases marked
// KnownMiss in cases.go, and that the selftest has its two known misses.
func TestKnownMissesListed(t *testing.T) {
	marked := 0
	for _, c := range cases {
		if c.KnownMiss != "" {
			marked++
		} else if _, ok := knownMisses[c.Name]; ok {
			t.Errorf("knownMisses lists %s, which has no KnownMiss in cases.go", c.Name)
		}
	}
	if marked != len(knownMisses) || marked != 3 {
		t.Errorf("%d cases marked KnownMiss, %d in knownMisses; want 3 and 3", marked, len(knownMisses))
	}
}

// TestSelftestCases checks the case list itself: unique names, valid
// samples, planted failures and passes both present.
func TestSelftestCases(t *testing.T) {
	seen := map[string]bool{}
	var fails, passes int
	for _, c := range cases {
		if seen[c.Name] {
			t.Errorf("duplicate case name %q", c.Name)
		}
		seen[c.Name] = true
		if err := c.Sample.Validate(guard.Limits{}); err != nil {
			t.Errorf("%s: %v", c.Name, err)
		}
		if len(c.Want.Diagnosis)+len(c.Want.NotDiagnosis)+len(c.Want.Probs)+len(c.Want.Evidence) == 0 {
			t.Errorf("%s: empty expectation", c.Name)
		}
		if len(c.Want.NotDiagnosis) == len(failureDiagnoses) {
			passes++
		} else {
			fails++
		}
	}
	if fails < 10 || passes < 4 {
		t.Errorf("%d planted failures and %d planted passes; want at least 10 and 4", fails, passes)
	}
}

// TestExpectation checks the checker on hand-made results.
func TestExpectation(t *testing.T) {
	known := func(p float64) guard.Prob { return guard.KnownProb(p) }
	res := guard.Result{Diagnosis: guard.GeneratorUngrounded}
	res.Generation.Groundedness = known(0.2)
	res.Verdicts.Generation.Groundedness = guard.Fail
	res.Generation.Contradiction = guard.Prob{Asked: true} // unknown
	res.Evidence = []guard.Evidence{{Decision: guard.Groundedness, Kind: guard.EvidenceNumberMismatch}}
	for _, tc := range []struct {
		e    expectation
		want int // problems
	}{
		{expectation{NotDiagnosis: []guard.Diagnosis{guard.PassDiagnosis}}, 0},
		{expectation{Diagnosis: []guard.Diagnosis{guard.PassDiagnosis}}, 1},
		{expectation{NotDiagnosis: failureDiagnoses}, 1},
		{expectation{Probs: []probCheck{below(guard.Groundedness, 0.5)}}, 0},
		{expectation{Probs: []probCheck{atLeast(guard.Groundedness, 0.5)}}, 1},
		{expectation{Probs: []probCheck{above(guard.Contradiction, 0.5)}}, 1}, // unknown P
		{expectation{Probs: []probCheck{below(guard.Contradiction, 0.5)}}, 1}, // unknown P
		{expectation{Probs: []probCheck{below(guard.Correctness, 0.5)}}, 1},   // absent
		{expectation{Probs: []probCheck{verdictNot(guard.Groundedness, guard.Fail)}}, 1},
		{expectation{Probs: []probCheck{verdictNot(guard.Groundedness, guard.Pass)}}, 0},
		{expectation{Evidence: []evidenceCheck{evidence(guard.EvidenceNumberMismatch)}}, 0},
		{expectation{Evidence: []evidenceCheck{evidenceFor(guard.Contradiction, guard.EvidenceNumberMismatch)}}, 1},
		{expectation{Evidence: []evidenceCheck{evidence(guard.EvidenceConflict, guard.EvidenceNumberMismatch)}}, 0},
		{expectation{Evidence: []evidenceCheck{evidence(guard.EvidenceConflict)}}, 1},
	} {
		if got := tc.e.check(&res); len(got) != tc.want {
			t.Errorf("check(%+v) = %q; want %d problems", tc.e, got, tc.want)
		}
	}
}

// TestSelftestCommand checks the command's output format: one line per case,
// then the summary, and an exit status that agrees with them.
func TestSelftestCommand(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"selftest"}, nil, &stdout, &stderr)
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if len(lines) != len(cases)+1 {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(cases)+1, stdout.String())
	}
	failed, known := 0, 0
	for i, c := range cases {
		switch l := lines[i]; {
		case strings.HasPrefix(l, "PASS "+c.Name+": ") && c.KnownMiss != "":
			t.Errorf("line %d: %q: a known miss passes silently", i+1, l)
		case strings.HasPrefix(l, "PASS "+c.Name+": "):
			checkPassWords(t, i+1, l, &c)
		case strings.HasPrefix(l, "FAIL "+c.Name+": "):
			failed++
		case c.KnownMiss != "" && strings.HasPrefix(l, "MISS "+c.Name+" "):
			known++
		default:
			t.Errorf("line %d: %q, want PASS, FAIL or MISS %s", i+1, l, c.Name)
		}
	}
	if want := fmt.Sprintf("selftest: %d cases, %d passed, %d failed, %d known misses", len(cases), len(cases)-failed-known, failed, known); lines[len(cases)] != want {
		t.Errorf("summary %q, want %q", lines[len(cases)], want)
	}
	if failed > 0 || known != len(knownMisses) {
		t.Errorf("%d failing cases and %d known misses; want 0 and %d", failed, known, len(knownMisses))
	}
	if (code != 0) != (failed > 0) {
		t.Errorf("exit status %d with %d failing cases", code, failed)
	}
}

// checkPassWords checks that a PASS line says what happened to the answer
// in the words of its action, and what that means for the case: a planted
// failure is caught (not allowed), a planted pass is not flagged.
func checkPassWords(t *testing.T, n int, line string, c *selftestCase) {
	t.Helper()
	g, err := newGuard("")
	if err != nil {
		t.Fatal(err)
	}
	res, err := g.Evaluate(context.Background(), c.Sample)
	if err != nil {
		t.Fatal(err)
	}
	word := map[guard.Action]string{guard.Allow: "allowed", guard.Block: "blocked", guard.Review: "reviewed"}[res.Action]
	if want := fmt.Sprintf("%s (%s)", word, res.Diagnosis); !strings.Contains(line, want) {
		t.Errorf("line %d: %q lacks %q (action %s)", n, line, want, res.Action)
	}
	planted := slices.Contains(c.Want.NotDiagnosis, guard.PassDiagnosis) || len(c.Want.Diagnosis) > 0 && !slices.Contains(c.Want.Diagnosis, guard.PassDiagnosis)
	if want := "not flagged: "; planted {
		if want = "caught: "; !strings.Contains(line, ", not allowed") {
			t.Errorf("line %d: %q: a caught failure must say it is not allowed", n, line)
		}
		if !strings.Contains(line, want) {
			t.Errorf("line %d: %q lacks %q", n, line, want)
		}
	} else if !strings.Contains(line, want) {
		t.Errorf("line %d: %q lacks %q", n, line, want)
	}
}

// TestSelftestMissWords: a MISS line never calls a JUDGE_UNCERTAIN answer
// flagged (it is reviewed).
func TestSelftestMissWords(t *testing.T) {
	var stdout, stderr bytes.Buffer
	run([]string{"selftest"}, nil, &stdout, &stderr)
	for _, l := range strings.Split(stdout.String(), "\n") {
		if strings.Contains(l, "diagnosis=JUDGE_UNCERTAIN") && strings.Contains(strings.ReplaceAll(l, "not flagged", ""), "flagged") {
			t.Errorf("a line says flagged beside JUDGE_UNCERTAIN: %q", l)
		}
	}
}
