package guard

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// A ClaimExtractor splits an answer into atomic claims, each a short
// self-contained statement, for the advanced groundedness mode (WithClaims).
// The host may supply one; package guard/llmjudge has one backed by an LLM.
type ClaimExtractor interface {
	ExtractClaims(ctx context.Context, s *Sample) ([]string, error)
}

// ClaimExtractorFunc adapts a function to the ClaimExtractor interface.
type ClaimExtractorFunc func(ctx context.Context, s *Sample) ([]string, error)

// ExtractClaims calls f(ctx, s).
func (f ClaimExtractorFunc) ExtractClaims(ctx context.Context, s *Sample) ([]string, error) {
	return f(ctx, s)
}

// Claim is one atomic claim of the answer and its support, in claims mode.
type Claim struct {
	Text         string  `json:"text"`
	Groundedness Prob    `json:"groundedness"`
	Verdict      Verdict `json:"verdict"`
	// Judge names the judge whose estimate was used.
	Judge string `json:"judge,omitempty"`
	// Escalated is set when the claim went to the fallback.
	Escalated bool `json:"escalated,omitempty"`
	// Reason says why the support is unknown, or why the fallback did not
	// settle the claim, when it is or did not; Cause names it.
	Reason   string     `json:"reason,omitempty"`
	Cause    Cause      `json:"cause,omitempty"`
	Evidence []Evidence `json:"evidence,omitempty"`
}

// WithClaims turns on the advanced groundedness mode: x splits each answer
// into claims, the judge bound to Groundedness estimates each claim's support
// on its own (escalating an uncertain claim when an escalator is set), and
// groundedness is the weakest claim's. Result.Claims lists every claim. If x
// fails or finds no claim, groundedness is judged on the whole answer and the
// failure is reported in Result.Errors.
func WithClaims(x ClaimExtractor) Option {
	return func(g *Guard) error {
		if isNil(x) {
			return nilError("WithClaims", "claim extractor", x)
		}
		g.claims = x
		return nil
	}
}

// MaxClaims bounds the claims judged per answer in claims mode; an extractor
// that returns more is reported as failed and the whole answer is judged.
const MaxClaims = 64

// claimsMode replaces the groundedness estimate in t by the weakest
// claim's. It reports whether it did.
//
// Claims it escalates are recorded in info (nil when none was), which
// Evaluate merges into Result.Fallback so that the degrade rule applies to
// a claim the fallback could not settle.
func (g *Guard) claimsMode(ctx context.Context, s *Sample, t *table, res *Result) (claimed bool, info *FallbackInfo) {
	var b *binding
	for i := range g.bindings {
		if contains(g.bindings[i].decisions, Groundedness) {
			b = &g.bindings[i]
		}
	}
	if b == nil {
		return false, nil
	}
	name := describe(g.claims)
	fail := func(err error) (bool, *FallbackInfo) {
		res.Errors = append(res.Errors, *newJudgeError(name, []Decision{Groundedness}, CauseJudgeFailed, err))
		return false, nil
	}
	var claims []string
	_, err := g.call(ctx, &binding{judge: JudgeFunc(func(ctx context.Context, _ Request) ([]Estimate, error) {
		var err error
		claims, err = g.claims.ExtractClaims(ctx, s)
		return nil, err
	})}, Request{Sample: s})
	switch {
	case err != nil:
		return fail(fmt.Errorf("claim extraction: %w", err))
	case len(claims) == 0:
		return fail(errors.New("claim extraction found no claim"))
	case len(claims) > MaxClaims:
		return fail(fmt.Errorf("claim extraction returned %d claims, more than %d", len(claims), MaxClaims))
	}

	// Each claim is judged on its own, and an uncertain one escalated on
	// its own, in bounded batches: at most the guard's concurrency
	// (WithConcurrency) at a time when the judge is not inline, and the
	// escalations likewise. The claims are then read in order.
	runs := make([]claimRun, len(claims))
	g.each(len(claims), !b.inline, func(i int) {
		r := &runs[i]
		r.cs = *s
		r.cs.Answer = claims[i]
		e, err := g.claimEstimate(ctx, b, &r.cs)
		if err != nil {
			r.errs = append(r.errs, *newJudgeError(b.info.Name, []Decision{Groundedness}, CauseJudgeFailed, fmt.Errorf("claim %d: %w", i+1, err)))
			e = Abstain(Groundedness, "", "the judge failed on this claim")
			e.Cause = CauseJudgeFailed
		}
		r.e, r.v = e, Uncertain
		if !e.Abstained {
			r.v = g.policy.Verdict(Groundedness, e.P)
		}
	})
	if g.esc != nil {
		var up []int
		for i := range runs {
			if runs[i].v == Uncertain {
				up = append(up, i)
			}
		}
		if len(up) > 0 {
			info = &FallbackInfo{Judge: g.esc.name, Decisions: []Decision{Groundedness}, Rule: g.esc.rule}
			t0 := g.now()
			g.each(len(up), true, func(k int) {
				r := &runs[up[k]]
				var je *JudgeError
				r.fe, r.ok, r.why, r.cause, je = g.escalateClaim(ctx, &r.cs)
				if je != nil {
					r.errs = append(r.errs, *je)
				}
				r.escalated = true
			})
			info.LatencyMs = float64(g.now().Sub(t0)) / float64(time.Millisecond)
		}
	}

	res.Claims = make([]Claim, len(claims))
	agg := Estimate{Decision: Groundedness, Judge: name}
	fixed := Pass
	weakest, known := 2.0, 0
	for i := range runs {
		r := &runs[i]
		res.Errors = append(res.Errors, r.errs...)
		c := &res.Claims[i]
		c.Text = claims[i]
		e, v := r.e, r.v
		spent := e.Usage
		if r.escalated {
			info.Usage = info.Usage.Add(r.fe.Usage)
			spent = spent.Add(r.fe.Usage)
			c.Escalated = true
			why, cause := r.why, r.cause
			if r.ok {
				e = r.fe
				v = g.esc.policy.Verdict(Groundedness, e.P)
			}
			if v == Uncertain {
				if r.ok {
					why, cause = reasonFallbackUnsure, CauseFallbackUncertain
				}
				info.Unsettled++
				info.addCause(cause, why)
				if c.Reason == "" {
					c.Reason, c.Cause = why, cause
				}
			} else {
				info.Settled++
			}
		}
		c.Judge, c.Verdict, c.Evidence = e.Judge, v, e.Evidence
		if e.Abstained {
			c.Groundedness, c.Reason, c.Cause = Prob{Asked: true}, e.Reason, e.Cause
			if c.Cause == "" {
				c.Cause = CauseAbstained
			}
		} else {
			c.Groundedness = KnownProb(e.P)
			known++
			if e.P < weakest {
				weakest = e.P
			}
		}
		agg.Usage = agg.Usage.Add(spent)
		// The weakest verdict wins: fail < uncertain < pass.
		switch {
		case v == Fail:
			fixed = Fail
			agg.Evidence = append(agg.Evidence, e.Evidence...)
		case v == Uncertain && fixed == Pass:
			fixed = Uncertain
		}
	}
	if known == 0 {
		agg.Abstained, agg.Reason = true, "no claim's support could be estimated"
		// The claims' common cause (every claim's judge failed, or every
		// claim's escalation hit the deadline, …) is the decision's; mixed
		// causes leave it a plain abstention.
		for i := range res.Claims {
			c := res.Claims[i].Cause
			if i == 0 {
				agg.Cause = c
			} else if c != agg.Cause {
				agg.Cause = CauseAbstained
				break
			}
		}
	} else {
		agg.P = weakest
	}
	// The whole-answer groundedness estimate gives way to the claims'
	// aggregate, whose verdict is fixed by the claims.
	out := table{ests: make([]Estimate, 0, len(t.ests)+1), fixed: fixed}
	for i, e := range t.ests {
		if e.Decision != Groundedness {
			out.add(e, t.reader(i))
		} else {
			// Keep the whole-answer citations; the claims carry the rest.
			agg.Citations = e.Citations
		}
	}
	out.add(agg, readFixed)
	*t = out
	return true, info
}

