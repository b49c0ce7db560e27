package guard

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"
)

// Guard evaluates samples with its judges, applies its policy and diagnoses
// the result. A Guard is immutable after New, but for its count of
// abandoned judge calls (see Abandoned). It is safe for concurrent use.
type Guard struct {
	bindings  []binding
	policy    Policy
	policySet bool // WithPolicy was given
	diagnoser Diagnoser
	limits    Limits
	now       func() time.Time
	esc       *escalation
	claims    ClaimExtractor
	abandon   abandonState // judge calls left running after ctx ended (abandon.go)
	parallel  int          // bound on concurrent slow judge calls per Evaluate (WithConcurrency)
	slow      int          // bindings whose judge is not Inline
	monitor   Monitor      // WithMonitor; nil: none
	promise   *Promise     // what monitor watches for this guard; nil without one
	draws     *Draws       // teacher draws (WithDraws); nil: none
	teach     teachStats   // what Teach did (draw.go)
	// judges holds Result.Judges as primary fills it, for a sample without
	// a reference ([0]) and with one ([1]): which judges are asked depends
	// on nothing else. Each result gets a clone, which copies the map's
	// one group instead of hashing every name again.
	judges [2]map[string]string
	// thresholds and live hold g.policy by decision, read for every
	// estimate: live[d] says that thresholds[d] can give a verdict (it is
	// set, valid and not undecided on both sides); a decision not live is
	// always uncertain, as Thresholds.Verdict says.
	thresholds [numDecisions + 1]Thresholds
	live       [numDecisions + 1]bool
}

type binding struct {
	judge     Judge
	info      JudgeInfo
	inline    bool
	features  string // the judge's FeaturesVersion, when it is a FeatureJudge
	decisions []Decision
	noRef     []Decision // decisions without Correctness
}

// Option configures a Guard.
type Option func(*Guard) error

// WithJudge routes the given decisions (all seven when none are given) to j.
// A later WithJudge takes over the decisions it names from earlier ones. A
// decision no judge answers is always uncertain. A judge that is Calibrated
// brings its policy for the decisions it answers, unless WithPolicy is
// given. A nil judge, or a nil pointer in a Judge (what a failed
// constructor returns beside its error), is refused.
func WithJudge(j Judge, ds ...Decision) Option {
	return func(g *Guard) error {
		if isNil(j) {
			return nilError("WithJudge", "judge", j)
		}
		if len(ds) == 0 {
			ds = Decisions
		}
		for _, d := range ds {
			if !d.Valid() {
				return fmt.Errorf("guard: WithJudge: invalid decision %d", uint8(d))
			}
		}
		// Take the decisions away from earlier bindings.
		for i := range g.bindings {
			b := &g.bindings[i]
			kept := b.decisions[:0:0]
			for _, d := range b.decisions {
				if !contains(ds, d) {
					kept = append(kept, d)
				}
			}
			b.decisions = kept
		}
		b := binding{judge: j, decisions: append([]Decision(nil), ds...)}
		if d, ok := j.(Describer); ok {
			b.info = d.Describe()
		}
		if b.info.Name == "" {
			b.info.Name = fmt.Sprintf("%T", j)
		}
		if in, ok := j.(Inline); ok {
			b.inline = in.Inline()
		}
		if fj, ok := j.(FeatureJudge); ok {
			b.features = fj.FeaturesVersion()
		}
		g.bindings = append(g.bindings, b)
		return nil
	}
}

// WithPolicy sets the thresholds and the pass rule. Without it each decision
// is read with the policy of the Calibrated judge that answers it (the
// embedded lexical judges bring their profile's), and a decision whose judge
// brings none is always uncertain. The zero Policy, given explicitly, makes
// every decision uncertain.
func WithPolicy(p Policy) Option {
	return func(g *Guard) error {
		if err := p.Validate(); err != nil {
			return err
		}
		g.policy, g.policySet = p, true
		return nil
	}
}

