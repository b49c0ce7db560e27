package guard

import (
	"encoding/json"
	"fmt"
	"math"
)

// Verdict is what a policy concludes about one probability. A verdict speaks
// for the answer: Pass is healthy, Fail unhealthy, for every decision. For
// most decisions Pass means P ≥ the pass threshold; for the adverse ones
// (context_conflict, contradiction; see [Decision.Adverse]) it means P ≤ the
// fail threshold — confidently no conflict. The zero Verdict is Uncertain:
// an unset verdict never reads as a pass.
type Verdict uint8

const (
	// Uncertain: P is between the thresholds, the thresholds are unset, or
	// the judge abstained or failed. Such a decision is escalated.
	Uncertain Verdict = iota
	// Pass: the decision is confidently healthy for the answer.
	Pass
	// Fail: the decision is confidently unhealthy for the answer.
	Fail
)

var verdictNames = [...]string{Uncertain: "uncertain", Pass: "pass", Fail: "fail"}

func (v Verdict) String() string {
	if int(v) < len(verdictNames) {
		return verdictNames[v]
	}
	return fmt.Sprintf("Verdict(%d)", uint8(v))
}

// MarshalJSON writes "pass", "fail" or "uncertain".
func (v Verdict) MarshalJSON() ([]byte, error) { return json.Marshal(v.String()) }

// UnmarshalJSON reads "pass", "fail" or "uncertain".
func (v *Verdict) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	for i, n := range verdictNames {
		if n == s {
			*v = Verdict(i)
			return nil
		}
	}
	return fmt.Errorf("guard: unknown verdict %q", s)
}

// Thresholds is a two-sided rule for one decision: P ≤ Fail is a confident
// negative, P ≥ Pass a confident positive, anything between is uncertain.
// The zero Thresholds is unset and makes every P uncertain.
//
// A side can be undecided by policy: calibration found no region on that side
// that keeps its error promise. NoFail (NoPass) then says that no P, not even
// exactly 0 (1), is a confident negative (positive); Fail (Pass) is ignored.
// A decision with both sides undecided is undecided by policy: always
// uncertain, stated as such rather than as thresholds of 0 and 1.
type Thresholds struct {
	Fail float64 `json:"fail"`
	Pass float64 `json:"pass"`
	// NoFail: nothing is a confident negative (the fail side is undecided by policy).
	NoFail bool `json:"noFail,omitempty"`
	// NoPass: nothing is a confident positive (the pass side is undecided by policy).
	NoPass bool `json:"noPass,omitempty"`
}

// Undecided returns the Thresholds of a decision that is undecided by
// policy: both sides off.
func Undecided() Thresholds { return Thresholds{Fail: 0, Pass: 1, NoFail: true, NoPass: true} }

// IsZero reports whether t is unset.
func (t Thresholds) IsZero() bool { return t.Fail == 0 && t.Pass == 0 && !t.NoFail && !t.NoPass }

// IsUndecided reports whether both sides of t are undecided by policy.
func (t Thresholds) IsUndecided() bool { return t.NoFail && t.NoPass }

// Validate checks a set Thresholds: 0 ≤ Fail < Pass ≤ 1 for the sides that
// decide (0 < Pass ≤ 1 with the fail side undecided, 0 ≤ Fail < 1 with the
// pass side undecided); the value of an undecided side is not read.
func (t Thresholds) Validate() error {
	if t.IsZero() || t.IsUndecided() {
		return nil
	}
	if !t.valid() {
		return fmt.Errorf("thresholds fail=%v pass=%v (no fail side: %v, no pass side: %v): want 0 ≤ fail < pass ≤ 1 on the sides that decide", t.Fail, t.Pass, t.NoFail, t.NoPass)
	}
	return nil
}

func (t Thresholds) valid() bool {
	failOK := t.NoFail || (t.Fail >= 0 && t.Fail < 1)
	passOK := t.NoPass || (t.Pass > 0 && t.Pass <= 1)
	bothOK := t.NoFail || t.NoPass || t.Fail < t.Pass
	return failOK && passOK && bothOK // NaN fails every comparison
}

// Verdict applies t to p and gives the verdict on the proposition: Pass
// when p ≥ Pass (confidently true), Fail when p ≤ Fail (confidently false).
// That is the answer's verdict only for a decision that is not adverse; use
// [Policy.Verdict] or [Decision.AnswerVerdict] for the answer's verdict on
// any decision. An unset or invalid t, or a NaN p, is Uncertain; a side that
// is undecided by policy never gives its verdict.
func (t Thresholds) Verdict(p float64) Verdict {
	switch {
	case t.IsZero() || math.IsNaN(p) || !t.valid():
		return Uncertain
	case !t.NoPass && p >= t.Pass:
		return Pass
	case !t.NoFail && p <= t.Fail:
		return Fail
	}
	return Uncertain
}

// PassRule says how strictly the built-in diagnosis treats decisions that are
// uncertain when nothing failed confidently. Rules form a fixed sequence from
// the strictest (the zero value) to the most lenient; calibration picks the
// most lenient whose auto-pass error keeps its promise on every labelled
// source, and the profile records it. A confident failure is reported under
// every rule; a rule only decides which uncertain decisions may stand beside a
// PASS.
type PassRule uint8

