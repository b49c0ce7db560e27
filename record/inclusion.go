package record

import (
	"slices"

	"github.com/ragtriage/ragtriage/guard"
)

// Observation is what one result tells about one decision (or about its
// diagnosis) for estimating a share of the whole traffic from the answers
// the fallback saw (docs/estimates.md). The estimand is the share of
// answers whose final verdict is fail: the embedded judges' verdict where
// they were confident, the fallback's where they were not.
type Observation struct {
	// Counted says the result belongs to the population: it has a verdict
	// for the decision (every result has a diagnosis).
	Counted bool
	// Inclusion is the probability that the result's value was observed:
	// 1 for a verdict the embedded judges gave on their own, the share's
	// inclusion probability (guard.FallbackInfo.Inclusion) for an
	// escalated one, combined with a teacher draw's (guard.Draw.Inclusion)
	// as 1 − (1 − π_share)(1 − π_draw) when the answer was eligible for
	// both. 0 when it is unknown (Unknown says why).
	Inclusion float64
	// Observed says the value is known: the answer was in the sample and
	// its verdict settled. Fail is then the value (for a diagnosis, Value).
	Observed bool
	Fail     bool
	Value    guard.Diagnosis
	// Unknown says why an escalated result cannot be used: UnknownInclusion
	// (no inclusion probability recorded: an older record, or an escalator
	// that states none) or UnknownUnsettled (in the sample, but the
	// fallback left the decision uncertain: non-response). Empty otherwise.
	Unknown string
}

// Reasons an Observation is unusable.
const (
	UnknownInclusion = "no_inclusion"
	UnknownUnsettled = "unsettled"
)

// Observe returns what r tells about decision d (not ChunkRelevance, whose
// verdicts are per context).
func Observe(r *guard.Result, d guard.Decision) Observation {
	v, ok := r.Verdict(d)
	if !ok {
		return Observation{}
	}
	o := Observation{Counted: true}
	f := r.Fallback
	if f == nil || !slices.Contains(f.Decisions, d) {
		// The embedded judges' own verdict: seen for every answer.
		o.Inclusion = 1
		if v != guard.Uncertain {
			o.Observed, o.Fail = true, v == guard.Fail
		} else {
			o.Unknown = UnknownUnsettled
		}
		return o
	}
	pi, drawPi := f.Inclusion, 0.0
	tv, drawn := teacherVerdict(r, d)
	if r.Draw != nil && r.Draw.Inclusion > 0 && r.Draw.Inclusion <= 1 {
		drawPi = r.Draw.Inclusion
	}
	if pi <= 0 || pi > 1 {
		o.Unknown = UnknownInclusion
		return o
	}
	o.Inclusion = pi
	if drawPi > 0 {
		o.Inclusion = 1 - (1-pi)*(1-drawPi)
	}
	admitted := f.Causes[guard.CauseShare] == 0
	if r.Draw != nil && r.Draw.Drawn && r.Teacher == nil {
		// Drawn, but not taught (yet): the draw's value is missing, so the
		// row was in the sample. Counting it as unsampled would weigh the
		// sample's other rows as if it could not have been drawn.
		drawn = true
	}
	switch {
	case admitted && v != guard.Uncertain:
		o.Observed, o.Fail = true, v == guard.Fail
	case drawn && tv != guard.Uncertain:
		o.Observed, o.Fail = true, tv == guard.Fail
	case admitted || drawn:
		o.Unknown = UnknownUnsettled
	}
	return o
}

// teacherVerdict returns the teacher's verdict on d when r was drawn for
// the teacher (issue 20's draws) and the teacher's estimate is a label (not
// read from the primary judge).
func teacherVerdict(r *guard.Result, d guard.Decision) (guard.Verdict, bool) {
	if r.Draw == nil || !r.Draw.Drawn || r.Teacher == nil {
		return guard.Uncertain, false
	}
	// The teacher's verdict on a decision it read from the primary judge
	// is uncertain (guard.Teacher.Verdicts): no label.
	t := guard.Result{Verdicts: r.Teacher.Verdicts}
	v, _ := t.Verdict(d)
	return v, true
}

// ObserveDiagnosis returns what r tells about the traffic's diagnoses: an
// answer that was not escalated is observed with inclusion 1; an escalated
// one when the share admitted it (its diagnosis after the fallback, which
// may still be JUDGE_UNCERTAIN), with the share's inclusion probability.
// Teacher draws do not give a diagnosis.
func ObserveDiagnosis(r *guard.Result) Observation {
	o := Observation{Counted: true, Value: r.Diagnosis}
	f := r.Fallback
	if f == nil {
		o.Inclusion, o.Observed = 1, true
		return o
	}
	if f.Inclusion <= 0 || f.Inclusion > 1 {
		o.Unknown = UnknownInclusion
		return o
	}
	o.Inclusion = f.Inclusion
	o.Observed = f.Causes[guard.CauseShare] == 0
	return o
}
