package guard

import (
	"context"
	"errors"
	"fmt"
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

// WithClaims turns on the advanced groundedness mode. x splits each
// answer into claims. The judge bound to Groundedness estimates each
// claim's support on its own, and groundedness is the weakest claim's.
// Result.Claims lists every claim. When the diagnosis is JUDGE_UNCERTAIN,
// the uncertain claims are escalated with the other uncertain decisions.
// If x fails or finds no claim, groundedness is judged on the whole answer,
// and the failure is reported in Result.Errors.
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

// claimed is claims mode's state for one evaluation: the claims, how each
// was judged, and what the whole-answer groundedness estimate brings to
// their aggregate.
type claimed struct {
	claims []string
	runs   []claimRun
	whole  Estimate // the whole answer's citations and usage
	errAt  int      // where the claims' errors start in Result.Errors
}

// claimsMode judges the answer's claims and puts their aggregate in t in
// place of the groundedness estimate. It escalates nothing: escalate does,
// when the diagnosis routes to the fallback. It returns nil when no claim
// was judged.
func (g *Guard) claimsMode(ctx context.Context, s *Sample, t *table, res *Result) *claimed {
	b := g.groundednessJudge()
	if b == nil {
		return nil
	}
	claims, err := g.extractClaims(ctx, s)
	if err != nil {
		res.Errors = append(res.Errors, *newJudgeError(describe(g.claims), []Decision{Groundedness}, judgeCause(err), err))
		return nil
	}
	c := &claimed{claims: claims, runs: make([]claimRun, len(claims))}
	for i := range c.runs {
		c.runs[i].cs = *s
		c.runs[i].cs.Answer = claims[i]
	}
	if cj, ok := b.judge.(ClaimJudge); ok {
		g.judgeClaims(ctx, b, cj, s, claims, c.runs)
	} else {
		g.judgeEachClaim(ctx, b, c.runs)
	}
	t.withholdClaims(c.runs)
	c.whole = t.dropGroundedness()
	c.errAt = len(res.Errors)
	g.setClaims(res, t, c, nil)
	return c
}

// setClaims fills res.Claims and the claims' errors, and makes the claims'
// aggregate t's groundedness estimate. info counts the escalated claims; it
// is nil before the escalation.
func (g *Guard) setClaims(res *Result, t *table, c *claimed, info *FallbackInfo) {
	res.Errors = res.Errors[:c.errAt]
	agg, fixed := g.readClaims(res, c, info)
	agg.Citations = c.whole.Citations
	agg.Usage = agg.Usage.Add(c.whole.Usage)
	t.putClaims(agg, fixed)
}

// uncertain lists the claims the primary left uncertain (none when c is
// nil).
func (c *claimed) uncertain() []int {
	if c == nil {
		return nil
	}
	var up []int
	for i := range c.runs {
		if c.runs[i].v == Uncertain {
			up = append(up, i)
		}
	}
	return up
}

// groundednessJudge returns the binding that answers Groundedness, or nil.
func (g *Guard) groundednessJudge() *binding {
	var b *binding
	for i := range g.bindings {
		if contains(g.bindings[i].decisions, Groundedness) {
			b = &g.bindings[i]
		}
	}
	return b
}

// extractClaims splits the answer into claims: at least one, at most
// MaxClaims.
func (g *Guard) extractClaims(ctx context.Context, s *Sample) ([]string, error) {
	var claims []string
	_, err := g.call(ctx, JudgeFunc(func(ctx context.Context, _ Request) ([]Estimate, error) {
		var err error
		claims, err = g.claims.ExtractClaims(ctx, s)
		return nil, err
	}), false, Request{Sample: s})
	switch {
	case err != nil:
		return nil, fmt.Errorf("claim extraction: %w", err)
	case len(claims) == 0:
		return nil, errors.New("claim extraction found no claim")
	case len(claims) > MaxClaims:
		return nil, fmt.Errorf("claim extraction returned %d claims, more than %d", len(claims), MaxClaims)
	}
	return claims, nil
}

// claimRun is one claim's judging and escalation in claims mode.
type claimRun struct {
	cs        Sample // the sample with the claim as its answer
	e         Estimate
	v         Verdict
	errs      []JudgeError // in the order they happened
	escalated bool
	out       []Estimate  // the escalator's answer
	failed    *JudgeError // the escalator's failure
}

// judged records the primary estimate of a claim, or the judge's failure.
func (g *Guard) judged(r *claimRun, b *binding, e Estimate, err error) {
	if err != nil {
		c := judgeCause(err)
		r.errs = append(r.errs, *newJudgeError(b.info.Name, []Decision{Groundedness}, c, err))
		e = Abstain(Groundedness, "", "the judge failed on this claim")
		e.Cause = c
	}
	r.e, r.v = e, Uncertain
	if !e.Abstained {
		r.v = g.policyVerdict(Groundedness, e.P)
	}
}

// named fills in the judge's name on an estimate it gave without one.
func named(e Estimate, b *binding) Estimate {
	if e.Judge == "" {
		e.Judge, e.JudgeVersion = b.info.Name, b.info.Version
	}
	return e
}

// judgeClaims asks a ClaimJudge about every claim in one call, so that it
// analyses the contexts once. Its answer is checked like any judge's, and
// must hold one estimate per claim.
func (g *Guard) judgeClaims(ctx context.Context, b *binding, cj ClaimJudge, s *Sample, claims []string, runs []claimRun) {
	j := JudgeFunc(func(ctx context.Context, _ Request) ([]Estimate, error) {
		return cj.JudgeClaims(ctx, s, claims)
	})
	out, err := g.callJudge(ctx, j, b.inline, Request{Sample: s, Decisions: []Decision{Groundedness}}, true)
	if err == nil && len(out) != len(claims) {
		err = fmt.Errorf("%d estimates for %d claims", len(out), len(claims))
	}
	if err != nil {
		err = fmt.Errorf("claims: %w", err)
		g.judged(&runs[0], b, Estimate{}, err)
		for i := 1; i < len(runs); i++ {
			g.judged(&runs[i], b, Estimate{}, err)
			runs[i].errs = nil // one call, one failure
		}
		return
	}
	for i := range runs {
		g.judged(&runs[i], b, named(out[i], b), nil)
	}
}

// judgeEachClaim asks the judge about each claim on its own, at most the
// guard's concurrency at a time when the judge is not inline.
func (g *Guard) judgeEachClaim(ctx context.Context, b *binding, runs []claimRun) {
	ds := []Decision{Groundedness}
	g.each(len(runs), !b.inline, func(i int) {
		r := &runs[i]
		out, err := g.call(ctx, b.judge, b.inline, Request{Sample: &r.cs, Decisions: ds})
		if err != nil {
			g.judged(r, b, Estimate{}, fmt.Errorf("claim %d: %w", i+1, err))
			return
		}
		e := Abstain(Groundedness, "", "no judge estimated it")
		for _, x := range out {
			if x.Decision == Groundedness {
				e = named(x, b)
				break
			}
		}
		g.judged(r, b, e, nil)
	})
}

// askClaims sends the claims up lists to the escalator, each on its own,
// at most the guard's concurrency at a time.
func (g *Guard) askClaims(ctx context.Context, c *claimed, up []int) {
	g.each(len(up), true, func(k int) {
		r := &c.runs[up[k]]
		pe := r.e
		pe.Evidence, pe.Citations = nil, nil
		r.out, r.failed = g.ask(ctx, Escalation{Request: Request{Sample: &r.cs, Decisions: []Decision{Groundedness}}, Primary: []Estimate{pe}}, "claim")
		if r.failed != nil {
			// A refused answer (a late one, say) decides nothing, but what
			// it spent counts, as for the whole answer's escalation.
			r.out = spentOnly(r.out)
			r.errs = append(r.errs, *r.failed)
		}
		r.escalated = true
	})
}

// spentOnly keeps only what out spent: one abstained estimate with the sum
// of its usage, or nil when it spent nothing.
func spentOnly(out []Estimate) []Estimate {
	var u Usage
	for _, e := range out {
		u = u.Add(e.Usage)
	}
	if u == (Usage{}) {
		return nil
	}
	return []Estimate{{Decision: Groundedness, Abstained: true, Usage: u}}
}

// fallbackAnswer returns the escalator's estimate of a claim (ok false when
// it gave none), with the usage of the estimates up to it. Without an
// estimate, the usage is that of the whole answer.
func (g *Guard) fallbackAnswer(out []Estimate) (_ Estimate, ok bool) {
	var u Usage
	for _, e := range out {
		u = u.Add(e.Usage)
		if e.Decision != Groundedness || e.Abstained {
			continue
		}
		if e.Judge == "" {
			e.Judge = g.esc.name
		}
		e.Usage = u
		return e, true
	}
	return Estimate{Usage: u}, false
}

// readClaims fills res.Claims and returns the claims' aggregate
// groundedness estimate with its verdict: the weakest claim's.
func (g *Guard) readClaims(res *Result, c *claimed, info *FallbackInfo) (Estimate, Verdict) {
	claims, runs := c.claims, c.runs
	res.Claims = make([]Claim, len(claims))
	agg := Estimate{Decision: Groundedness, Judge: describe(g.claims)}
	fixed := Pass
	weakest, known := 2.0, 0
	for i := range runs {
		r := &runs[i]
		res.Errors = append(res.Errors, r.errs...)
		c := &res.Claims[i]
		c.Text = claims[i]
		e, v, spent := g.readClaim(c, r, info)
		c.Judge, c.Verdict, c.Evidence = e.Judge, v, e.Evidence
		if e.Abstained {
			c.Groundedness, c.Reason, c.Cause = Prob{Asked: true}, e.Reason, e.Cause
			if c.Cause == "" {
				c.Cause = CauseAbstained
			}
		} else {
			c.Groundedness = KnownProb(e.P)
			known++
			weakest = min(weakest, e.P)
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
	if known > 0 {
		agg.P = weakest
		return agg, fixed
	}
	agg.Abstained, agg.Reason = true, "no claim's support could be estimated"
	agg.Cause = commonCause(res.Claims)
	return agg, fixed
}

// readClaim returns the estimate that decides a claim, its verdict and what
// it cost. An escalated claim is counted in info and takes the fallback's
// estimate when there is one.
func (g *Guard) readClaim(c *Claim, r *claimRun, info *FallbackInfo) (Estimate, Verdict, Usage) {
	e, v := r.e, r.v
	if !r.escalated {
		return e, v, e.Usage
	}
	c.Escalated = true
	fe, ok := g.fallbackAnswer(r.out)
	spent := e.Usage.Add(fe.Usage)
	info.Usage = info.Usage.Add(fe.Usage)
	if ok {
		e, v = fe, g.esc.policy.Verdict(Groundedness, fe.P)
	}
	if cause, why := info.count(v, r.failed, r.out, Groundedness, ""); cause != "" {
		c.Reason, c.Cause = why, cause
	}
	return e, v, spent
}

// commonCause is the claims' common cause: every claim's judge failed,
// every claim's escalation hit the deadline, and so on. Mixed causes leave
// a plain abstention.
func commonCause(claims []Claim) Cause {
	var c Cause
	for i := range claims {
		if i == 0 {
			c = claims[i].Cause
		} else if claims[i].Cause != c {
			return CauseAbstained
		}
	}
	return c
}

// dropGroundedness removes the whole-answer groundedness estimate from t.
// It returns what the claims' aggregate keeps of it: its citations and its
// usage.
func (t *table) dropGroundedness() (whole Estimate) {
	out := t.emptied(len(t.ests) + 1)
	for i, e := range t.ests {
		if e.Decision != Groundedness {
			out.add(e, t.reader(i))
			continue
		}
		whole.Citations = e.Citations
		whole.Usage = whole.Usage.Add(e.Usage)
	}
	*t = out
	return whole
}

// putClaims makes agg, read as the verdict fixed, t's groundedness
// estimate. It replaces the claims' earlier aggregate, or is added last.
func (t *table) putClaims(agg Estimate, fixed Verdict) {
	t.fixed = fixed
	for i := range t.ests {
		if t.reader(i) == readFixed {
			t.ests[i] = agg
			return
		}
	}
	t.add(agg, readFixed)
}

// withholdClaims withholds the claims' verdicts on a groundedness side the
// monitor found broken: those claims are uncertain, and escalate.
func (t *table) withholdClaims(runs []claimRun) {
	if !t.broken.Has(Groundedness, Pass) && !t.broken.Has(Groundedness, Fail) {
		return
	}
	var w Sides
	for i := range runs {
		if r := &runs[i]; r.v != Uncertain && t.broken.Has(Groundedness, r.v) {
			w |= sideBit(Groundedness, r.v)
			r.v = Uncertain
		}
	}
	for _, x := range w.List() {
		t.withhold(Groundedness, "", x.Verdict)
	}
}
