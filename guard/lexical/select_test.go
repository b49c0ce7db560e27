package lexical_test

import (
	"testing"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

// rows builds the passed matrix of SelectPassRule from how many rows each
// rule passes (rules pass nested sets, strictest first) and which rows are
// bad.
func passRuleRows(perRule []int, bad map[int]bool, n int) ([][]bool, []bool, []int) {
	passed := make([][]bool, len(guard.PassRules))
	good := make([]bool, n)
	group := make([]int, n)
	for i := range good {
		good[i] = !bad[i]
		group[i] = i % 2
	}
	for r := range passed {
		passed[r] = make([]bool, n)
		for i := 0; i < perRule[r]; i++ {
			passed[r][i] = true
		}
	}
	return passed, good, group
}

func TestSelectPassRule(t *testing.T) {
	const n = 2000
	cases := []struct {
		name    string
		perRule []int
		bad     map[int]bool
		want    guard.PassRule
	}{
		{"nothing passes", []int{0, 0, 0, 0, 0}, nil, guard.PassAll},
		{"all clean: the most lenient", []int{100, 300, 600, 1000, 1500}, nil, guard.PassGrounded},
		// Rule 3 passes rows 0–999, of which 100 are bad: it fails and stops
		// the sequence, even though it adds more rows than rule 2.
		{"a bad rule stops the sequence", []int{100, 300, 600, 1000, 1500}, func() map[int]bool {
			m := map[int]bool{}
			for i := 600; i < 700; i++ {
				m[i] = true
			}
			return m
		}(), guard.PassWaiveRetrieval},
		// The strictest rules pass too few rows to be tested: skipped, not a stop.
		{"too few to test is skipped", []int{10, 20, 300, 300, 300}, nil, guard.PassGrounded},
	}
	for _, c := range cases {
		passed, good, group := passRuleRows(c.perRule, c.bad, n)
		got, checks := lexical.SelectPassRule(passed, good, group, 0.05, 0.95)
		if got != c.want {
			t.Errorf("%s: rule %v; want %v (checks %+v)", c.name, got, c.want, checks)
		}
		if len(checks) != len(guard.PassRules) {
			t.Errorf("%s: %d checks; want %d", c.name, len(checks), len(guard.PassRules))
		}
	}
}