// WithDiagnoser replaces the built-in diagnosis rules.
func WithDiagnoser(d Diagnoser) Option {
	return func(g *Guard) error {
		if isNil(d) {
			return nilError("WithDiagnoser", "diagnoser", d)
		}
		g.diagnoser = d
		return nil
	}
}

// WithLimits bounds the samples Evaluate accepts (zero fields keep their
// defaults).
func WithLimits(l Limits) Option {
	return func(g *Guard) error { g.limits = l.withDefaults(); return nil }
}

// WithClock sets the clock used to measure latency (time.Now by default).
func WithClock(now func() time.Time) Option {
	return func(g *Guard) error {
		if now == nil {
			return errors.New("guard: WithClock: nil clock")
		}
		g.now = now
		return nil
	}
}

// New returns a Guard. With no options it has no judges and the zero policy:
// every sample comes out JUDGE_UNCERTAIN, except one with no contexts, which
// Diagnose reports as RETRIEVAL_MISS (nothing was retrieved). Without
// WithPolicy the policy comes from the Calibrated judges (see WithPolicy).
//
// A Guard starts nothing and owns nothing it was given: an escalator such
// as a cascade.Cascade is closed by whoever created it (ragtriage.New
// returns a guard whose Close does it).
func New(opts ...Option) (*Guard, error) {
	g := &Guard{diagnoser: DefaultDiagnoser, limits: DefaultLimits, now: time.Now, parallel: DefaultConcurrency}
	for _, o := range opts {
		if err := o(g); err != nil {
			return nil, err
		}
	}
	if g.draws != nil && g.esc == nil {
		return nil, errors.New("guard: WithDraws needs WithEscalator: the escalator is the teacher")
	}
	kept := g.bindings[:0]
	for _, b := range g.bindings {
		if len(b.decisions) > 0 {
			kept = append(kept, b)
		}
	}
	for i := range kept {
		kept[i].noRef = without(kept[i].decisions, Correctness)
		if !kept[i].inline {
			g.slow++
		}
	}
	g.bindings = kept
	for ref := range g.judges {
		for i := range kept {
			b := &kept[i]
			if ref == 0 && len(b.noRef) == 0 {
				continue
			}
			if g.judges[ref] == nil {
				g.judges[ref] = make(map[string]string, len(kept)+1)
			}
			g.judges[ref][b.info.Name] = b.info.Version
		}
	}
	if !g.policySet {
		if err := g.derivePolicy(); err != nil {
			return nil, err
		}
	}
	for _, d := range Decisions {
		t := g.policy.For(d)
		g.thresholds[d], g.live[d] = t, !t.IsZero() && t.valid() && !t.IsUndecided()
	}
	if g.monitor != nil {
		g.promise = newPromise(g.bindings, &g.policy)
		// Register the promise with the monitor now, not at the first
		// Evaluate: a PromiseMonitor's Sync and Reset then reach the
		// fleet's state of it before the guard serves.
		g.monitor.Broken(g.promise)
	}
	return g, nil
}

// Policy returns the guard's policy.
func (g *Guard) Policy() Policy { return g.policy }

// HasEscalator reports whether the guard has a fallback (WithEscalator) for
// the answers its judges leave uncertain.
func (g *Guard) HasEscalator() bool { return g.esc != nil }

