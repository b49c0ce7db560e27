package guard

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Guard evaluates samples with its judges, applies its policy and diagnoses
// the result. A Guard is immutable after New (but for its count of
// abandoned judge calls, see Abandoned) and safe for concurrent use.
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
}

type binding struct {
	judge     Judge
	info      JudgeInfo
	inline    bool
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
	if !g.policySet {
		if err := g.derivePolicy(); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// Policy returns the guard's policy.
func (g *Guard) Policy() Policy { return g.policy }

// Evaluate judges one sample. It returns an error only when it returns no
// result: an error wrapping ErrInvalidSample when the sample breaks the
// guard's limits. Otherwise the error is nil and the Result complete, also
// when a judge failed — returned an error, panicked, returned a NaN or
// out-of-range probability, or did not stop when ctx was cancelled: its
// decisions are then uncertain, the failure is listed in Result.Errors (each
// with its Cause; Result.Err joins them), Result.Abstentions says why each
// of its decisions has no probability, and a failed judge never yields a
// pass. So `if err != nil { return err }` loses no result.
//
// With an escalator (WithEscalator), a sample the judges leave
// JUDGE_UNCERTAIN has its uncertain decisions sent to the escalator; its
// estimates replace the uncertain ones (read with the escalator's policy),
// the diagnosis is made again, Route is Fallback and Result.Fallback records
// what happened. Result.Action is Allow for PASS, Block for a confident
// failure, and for JUDGE_UNCERTAIN: the degrade rule when an escalation left
// decisions unsettled, Review otherwise. The degrade rule covers an
// unavailable fallback only: when a primary judge failed or ctx was
// done before the escalation, FailOpen gives Review, never Allow.
func (g *Guard) Evaluate(ctx context.Context, s Sample) (Result, error) {
	start := g.now()
	if err := s.Validate(g.limits); err != nil {
		return Result{}, err
	}
	defs := &withoutRef
	if s.Reference != nil {
		defs = &withRef
	}
	res := Result{
		DecisionID: defs.ID, DecisionVersion: defs.Version, DecisionVariant: defs.Variant,
		DiagnosisVersion: g.diagnoser.Version(),
	}
	t := table{ests: g.primary(ctx, &s, &res)}
	var (
		claimed bool
		claimFB *FallbackInfo
	)
	if g.claims != nil {
		claimed, claimFB = g.claimsMode(ctx, &s, &t, &res)
	}
	g.decide(&res, &s, &t)
	// A request cancelled before the fallback was asked, or a primary judge
	// that failed, is not an unavailable fallback: the degrade rule does not
	// turn it into Allow. (Only FailOpen reads it.)
	broken := g.esc != nil && g.esc.rule == FailOpen && (ctx.Err() != nil || g.primaryFailed(&res))
	if g.esc != nil && res.Diagnosis == JudgeUncertain && res.Route == Fallback {
		g.escalate(ctx, &res, &s, &t, claimed)
	}
	g.finish(&res, &t)
	if claimFB != nil {
		g.mergeClaimFallback(&res, claimFB)
	}
	res.Action = action(&res, broken)
	res.LatencyMs = float64(g.now().Sub(start)) / float64(time.Millisecond)
	return res, nil
}

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
		if res.Judges == nil {
			res.Judges = make(map[string]string, len(g.bindings)+1)
		}
		res.Judges[b.info.Name] = b.info.Version
		var out []Estimate
		var err error
		if slow != nil && !b.inline {
			if wait != nil {
				wait()
				wait = nil
			}
			out, err = slow[i].out, slow[i].err
		} else {
			out, err = g.call(ctx, b, Request{Sample: s, Decisions: slices.Clone(ds)})
		}
		if err == nil {
			err = checkEstimates(out, ds, s)
		}
		if err != nil {
			res.Errors = append(res.Errors, *newJudgeError(b.info.Name, ds, CauseJudgeFailed, err))
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
		r.out, r.err = g.call(ctx, b, Request{Sample: s, Decisions: slices.Clone(ds)})
	})
	return replies, wait
}

