package record_test

import (
	"testing"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/record"
)

func TestObserve(t *testing.T) {
	g := guard.Groundedness
	esc := func(pi float64, causes map[guard.Cause]int) *guard.FallbackInfo {
		return &guard.FallbackInfo{Decisions: []guard.Decision{g}, Inclusion: pi, Causes: causes}
	}
	res := func(v guard.Verdict, f *guard.FallbackInfo) guard.Result {
		r := guard.Result{Fallback: f}
		r.Verdicts.Generation.Groundedness = v
		return r
	}
	refused := map[guard.Cause]int{guard.CauseShare: 1}
	drawn := res(guard.Uncertain, esc(0.1, refused))
	drawn.Draw = &guard.Draw{Kind: guard.DrawExplore, Rate: 0.5, Drawn: true, Inclusion: 0.5}
	drawn.Teacher = &guard.Teacher{Judge: "fb"}
	drawn.Teacher.Verdicts.Generation.Groundedness = guard.Fail
	untaught := res(guard.Uncertain, esc(0.1, refused))
	untaught.Draw = &guard.Draw{Kind: guard.DrawExplore, Rate: 0.5, Drawn: true, Inclusion: 0.5}
	admittedUntaught := res(guard.Fail, esc(0.1, nil))
	admittedUntaught.Draw = untaught.Draw
	notDrawn := res(guard.Uncertain, esc(0.1, refused))
	notDrawn.Draw = &guard.Draw{Kind: guard.DrawExplore, Rate: 0.5, Inclusion: 0.5}
	for _, tc := range []struct {
		name string
		r    guard.Result
		want record.Observation
	}{
		{"embedded judges' own verdict", res(guard.Fail, nil), record.Observation{Counted: true, Inclusion: 1, Observed: true, Fail: true}},
		{"admitted by rank", res(guard.Pass, esc(1, nil)), record.Observation{Counted: true, Inclusion: 1, Observed: true}},
		{"drawn", res(guard.Fail, esc(0.05, nil)), record.Observation{Counted: true, Inclusion: 0.05, Observed: true, Fail: true}},
		{"refused by the share", res(guard.Uncertain, esc(0.05, refused)), record.Observation{Counted: true, Inclusion: 0.05}},
		{"admitted, left uncertain", res(guard.Uncertain, esc(0.05, nil)), record.Observation{Counted: true, Inclusion: 0.05, Unknown: record.UnknownUnsettled}},
		{"no inclusion (older record)", res(guard.Fail, esc(0, nil)), record.Observation{Counted: true, Unknown: record.UnknownInclusion}},
		{"refused, drawn for the teacher", drawn, record.Observation{Counted: true, Inclusion: 1 - 0.9*0.5, Observed: true, Fail: true}},
		// Drawn, but the teacher's answer is not (yet) on the result: its
		// value is missing, a non-response, not an unsampled row.
		{"refused, drawn, not taught", untaught, record.Observation{Counted: true, Inclusion: 1 - 0.9*0.5, Unknown: record.UnknownUnsettled}},
		{"admitted, drawn, not taught", admittedUntaught, record.Observation{Counted: true, Inclusion: 1 - 0.9*0.5, Observed: true, Fail: true}},
		{"refused, eligible for a draw, not drawn", notDrawn, record.Observation{Counted: true, Inclusion: 1 - 0.9*0.5}},
	} {
		if got := record.Observe(&tc.r, g); got != tc.want {
			t.Errorf("%s: %+v; want %+v", tc.name, got, tc.want)
		}
	}
	if o := record.Observe(&guard.Result{}, guard.Correctness); o.Counted {
		t.Errorf("correctness without a verdict slot counted: %+v", o)
	}
}