// Evaluate judges one sample. It returns an error only when it returns no
// result: one wrapping ErrInvalidSample when the sample breaks the guard's
// limits. Otherwise the Result is complete, also when a judge failed. A
// judge fails when it returns an error, panics, returns a NaN or
// out-of-range probability, or does not stop when ctx is cancelled. Its
// decisions are then uncertain, and never yield a pass. Result.Errors lists
// the failure with its Cause (Result.Err joins them). Result.Abstentions
// says why each decision has no probability. So `if err != nil { return err
// }` loses no result.
//
// With an escalator (WithEscalator), a sample the judges leave
// JUDGE_UNCERTAIN has its uncertain decisions sent to the escalator, and in
// claims mode its uncertain claims. Its estimates replace the uncertain
// ones, read with the escalator's policy. The sample is then diagnosed
// again, Route is Fallback, and Result.Fallback records what happened.
// Without an escalator, such a sample has Route RouteReview, and its reason
// ends with "no fallback configured".
//
// Result.Action is decided once, at the end. It is Allow for PASS and Block
// for a confident failure. For JUDGE_UNCERTAIN it is the degrade rule's
// when an escalation left decisions unsettled, and Review otherwise. The
// degrade rule covers an unavailable fallback only. When a primary judge
// failed, ctx was done before the escalation, or ctx was cancelled while the
// escalator was asked, FailOpen gives Review, never Allow.
func (g *Guard) Evaluate(ctx context.Context, s Sample) (res Result, _ error) {
	// res is named so that it is filled in place, not copied out at the end.
	start := g.now()
	if err := s.Validate(g.limits); err != nil {
		return Result{}, err
	}
	defs := &withoutRef
	if s.Reference != nil {
		defs = &withRef
	}
	res.DecisionID, res.DecisionVersion, res.DecisionVariant = defs.ID, defs.Version, defs.Variant
	res.DiagnosisVersion = g.diagnoser.Version()
	t := table{ests: g.primary(ctx, &s, &res)}
	if g.monitor != nil {
		t.broken = g.monitor.Broken(g.promise)
	}
	var c *claimed
	if g.claims != nil {
		c = g.claimsMode(ctx, &s, &t, &res)
	}
	g.decide(&res, &s, &t)
	// A request cancelled before the fallback was asked, or a primary judge
	// that failed, is not an unavailable fallback: the degrade rule does not
	// turn it into Allow. (Only FailOpen reads it.)
	broken := g.esc != nil && g.esc.rule == FailOpen && (ended(ctx) != nil || g.primaryFailed(&res))
	if g.esc != nil && res.Diagnosis == JudgeUncertain && res.Route == Fallback {
		g.escalate(ctx, &res, &s, &t, c)
		// Nor is a request cancelled while the fallback was asked.
		broken = broken || (g.esc.rule == FailOpen && errors.Is(ctx.Err(), context.Canceled))
	}
	if g.esc == nil && res.Route == Fallback {
		// A Diagnoser of the caller's routes to the fallback that is not
		// there (the built-in one already said review).
		res.Route = RouteReview
		res.Reason += reasonNoFallback
	}
	g.finish(&res, &t)
	res.Action = action(&res, broken)
	if g.draws != nil {
		res.Draw = g.draw(&s, &res)
	}
	res.LatencyMs = float64(g.now().Sub(start)) / float64(time.Millisecond)
	return res, nil
}

// reasonNoFallback ends the reason of an undecided result when the guard
// has no escalator: it goes to review, not to a fallback.
const reasonNoFallback = "; no fallback configured"