// escalate sends the uncertain decisions of res to the escalator, merges its
// estimates into t (read with the escalator's policy) and decides res again.
func (g *Guard) escalate(ctx context.Context, res *Result, s *Sample, t *table, claimed bool) {
	var ds []Decision
	var ids []string
	// Chunk relevance matters to the diagnosis only while no chunk passes.
	anyPass := false
	for _, e := range res.Verdicts.Retrieval.ChunkRelevance {
		anyPass = anyPass || e.Value == Pass
	}
	if !anyPass {
		for _, e := range res.Verdicts.Retrieval.ChunkRelevance {
			if e.Value == Uncertain {
				ids = append(ids, e.Key)
			}
		}
		if len(ids) > 0 {
			ds = append(ds, ChunkRelevance)
		}
	}
	for _, d := range Decisions[1:] {
		if d == Groundedness && claimed {
			continue // its claims were escalated on their own
		}
		if v, ok := res.Verdict(d); ok && v == Uncertain {
			ds = append(ds, d)
		}
	}
	if len(ds) == 0 {
		return
	}
	info := &FallbackInfo{Judge: g.esc.name, Decisions: ds, Contexts: ids, Rule: g.esc.rule}
	t0 := g.now()
	out, err := g.callEscalator(ctx, Escalation{
		Request:    Request{Sample: s, Decisions: slices.Clone(ds)},
		ContextIDs: slices.Clone(ids),
	})
	info.LatencyMs = float64(g.now().Sub(t0)) / float64(time.Millisecond)
	if err == nil {
		err = checkEstimates(out, ds, s)
	}
	g.noteEscalator(res)
	for i := range out {
		info.Usage = info.Usage.Add(out[i].Usage)
	}
	ests := t.ests
	var failed *JudgeError
	if err != nil {
		failed = newJudgeError(g.esc.name, ds, escalatorCause(err), err)
		res.Errors = append(res.Errors, *failed)
		info.Reason, info.Cause = failed.Message, failed.Cause
	} else {
		merged := table{ests: make([]Estimate, 0, len(ests)+len(out)), via: make([]reader, 0, len(ests)+len(out)), fixed: t.fixed}
		for i := range ests {
			e := &ests[i]
			if !escalated(e, ds, ids) || !answered(out, e.Decision, e.ContextID) {
				merged.add(*e, t.reader(i))
			}
		}
		for i := range out {
			e := out[i]
			if e.Decision == ChunkRelevance && !slices.Contains(ids, e.ContextID) {
				continue // a chunk that was not escalated keeps the primary's estimate
			}
			if e.Abstained {
				if e.Cause == "" {
					e.Cause = CauseFallbackAbstained
				}
				if info.Reason == "" {
					info.Reason, info.Cause = e.Reason, e.Cause
				}
				if has(ests, e.Decision, e.ContextID) {
					continue // keep the primary's probability; the verdict stays uncertain
				}
			}
			if e.Judge == "" {
				e.Judge = g.esc.name
			}
			merged.add(e, readFallback)
		}
		*t = merged
	}
	g.decide(res, s, t)
	// Count what the fallback settled, and why it did not.
	for _, d := range ds {
		if d == ChunkRelevance {
			for _, e := range res.Verdicts.Retrieval.ChunkRelevance {
				if slices.Contains(ids, e.Key) {
					info.count(e.Value, failed, out, d, e.Key)
				}
			}
			continue
		}
		v, _ := res.Verdict(d)
		info.count(v, failed, out, d, "")
	}
	// Everything spent counts, including fallback estimates that were not
	// used (an abstention next to the primary's estimate).
	var u Usage
	for i := range ests {
		u = u.Add(ests[i].Usage)
	}
	t.spent, t.spentSet = u.Add(info.Usage), true
	res.Fallback = info
	res.Route = Fallback
}

// mergeClaimFallback adds the claims mode's escalations to res.Fallback.
func (g *Guard) mergeClaimFallback(res *Result, c *FallbackInfo) {
	g.noteEscalator(res)
	res.Route = Fallback
	f := res.Fallback
	if f == nil {
		res.Fallback = c
		return
	}
	f.Decisions = append(f.Decisions, Groundedness)
	f.Settled += c.Settled
	f.Unsettled += c.Unsettled
	if f.Reason == "" {
		f.Reason, f.Cause = c.Reason, c.Cause
	}
	for k, n := range c.Causes {
		if f.Causes == nil {
			f.Causes = make(map[Cause]int, len(c.Causes))
		}
		f.Causes[k] += n
	}
	f.LatencyMs += c.LatencyMs
	f.Usage = f.Usage.Add(c.Usage)
}

// noteEscalator lists the escalator among the result's judges.
func (g *Guard) noteEscalator(res *Result) {
	if res.Judges == nil {
		res.Judges = make(map[string]string, 1)
	}
	if _, ok := res.Judges[g.esc.name]; !ok {
		res.Judges[g.esc.name] = ""
		if d, ok := g.esc.e.(Describer); ok {
			res.Judges[g.esc.name] = d.Describe().Version
		}
	}
}

// Reasons of the unsettled decisions whose cause carries no reason text.
const (
	reasonNoEstimate     = "the fallback gave no estimate"
	reasonFallbackUnsure = "the fallback's estimate is between its thresholds"
)

