package render

import (
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/evalkit/report"
)

func TestRenderEstimates(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	rep := &report.Report{
		Cascade: &report.Cascade{Catch: &report.Catch{FallbackCalls: 63, Rows: 311, CallShare: 63.0 / 311, Escalated: 311, Admitted: 63, FailCaught: 57,
			LabeledFail: 148, LabeledFailCaught: 57, CaughtShare: f(57.0 / 148), RandomCaughtShare: f(63.0 / 311)}},
		Estimates: map[string]*report.FailShareEstimate{
			"groundedness":    {FailShare: f(0.51), Interval: report.Interval{Low: f(0.30), High: f(0.78), N: 63, Rows: 311, Sampled: 11, Available: true}, Labeled: 311, LabeledFailShare: f(0.476)},
			"answerRelevance": {Interval: report.Interval{Rows: 311, Reason: "63 rows in the fallback's sample have no settled verdict"}},
		},
		EstimatesByDiagnosis: map[string]*report.DiagnosisShareEstimate{
			"GENERATOR_UNGROUNDED": {Share: f(0.51), Interval: report.Interval{Low: f(0.30), High: f(0.78), N: 63, Rows: 311, Available: true}},
		},
		EstimateMethod: report.EstimateMethod,
	}
	md := Markdown(rep)
	for _, want := range []string{"## What the fallback calls caught", "| 63 | 20.3% | 38.5% (57 of 148) | 20.3% |", "## Traffic estimates",
		"| groundedness | 51.0% | 30.0% – 78.0% | 63 / 311 | 11 | 47.6% |", "| answerRelevance | unavailable | — |", "no settled verdict", "| GENERATOR_UNGROUNDED | 51.0% |"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	h := HTML(rep)
	i := strings.Index(h, "<h2>Traffic estimates")
	if i < 0 || !strings.Contains(h[i:], "<svg") || !strings.Contains(h[i:], "groundedness: 51.0% (30.0% – 78.0%)") || !strings.Contains(h, "What the fallback calls caught") {
		t.Errorf("HTML lacks the estimates section with its plot or the catch table")
	}
	if strings.Count(h[i:strings.Index(h[i:], "</svg>")+i], "<circle") != 2 {
		t.Errorf("the plot should draw the two available estimates, not the unavailable one")
	}
}

// The runtime table's refusal columns add up to the abstentions: the
// estimates the share refused are said too (JSON runtime.refusedShare).
func TestRenderRuntimeRefusedShare(t *testing.T) {
	rep := &report.Report{Cascade: &report.Cascade{Runtime: &report.CascadeRuntime{Escalator: "cascade(x)", Escalations: 311, Requested: 1866,
		Settled: 64, Abstained: 1802, RefusedShare: 1482, FallbackAbstained: 320, FallbackCalls: 64}}}
	if md := Markdown(rep); !strings.Contains(md, "1482 estimates were refused by the fallback share") {
		t.Errorf("Markdown does not say the share's refusals:\n%s", md)
	}
	if h := HTML(rep); !strings.Contains(h, "1482 estimates were refused by the fallback share") {
		t.Errorf("HTML does not say the share's refusals")
	}
}