// primary runs the guard's own judges. Inline judges run here, one after
// another; when more than one judge is not inline, those run concurrently
// (at most g.parallel at a time), overlapping the inline judges given before
// the first of them. Their answers are read in the order the judges were
// given.
func (g *Guard) primary(ctx context.Context, s *Sample, res *Result) []Estimate {
	var slow []judgeReply // by binding; nil when every judge runs here
	var wait func()
	if g.slow > 1 && g.parallel > 1 {
		slow, wait = g.startSlow(ctx, s)
	}
	// Every judge asked is named, whether it answers or fails.
	if s.Reference == nil {
		res.Judges = maps.Clone(g.judges[0])
	} else {
		res.Judges = maps.Clone(g.judges[1])
	}
	var ests []Estimate
	for i := range g.bindings {
		b := &g.bindings[i]
		ds := b.decisions
		if s.Reference == nil {
			ds = b.noRef
		}
		if len(ds) == 0 {
			continue
		}
		var out []Estimate
		var err error
		if slow != nil && !b.inline {
			if wait != nil {
				wait()
				wait = nil
			}
			out, err = slow[i].out, slow[i].err
		} else {
			out, err = g.call(ctx, b.judge, b.inline, Request{Sample: s, Decisions: slices.Clone(ds)})
		}
		if err != nil {
			res.Errors = append(res.Errors, *newJudgeError(b.info.Name, ds, judgeCause(err), err))
			continue
		}
		// The returned slice belongs to the guard (see Judge): the first
		// judge's is kept as it is, later ones are appended to it.
		n := len(ests)
		if ests == nil {
			ests = out
		} else {
			ests = append(ests, out...)
		}
		for j := n; j < len(ests); j++ {
			if e := &ests[j]; e.Judge == "" {
				e.Judge, e.JudgeVersion = b.info.Name, b.info.Version
			}
		}
		if b.features != "" {
			collectFeatures(res, b.features, ests[n:])
		}
	}
	if wait != nil {
		wait()
	}
	return ests
}

// startSlow starts the judges that are not inline, at most g.parallel at a
// time; their replies are indexed by binding once wait returns.
func (g *Guard) startSlow(ctx context.Context, s *Sample) (replies []judgeReply, wait func()) {
	idx := make([]int, 0, g.slow)
	for i := range g.bindings {
		b := &g.bindings[i]
		if !b.inline && (s.Reference != nil || len(b.noRef) > 0) {
			idx = append(idx, i)
		}
	}
	replies = make([]judgeReply, len(g.bindings))
	wait = g.fanOut(len(idx), func(k int) {
		b := &g.bindings[idx[k]]
		ds := b.decisions
		if s.Reference == nil {
			ds = b.noRef
		}
		r := &replies[idx[k]]
		r.out, r.err = g.call(ctx, b.judge, b.inline, Request{Sample: s, Decisions: slices.Clone(ds)})
	})
	return replies, wait
}

// primaryFailed reports whether one of the guard's own judges (or its claim
// extractor) failed on this sample, as opposed to the escalator.
func (g *Guard) primaryFailed(r *Result) bool {
	for i := range r.Errors {
		if g.esc == nil || r.Errors[i].Judge != g.esc.name {
			return true
		}
	}
	return false
}

// action maps a result to what the host should do with the answer. broken
// says that a primary judge failed or the request was cancelled. The
// degrade rule covers an unavailable fallback only, so FailOpen then gives
// Review, never Allow.
func action(r *Result, broken bool) Action {
	switch r.Diagnosis {
	case PassDiagnosis:
		return Allow
	case JudgeUncertain:
		if r.Fallback != nil && r.Fallback.Unsettled > 0 {
			if r.Fallback.Rule == FailOpen {
				if broken {
					return Review
				}
				return Allow
			}
			return Block
		}
		return Review
	}
	return Block
}

// call runs one judge, as Call does, and turns a cancelled context or an
// ignored cancellation into an error. An inline judge runs on the caller's
// goroutine. Another runs on a goroutine of its own when ctx can end, so
// that Evaluate can return when ctx ends even if the judge does not.
func (g *Guard) call(ctx context.Context, j Judge, inline bool, req Request) ([]Estimate, error) {
	return g.callJudge(ctx, j, inline, req, false)
}

// callJudge is call; perClaim allows one Groundedness estimate per claim
// (ClaimJudge.JudgeClaims).
func (g *Guard) callJudge(ctx context.Context, j Judge, inline bool, req Request, perClaim bool) ([]Estimate, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if inline || ctx.Done() == nil {
		out, err := safeJudge(ctx, j, req)
		return checked(ctx, &req, out, err, perClaim)
	}
	return g.callAsync(ctx, j, req, perClaim)
}

