package guard

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// Features are the embedded judges' raw feature vectors for one sample:
// numbers only, never text. They are what a profile is fitted on, so a
// record that carries them can teach the embedded judges with content
// capture off. Result.Features holds them when a judge that gives them
// (a FeatureJudge, such as package lexical's) estimated the sample.
type Features struct {
	// Version names the feature definitions (lexical.FeaturesVersion, e.g.
	// "lexical-features/3"); a profile fitted on another version cannot
	// use them.
	Version string `json:"version"`
	// Vectors holds one vector per decision the judge estimated, chunk
	// relevance one per context, in the order the judge returned them.
	Vectors []FeatureVector `json:"vectors"`
}

// FeatureVector is the raw feature vector of one decision (and, for
// ChunkRelevance, one context), in the order of the judge's feature names
// (lexical.FeatureNames).
type FeatureVector struct {
	Decision  Decision  `json:"decision"`
	ContextID string    `json:"contextId,omitempty"`
	X         []float64 `json:"x"`
}

// Vector returns the vector of decision d (and context id, for
// ChunkRelevance), or nil.
func (f *Features) Vector(d Decision, contextID string) []float64 {
	if f == nil {
		return nil
	}
	for i := range f.Vectors {
		if v := &f.Vectors[i]; v.Decision == d && v.ContextID == contextID {
			return v.X
		}
	}
	return nil
}

// A FeatureJudge is a Judge that puts each estimate's raw feature vector on
// it (Estimate.Features), and names the feature definitions. The guard
// gathers the vectors of the FeatureJudges whose FeaturesVersion is the
// first one's into Result.Features.
type FeatureJudge interface {
	Judge
	FeaturesVersion() string
}

// DrawKind says why a result was drawn for the teacher.
type DrawKind string

const (
	// DrawExplore: any answer, drawn with the explore rate whatever the
	// embedded verdicts (shadow mode, replay).
	DrawExplore DrawKind = "explore"
	// DrawAudit: an answer the embedded judges decided on their own (route
	// auto: no escalation), drawn with the audit rate (enforce mode).
	DrawAudit DrawKind = "audit"
)

// Draws configures teacher draws (WithDraws): a uniform random share of the
// answers also goes to the teacher, the guard's escalator, so that its
// verdicts can teach and check the embedded judges. Rates are in [0, 1];
// zero draws nothing of that kind.
//
// Explore draws every answer with probability Explore. Audit draws the
// answers the embedded judges decided on their own (Result.Route Auto) with
// probability Audit. With both set, an answer decided on its own is drawn
// with probability max(Explore, Audit) (kind audit when Audit is the
// larger), any other with probability Explore. Whether an answer is drawn is
// a deterministic function of Seed and the sample's ID (a hash of the
// sample's texts when it has none), so a replay draws the same answers.
type Draws struct {
	Explore float64
	Audit   float64
	Seed    uint64
}

// Validate reports a rate that is not a number in [0, 1].
func (d Draws) Validate() error {
	for _, r := range []struct {
		name string
		v    float64
	}{{"Explore", d.Explore}, {"Audit", d.Audit}} {
		if math.IsNaN(r.v) || r.v < 0 || r.v > 1 {
			return fmt.Errorf("guard: Draws: %s rate %v is not in [0, 1]", r.name, r.v)
		}
	}
	return nil
}

// Draw records the teacher draw of one result. It is present whenever
// draws are configured (WithDraws), drawn or not.
type Draw struct {
	// Kind is explore or audit: the draw this answer was eligible for.
	Kind DrawKind `json:"kind"`
	// Rate is the configured rate of that kind.
	Rate float64 `json:"rate"`
	// Seed is the draws' seed.
	Seed uint64 `json:"seed"`
	// Drawn says the answer was drawn: Teach asks the teacher about it.
	Drawn bool `json:"drawn"`
	// Inclusion is the probability this answer had of being drawn (Rate
	// for a uniform draw; max(Explore, Audit) for an answer decided on its
	// own when both are set). An escalated answer's fallback verdicts are
	// not a uniform draw.
	Inclusion float64 `json:"inclusion"`
}