// count counts an escalated decision (d, id) whose verdict is now v: settled,
// or unsettled with its cause — the escalator's failure, its abstention, its
// silence, or an estimate between its thresholds.
func (f *FallbackInfo) count(v Verdict, failed *JudgeError, out []Estimate, d Decision, id string) {
	if v != Uncertain {
		f.Settled++
		return
	}
	f.Unsettled++
	if failed != nil {
		f.addCause(failed.Cause, failed.Message)
		return
	}
	for i := range out {
		e := &out[i]
		if e.Decision != d || e.ContextID != id {
			continue
		}
		if e.Abstained {
			c := e.Cause
			if c == "" {
				c = CauseFallbackAbstained
			}
			f.addCause(c, e.Reason)
		} else {
			f.addCause(CauseFallbackUncertain, reasonFallbackUnsure)
		}
		return
	}
	f.addCause(CauseFallbackAbstained, reasonNoEstimate)
}

// escalated reports whether e is among the escalated decisions.
func escalated(e *Estimate, ds []Decision, ids []string) bool {
	if !slices.Contains(ds, e.Decision) {
		return false
	}
	return e.Decision != ChunkRelevance || slices.Contains(ids, e.ContextID)
}

// answered reports whether out holds a non-abstaining estimate of (d, id).
func answered(out []Estimate, d Decision, id string) bool {
	for i := range out {
		if out[i].Decision == d && out[i].ContextID == id && !out[i].Abstained {
			return true
		}
	}
	return false
}

// has reports whether ests holds an estimate of (d, id).
func has(ests []Estimate, d Decision, id string) bool {
	for i := range ests {
		if ests[i].Decision == d && ests[i].ContextID == id {
			return true
		}
	}
	return false
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

// action maps a result to what the host should do with the answer.
// broken says that a primary judge failed or the request was cancelled: the
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

// callEscalator runs the escalator on its own goroutine, like a judge that
// is not inline.
func (g *Guard) callEscalator(ctx context.Context, esc Escalation) ([]Estimate, error) {
	return g.call(ctx, &binding{judge: JudgeFunc(func(ctx context.Context, _ Request) ([]Estimate, error) {
		return g.esc.e.Escalate(ctx, esc)
	})}, esc.Request)
}

// call runs one judge, turning a panic, a cancelled context or an ignored
// cancellation into an error.
func (g *Guard) call(ctx context.Context, b *binding, req Request) ([]Estimate, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if b.inline || ctx.Done() == nil {
		out, err := safeJudge(ctx, b.judge, req)
		if err == nil && ctx.Err() != nil {
			return nil, fmt.Errorf("judge returned after cancellation: %w", ctx.Err())
		}
		return out, err
	}
	// A judge that ignores cancellation keeps its goroutine after ctx ends:
	// those are counted, and bounded (abandon.go).
	if err := g.abandon.admit(); err != nil {
		return nil, err
	}
	c := &judgeCall{reply: make(chan judgeReply, 1)}
	go func() {
		out, err := safeJudge(ctx, b.judge, req)
		c.reply <- judgeReply{out, err}
		g.abandon.finish(c)
	}()
	select {
	case r := <-c.reply:
		if r.err == nil && ctx.Err() != nil {
			return nil, fmt.Errorf("judge returned after cancellation: %w", ctx.Err())
		}
		return r.out, r.err
	case <-ctx.Done():
		g.abandon.leave(c)
		return nil, fmt.Errorf("judge did not return before cancellation: %w", ctx.Err())
	}
}

func safeJudge(ctx context.Context, j Judge, req Request) (out []Estimate, err error) {
	defer func() {
		if v := recover(); v != nil {
			out, err = nil, &PanicError{Value: v}
		}
	}()
	return j.Judge(ctx, req)
}

// checkEstimates rejects a judge's whole answer when any estimate is
// malformed: a judge that returns garbage for one decision is not trusted for
// the others.
func checkEstimates(out []Estimate, asked []Decision, s *Sample) error {
	var ids map[string]struct{}
	if len(s.Contexts) > 32 {
		ids = make(map[string]struct{}, len(s.Contexts))
		for i := range s.Contexts {
			ids[s.Contexts[i].ID] = struct{}{}
		}
	}
	for i := range out {
		e := &out[i]
		if !contains(asked, e.Decision) {
			return fmt.Errorf("estimate %d is for %v, which was not asked", i, e.Decision)
		}
		if e.Decision == ChunkRelevance {
			known := false
			if ids != nil {
				_, known = ids[e.ContextID]
			} else {
				known = hasContext(s, e.ContextID)
			}
			if !known {
				return fmt.Errorf("chunk_relevance estimate for unknown context %q", e.ContextID)
			}
		} else if e.ContextID != "" {
			return fmt.Errorf("%v estimate names context %q", e.Decision, e.ContextID)
		}
		if why := e.check(); why != "" {
			return fmt.Errorf("%v estimate: %s", e.Decision, why)
		}
		for k := range e.Evidence {
			if !e.Evidence[k].Decision.Valid() {
				return fmt.Errorf("%v estimate: evidence %d names no valid decision", e.Decision, k)
			}
		}
	}
	return nil
}

func hasContext(s *Sample, id string) bool {
	for i := range s.Contexts {
		if s.Contexts[i].ID == id {
			return true
		}
	}
	return false
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