// callAsync runs j on a goroutine of its own and waits for it until ctx
// ends. A judge that ignores cancellation keeps its goroutine after ctx
// ends: those are counted, and bounded (abandon.go).
func (g *Guard) callAsync(ctx context.Context, j Judge, req Request, perClaim bool) ([]Estimate, error) {
	if err := g.abandon.admit(); err != nil {
		return nil, err
	}
	c := &judgeCall{reply: make(chan judgeReply, 1)}
	go func() {
		out, err := safeJudge(ctx, j, req)
		c.reply <- judgeReply{out, err}
		g.abandon.finish(c)
	}()
	select {
	case r := <-c.reply:
		asked := req // a copy: the goroutine captures req by value
		return checked(ctx, &asked, r.out, r.err, perClaim)
	case <-ctx.Done():
		g.abandon.leave(c)
		return nil, fmt.Errorf("judge did not return before cancellation: %w", ctx.Err())
	}
}

// checked refuses an answer given after ctx ended, then checks it. The
// refused answer is returned beside the error, so that what it spent
// counts. An answer of abstentions only is kept, with the causes the judge
// gave (CauseDeadline from a judge that stopped at the deadline): it
// decides nothing, so it cannot be a late pass.
func checked(ctx context.Context, req *Request, out []Estimate, err error, perClaim bool) ([]Estimate, error) {
	if err != nil {
		return out, err
	}
	if err := ended(ctx); err != nil {
		if !allAbstained(out) {
			return out, fmt.Errorf("judge returned after cancellation: %w", err)
		}
		// A late abstention without a cause of its own is counted as what
		// it is: the deadline's (or the cancellation's).
		for i := range out {
			if out[i].Cause == "" {
				out[i].Cause = judgeCause(err)
			}
		}
	}
	return out, checkAnswer(out, req, perClaim)
}

// judgeCause is the cause of a failure of one of the guard's own judges:
// CauseDeadline or CauseCancelled when the judge did not answer before ctx
// ended (or answered after), else CauseJudgeFailed.
func judgeCause(err error) Cause {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return CauseDeadline
	case errors.Is(err, context.Canceled):
		return CauseCancelled
	}
	return CauseJudgeFailed
}

// allAbstained reports whether out holds estimates, all of them abstained.
func allAbstained(out []Estimate) bool {
	for i := range out {
		if !out[i].Abstained {
			return false
		}
	}
	return len(out) > 0
}

// ended returns ctx's error, or context.DeadlineExceeded once its deadline
// has passed. A context's timer may fire a little after its deadline on a
// busy machine: an answer given in between is still too late.
func ended(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if dl, ok := ctx.Deadline(); ok && !time.Now().Before(dl) {
		return context.DeadlineExceeded
	}
	return nil
}

// missing is the abstention of a decision no estimate was kept for: its
// judge failed (the cause is the failure's), or no judge gave one.
func missing(r *Result, d Decision, contextID string) Abstention {
	for i := range r.Errors {
		if contains(r.Errors[i].Decisions, d) {
			return Abstention{Decision: d, ContextID: contextID, Reason: "judge " + r.Errors[i].Judge + " failed", Cause: r.Errors[i].Cause}
		}
	}
	return Abstention{Decision: d, ContextID: contextID, Reason: "no judge estimated it", Cause: CauseAbstained}
}

// abstention records an abstained estimate. One without a cause is a
// primary judge's (the escalator's were given CauseFallbackAbstained).
func abstention(e *Estimate) Abstention {
	c := e.Cause
	if c == "" {
		c = CauseAbstained
	}
	return Abstention{Decision: e.Decision, ContextID: e.ContextID, Judge: e.Judge, Reason: e.Reason, Cause: c}
}

func contains(ds []Decision, d Decision) bool {
	for _, x := range ds {
		if x == d {
			return true
		}
	}
	return false
}

func without(ds []Decision, d Decision) []Decision {
	out := make([]Decision, 0, len(ds))
	for _, x := range ds {
		if x != d {
			out = append(out, x)
		}
	}
	return out
}