const (
	// PassAll: PASS needs every decision confidently healthy.
	PassAll PassRule = iota
	// PassWaiveSufficiency: context sufficiency may be uncertain.
	PassWaiveSufficiency
	// PassWaiveRetrieval: the retrieval decisions (chunk relevance,
	// sufficiency, conflict) may be uncertain; every generation decision must
	// be confidently healthy.
	PassWaiveRetrieval
	// PassGroundedRelevant: groundedness and answer relevance must be
	// confidently healthy; the other decisions may be uncertain.
	PassGroundedRelevant
	// PassGrounded: groundedness must be confidently healthy; the other
	// decisions may be uncertain. The most lenient rule.
	PassGrounded
)

// PassRules lists the rules in their fixed order, strictest first.
var PassRules = []PassRule{PassAll, PassWaiveSufficiency, PassWaiveRetrieval, PassGroundedRelevant, PassGrounded}

var passRuleNames = [...]string{PassAll: "all", PassWaiveSufficiency: "waive-sufficiency",
	PassWaiveRetrieval: "waive-retrieval", PassGroundedRelevant: "grounded-relevant", PassGrounded: "grounded"}

func (r PassRule) String() string {
	if int(r) < len(passRuleNames) {
		return passRuleNames[r]
	}
	return fmt.Sprintf("PassRule(%d)", uint8(r))
}

// MarshalJSON writes the rule's name.
func (r PassRule) MarshalJSON() ([]byte, error) { return json.Marshal(r.String()) }

// UnmarshalJSON reads a rule's name.
func (r *PassRule) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	for i, n := range passRuleNames {
		if n == s {
			*r = PassRule(i)
			return nil
		}
	}
	return fmt.Errorf("guard: unknown pass rule %q", s)
}

// Waives reports whether rule r lets decision d be uncertain beside a PASS.
func (r PassRule) Waives(d Decision) bool {
	switch r {
	case PassWaiveSufficiency:
		return d == ContextSufficiency
	case PassWaiveRetrieval:
		return d == ContextSufficiency || d == ContextConflict || d == ChunkRelevance
	case PassGroundedRelevant:
		return d != Groundedness && d != AnswerRelevance
	case PassGrounded:
		return d != Groundedness
	}
	return false
}

// Policy holds the thresholds of every decision. The zero Policy escalates
// everything. Thresholds come from calibration (see package calibrate and
// `ragtriage calibrate`); any defaults shipped with a judge name the data
// they were fitted on.
type Policy struct {
	ChunkRelevance     Thresholds `json:"chunk_relevance"`
	ContextSufficiency Thresholds `json:"context_sufficiency"`
	ContextConflict    Thresholds `json:"context_conflict"`
	AnswerRelevance    Thresholds `json:"answer_relevance"`
	Groundedness       Thresholds `json:"groundedness"`
	Contradiction      Thresholds `json:"contradiction"`
	Correctness        Thresholds `json:"correctness"`
	// PassRule says which uncertain decisions may stand beside a PASS; the
	// zero value, PassAll, allows none.
	PassRule PassRule `json:"passRule,omitempty"`
}

// For returns the thresholds of d.
func (p *Policy) For(d Decision) Thresholds {
	if f := p.field(d); f != nil {
		return *f
	}
	return Thresholds{}
}

// Verdict is the answer's verdict on decision d with probability p under the
// thresholds of d: Pass is healthy for every decision (see [Verdict]).
func (p *Policy) Verdict(d Decision, prob float64) Verdict {
	return d.AnswerVerdict(p.For(d).Verdict(prob))
}

// Set sets the thresholds of d.
func (p *Policy) Set(d Decision, t Thresholds) {
	if f := p.field(d); f != nil {
		*f = t
	}
}

func (p *Policy) field(d Decision) *Thresholds {
	switch d {
	case ChunkRelevance:
		return &p.ChunkRelevance
	case ContextSufficiency:
		return &p.ContextSufficiency
	case ContextConflict:
		return &p.ContextConflict
	case AnswerRelevance:
		return &p.AnswerRelevance
	case Groundedness:
		return &p.Groundedness
	case Contradiction:
		return &p.Contradiction
	case Correctness:
		return &p.Correctness
	}
	return nil
}

// Decides reports whether p gives any automatic verdict: whether some
// decision has a side that is set, valid and not undecided by policy. The
// zero Policy decides nothing, nor does one whose every side is undecided
// (the profile shipped with guard/lexical): under it every answer that has
// contexts is JUDGE_UNCERTAIN.
func (p *Policy) Decides() bool {
	for _, d := range Decisions {
		t := p.For(d)
		if !t.IsZero() && !t.IsUndecided() && t.valid() {
			return true
		}
	}
	return false
}

// Validate checks every decision's thresholds and the pass rule.
func (p *Policy) Validate() error {
	if int(p.PassRule) >= len(passRuleNames) {
		return fmt.Errorf("guard: policy: unknown pass rule %d", p.PassRule)
	}
	for _, d := range Decisions {
		if err := p.For(d).Validate(); err != nil {
			return fmt.Errorf("guard: policy for %s: %w", d, err)
		}
	}
	return nil
}