// claimRun is one claim's judging and escalation in claims mode.
type claimRun struct {
	cs        Sample // the sample with the claim as its answer
	e         Estimate
	v         Verdict
	errs      []JudgeError // in the order they happened
	escalated bool
	fe        Estimate // the escalator's estimate, when ok
	ok        bool
	why       string
	cause     Cause
}

// claimEstimate asks the groundedness judge about one claim.
func (g *Guard) claimEstimate(ctx context.Context, b *binding, cs *Sample) (Estimate, error) {
	ds := []Decision{Groundedness}
	out, err := g.call(ctx, b, Request{Sample: cs, Decisions: ds})
	if err == nil {
		err = checkEstimates(out, ds, cs)
	}
	if err != nil {
		return Estimate{}, err
	}
	for _, e := range out {
		if e.Decision == Groundedness {
			if e.Judge == "" {
				e.Judge, e.JudgeVersion = b.info.Name, b.info.Version
			}
			return e, nil
		}
	}
	return Abstain(Groundedness, "", "no judge estimated it"), nil
}

// escalateClaim sends one uncertain claim to the escalator; ok is false when
// it gave no estimate (why and cause say why; a failure is also returned, to
// be reported).
func (g *Guard) escalateClaim(ctx context.Context, cs *Sample) (_ Estimate, ok bool, why string, cause Cause, failed *JudgeError) {
	ds := []Decision{Groundedness}
	out, err := g.callEscalator(ctx, Escalation{Request: Request{Sample: cs, Decisions: ds}})
	if err == nil {
		err = checkEstimates(out, ds, cs)
	}
	if err != nil {
		je := newJudgeError(g.esc.name, ds, escalatorCause(err), fmt.Errorf("claim: %w", err))
		return Estimate{}, false, je.Message, je.Cause, je
	}
	var u Usage
	why, cause = reasonNoEstimate, CauseFallbackAbstained
	for _, e := range out {
		u = u.Add(e.Usage)
		if e.Decision != Groundedness {
			continue
		}
		if e.Abstained {
			why, cause = e.Reason, e.Cause
			if cause == "" {
				cause = CauseFallbackAbstained
			}
			continue
		}
		if e.Judge == "" {
			e.Judge = g.esc.name
		}
		e.Usage = u
		return e, true, "", "", nil
	}
	return Estimate{Usage: u}, false, why, cause, nil
}
