package fit

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

// passRows judges n rows with a guard whose judge is confident that every
// decision is healthy, except context sufficiency on the odd rows, which
// it leaves uncertain. Rows alternate between two sources.
func passRows(t *testing.T, n int) ([]guard.Result, []int) {
	t.Helper()
	healthy := func(d guard.Decision) float64 {
		if d == guard.Contradiction || d == guard.ContextConflict {
			return 0.01
		}
		return 0.99
	}
	judge := guard.JudgeFunc(func(_ context.Context, req guard.Request) ([]guard.Estimate, error) {
		var out []guard.Estimate
		for _, d := range req.Decisions {
			if d == guard.ChunkRelevance {
				for _, c := range req.Sample.Contexts {
					out = append(out, guard.Estimate{Decision: d, ContextID: c.ID, P: healthy(d)})
				}
				continue
			}
			p := healthy(d)
			if d == guard.ContextSufficiency && req.Sample.ID[len(req.Sample.ID)-1]%2 == 1 {
				p = 0.5
			}
			out = append(out, guard.Estimate{Decision: d, P: p})
		}
		return out, nil
	})
	var pol guard.Policy
	for _, d := range guard.Decisions {
		pol.Set(d, guard.Thresholds{Fail: 0.1, Pass: 0.9})
	}
	g, err := guard.New(guard.WithJudge(judge), guard.WithPolicy(pol))
	if err != nil {
		t.Fatal(err)
	}
	results := make([]guard.Result, n)
	source := make([]int, n)
	for i := range results {
		s := guard.Sample{ID: fmt.Sprint(i), Question: "Where is the tower?", Answer: "In Paris.",
			Contexts: []guard.Context{{ID: "c", Text: "The tower is in Paris."}}}
		if results[i], err = g.Evaluate(context.Background(), s); err != nil {
			t.Fatal(err)
		}
		source[i] = i % 2
	}
	return results, source
}

// Passes follows guard.Diagnose under each rule: a row whose sufficiency
// alone is uncertain passes once sufficiency is waived, not before.
func TestPasses(t *testing.T) {
	results, _ := passRows(t, 2)
	if got := Passes(results[0]); !reflect.DeepEqual(got, []bool{true, true, true, true, true}) {
		t.Errorf("healthy row: Passes = %v; want a pass under every rule", got)
	}
	if got := Passes(results[1]); got[0] || !got[1] {
		t.Errorf("uncertain sufficiency: Passes = %v; want no pass under %v, a pass under %v", got, guard.PassRules[0], guard.PassRules[1])
	}
	if results[1].PassRule != guard.PassAll {
		t.Errorf("Passes changed its argument's rule to %v", results[1].PassRule)
	}
}

// PassRule keeps the strictest rule when waiving sufficiency lets bad
// answers pass, and a more lenient one when the waived rows are good.
func TestPassRule(t *testing.T) {
	const n = 200
	results, source := passRows(t, n)
	good := make([]bool, n)
	for i := range good {
		good[i] = i%2 == 0 // the rows with uncertain sufficiency are bad
	}
	st := Settings{Alpha: 0.05, Confidence: 0.95}
	if rule, _ := PassRule(results, good, source, st); rule != guard.PassAll {
		t.Errorf("waived rows bad: PassRule = %v; want %v", rule, guard.PassAll)
	}
	for i := range good {
		good[i] = true
	}
	rule, checks := PassRule(results, good, source, st)
	if rule == guard.PassAll {
		t.Errorf("every row good: PassRule = %v; want a more lenient rule (checks %+v)", rule, checks)
	}
	passed := make([][]bool, len(guard.PassRules))
	for _, res := range results {
		for k, ok := range Passes(res) {
			passed[k] = append(passed[k], ok)
		}
	}
	wantRule, wantChecks := lexical.SelectPassRule(passed, good, source, st.Alpha, st.Confidence)
	if rule != wantRule || !reflect.DeepEqual(checks, wantChecks) {
		t.Errorf("PassRule = %v, %+v; want lexical.SelectPassRule's %v, %+v", rule, checks, wantRule, wantChecks)
	}
}