// Teacher is the teacher's answer about a drawn result (Guard.Teach). It
// sits beside the result's own verdicts and never changes them: the
// result's verdicts, diagnosis, route, action and Fallback stay the
// embedded judges' (and the escalation's, if any).
type Teacher struct {
	// Judge names the teacher: the escalator (its Describe name, or its
	// type).
	Judge string `json:"judge"`
	// Estimates are the teacher's estimates, abstentions included, for
	// every decision the guard's own judges were asked (chunk relevance of
	// every context).
	Estimates []Estimate `json:"estimates"`
	// Verdicts read Estimates with the fallback policy (the Policy given
	// to WithEscalator). A decision the teacher did not answer, or
	// answered from the primary judge (see FromPrimary), is uncertain.
	Verdicts Verdicts `json:"verdicts"`
	// Cause is set when the teacher left a decision unanswered: a refusal
	// (budget, breaker_open, concurrency, closed), the request's end
	// (deadline, cancelled), a failure (fallback_failed) or an abstention
	// (fallback_abstained). The first such cause; Reason says it for
	// people.
	Cause  Cause  `json:"cause,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Usage is what the teacher spent on this result. It is not part of
	// Result.Usage.
	Usage     Usage   `json:"usage,omitzero"`
	LatencyMs float64 `json:"latencyMs"`
	// FromPrimary says some estimates were read from one of the guard's
	// own judges (their Judge names it), as a simulated teacher does for
	// decisions it has no label for: those are not labels, and their
	// verdicts are uncertain.
	FromPrimary bool `json:"fromPrimary"`
}

// Refused reports whether the teacher left a decision unanswered because
// the fallback refused or could not be asked in time: budget, breaker,
// concurrency, a closed escalator, the deadline or a cancellation.
func (t *Teacher) Refused() bool {
	switch t.Cause {
	case CauseBudget, CauseBreakerOpen, CauseConcurrency, CauseClosed, CauseDeadline, CauseCancelled:
		return true
	}
	return false
}

// ErrNoTeacher is returned by Teach on a drawn result when the guard has no
// escalator to ask.
var ErrNoTeacher = errors.New("guard: Teach: no escalator configured (WithEscalator) to teach with")

// WithDraws draws a uniform random share of the answers for the teacher
// (see Draws). Evaluate decides the draw and records it in Result.Draw; it
// never asks the teacher itself. Guard.Teach does, for a drawn result, off
// the request path. Draws need an escalator (WithEscalator) to teach with;
// without one Teach returns ErrNoTeacher.
func WithDraws(d Draws) Option {
	return func(g *Guard) error {
		if err := d.Validate(); err != nil {
			return err
		}
		if d.Explore == 0 && d.Audit == 0 {
			g.draws = nil
			return nil
		}
		g.draws = &d
		return nil
	}
}

// teachStats counts the draws and what Teach made of them.
type teachStats struct{}

// Teach asks the teacher (the guard's escalator) about a result that
// Evaluate drew (res.Draw.Drawn), and records its answer in res.Teacher. It
// does nothing, and returns nil, for a result that was not drawn. It is
// meant to run off the request path, after the answer was returned: the
// middleware calls it in the shadow worker, or on a bounded background
// goroutine in inline mode; evalkit's runner right after Evaluate. s must
// be the sample res was evaluated from.
//
// The teacher is asked every decision the guard's own judges were asked,
// behind the escalator's budget, breaker and concurrency limit. A refusal
// is recorded in res.Teacher.Cause, counted (TeachStats), and never
// retried. Teach never changes res's verdicts, diagnosis, route, action or
// Fallback. It returns an error only when it could not ask: ErrNoTeacher
// without an escalator, or a nil sample or result.
func (g *Guard) Teach(ctx context.Context, s *Sample, res *Result) error {
	if s == nil || res == nil {
		return errors.New("guard: Teach: nil sample or result")
	}
	if res.Draw == nil || !res.Draw.Drawn {
		return nil
	}
	if g.esc == nil {
		return ErrNoTeacher
	}
	return errors.New("guard: Teach: not implemented yet")
}
