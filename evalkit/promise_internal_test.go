package evalkit

import (
	"testing"

	"github.com/ragtriage/ragtriage/guard"
)

// A verdict on the answer is wrong when the label of the decision's
// proposition says otherwise; for the adverse decisions a true label is
// the unhealthy answer.
func TestWrongVerdict(t *testing.T) {
	for _, c := range []struct {
		d     guard.Decision
		v     guard.Verdict
		label bool
		want  bool
	}{
		{guard.Groundedness, guard.Pass, true, false},
		{guard.Groundedness, guard.Pass, false, true},
		{guard.Groundedness, guard.Fail, false, false},
		{guard.Groundedness, guard.Fail, true, true},
		{guard.Contradiction, guard.Pass, false, false}, // no contradiction: healthy
		{guard.Contradiction, guard.Pass, true, true},
		{guard.ContextConflict, guard.Fail, true, false},
		{guard.ContextConflict, guard.Fail, false, true},
	} {
		if got := wrongVerdict(c.d, c.v, c.label); got != c.want {
			t.Errorf("wrongVerdict(%v, %v, label %v) = %v; want %v", c.d, c.v, c.label, got, c.want)
		}
	}
}
