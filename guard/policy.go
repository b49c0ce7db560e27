package guard

import (
	"encoding/json"
	"fmt"
	"math"
)

// Verdict is what a policy concludes about one probability. The zero Verdict
// is Uncertain: an unset verdict never reads as a pass.
type Verdict uint8

const (
	// Uncertain: P is between the thresholds, the thresholds are unset, or
	// the judge abstained or failed. Such a decision is escalated.
	Uncertain Verdict = iota
	// Pass: P ≥ the pass threshold; the decision is confidently true.
	Pass
	// Fail: P ≤ the fail threshold; the decision is confidently false.
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
type Thresholds struct {
	Fail float64 `json:"fail"`
	Pass float64 `json:"pass"`
}

// IsZero reports whether t is unset.
func (t Thresholds) IsZero() bool { return t.Fail == 0 && t.Pass == 0 }

// Validate checks 0 ≤ Fail < Pass ≤ 1 for a set Thresholds.
func (t Thresholds) Validate() error {
	if t.IsZero() {
		return nil
	}
	if math.IsNaN(t.Fail) || math.IsNaN(t.Pass) || t.Fail < 0 || t.Pass > 1 || !(t.Fail < t.Pass) {
		return fmt.Errorf("thresholds fail=%v pass=%v: want 0 ≤ fail < pass ≤ 1", t.Fail, t.Pass)
	}
	return nil
}

// Verdict applies t to p. An unset t, or a NaN p, is Uncertain.
func (t Thresholds) Verdict(p float64) Verdict {
	switch {
	case t.IsZero() || math.IsNaN(p):
		return Uncertain
	case p >= t.Pass:
		return Pass
	case p <= t.Fail:
		return Fail
	}
	return Uncertain
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
}

// For returns the thresholds of d.
func (p *Policy) For(d Decision) Thresholds {
	if f := p.field(d); f != nil {
		return *f
	}
	return Thresholds{}
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

// Validate checks every decision's thresholds.
func (p *Policy) Validate() error {
	for _, d := range Decisions {
		if err := p.For(d).Validate(); err != nil {
			return fmt.Errorf("guard: policy for %s: %w", d, err)
		}
	}
	return nil
}
