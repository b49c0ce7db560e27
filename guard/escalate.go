package guard

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// An Escalator settles the decisions the guard's own judges left uncertain.
// It is the fallback path. Package cascade implements it around a slower
// judge, with a circuit breaker, cache, deadline and budget.
//
// The guard calls Escalate only when the diagnosis is JUDGE_UNCERTAIN, and
// only for the uncertain decisions. In claims mode (WithClaims) it also
// asks about each uncertain claim on its own, with the claim as the answer.
// Escalate returns estimates as a Judge does, and the guard checks them as
// it checks a judge's (see Call). An estimate it cannot give is left out,
// or returned with Abstained set, a Reason for people and a Cause (empty
// reads as CauseFallbackAbstained). A returned error makes every escalated
// decision uncertain. It is reported like a judge failure, with the cause
// the error wraps (one of the ErrFallback… sentinels). Else its cause is
// the request's end, when the request ended first (see JudgeError.Cause),
// else CauseFallbackFailed.
//
// An Escalator that returns soon after its context ends may say so by
// implementing ContextHonourer.
type Escalator interface {
	Escalate(ctx context.Context, esc Escalation) ([]Estimate, error)
}

// EscalatorFunc adapts a function to the Escalator interface.
type EscalatorFunc func(ctx context.Context, esc Escalation) ([]Estimate, error)

// Escalate calls f(ctx, esc).
func (f EscalatorFunc) Escalate(ctx context.Context, esc Escalation) ([]Estimate, error) {
	return f(ctx, esc)
}

// Escalation is what an Escalator is asked.
type Escalation struct {
	// Request names the sample and the uncertain decisions. When
	// ChunkRelevance is listed, ContextIDs says which contexts.
	Request
	// ContextIDs lists the contexts whose relevance is uncertain.
	ContextIDs []string
	// Primary holds the guard's own (embedded judges') estimates of the
	// escalated decisions, one per decision (per listed context for chunk
	// relevance) the primary judges gave, abstained ones included; absent
	// ones are missing. An escalator may rank escalations by them (package
	// cascade's Limits.Share does); it must not change them.
	Primary []Estimate
	// PassRule is the guard's pass rule (Policy.PassRule): which of the
	// decisions a PASS needs confidently healthy.
	PassRule PassRule
	// Teacher says the escalation is a teacher draw (Guard.Teach), not an
	// uncertain answer: a uniform sample of its own, with its inclusion
	// probability in Result.Draw, and without Primary estimates. An
	// escalator that rations escalations by risk (package cascade's
	// Limits.Share) must not rank or refuse it, or the draw would no longer
	// be the sample it records; budgets, breakers and concurrency limits
	// still apply.
	Teacher bool
}

// Degrade is the rule applied when the fallback cannot settle an escalated
// decision (breaker open, deadline too near, budget spent, fallback failed).
// The diagnosis stays JUDGE_UNCERTAIN either way; the rule only sets
// Result.Action. The zero Degrade is FailClosed.
type Degrade uint8

const (
	// FailClosed treats an unsettled escalation as a failure: the answer is
	// blocked.
	FailClosed Degrade = iota
	// FailOpen lets the answer through, marked as not verified, when the
	// fallback could not settle it. It covers an unavailable fallback only:
	// when a primary judge failed, the request's context had ended
	// (cancelled or past its deadline) before the escalation, or the request
	// was cancelled during it, the action is Review, never Allow.
	FailOpen
)

func (d Degrade) String() string {
	if d == FailOpen {
		return "fail_open"
	}
	return "fail_closed"
}

// MarshalText writes "fail_open" or "fail_closed".
func (d Degrade) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads "fail_open" or "fail_closed".
func (d *Degrade) UnmarshalText(b []byte) error {
	switch string(b) {
	case "fail_open":
		*d = FailOpen
	case "fail_closed":
		*d = FailClosed
	default:
		return fmt.Errorf("guard: unknown degrade rule %q", b)
	}
	return nil
}

// FallbackInfo records an escalation in a Result. In claims mode each
// escalated claim counts as one in Settled and Unsettled, while Decisions
// lists Groundedness once.
type FallbackInfo struct {
	// Judge names the escalator (its Describe name, or its type).
	Judge string `json:"judge"`
	// Decisions lists what was escalated; Contexts the chunk IDs among them.
	Decisions []Decision `json:"decisions"`
	Contexts  []string   `json:"contexts,omitempty"`
	// Settled counts the escalated estimates the fallback decided (a pass or
	// a fail under the fallback policy); Unsettled the rest.
	Settled   int `json:"settled"`
	Unsettled int `json:"unsettled"`
	// Reason says why some decisions stayed unsettled (the first abstention
	// reason or the error); Cause names it.
	Reason string `json:"reason,omitempty"`
	Cause  Cause  `json:"cause,omitempty"`
	// Causes counts the Unsettled decisions by cause (keys are Cause names,
	// counts positive): the fallback's refusal, failure or abstention, or
	// CauseFallbackUncertain when it gave a probability between its
	// thresholds. The counts add up to Unsettled.
	Causes map[Cause]int `json:"causes,omitempty"`
	// Rule is the degrade rule that applied to the unsettled decisions.
	Rule      Degrade `json:"rule"`
	LatencyMs float64 `json:"latencyMs"`
	// Usage sums what the fallback spent on this result (zero for cache
	// hits). It is also included in Result.Usage.
	Usage Usage `json:"usage,omitzero"`
	// Inclusion is the probability this escalation had of being admitted
	// to the fallback, when the escalator admits a share of escalations
	// by a known design (package cascade's Limits.Share; see
	// docs/estimates.md): 1 for an answer in the riskiest part of the
	// share, the uniform draw's probability for the others, admitted or
	// not (a refused one has cause share). 0 (absent) when the escalator
	// states none: every escalation it was asked went to the fallback.
	Inclusion float64 `json:"inclusion,omitempty"`
}

// Err joins the causes in Causes that have a sentinel, each as a
// *CauseError. So errors.Is(f.Err(), guard.ErrFallbackBudget) reports
// whether the budget left a decision unsettled. Err returns nil when no
// such cause left a decision unsettled. The fallback may still have
// answered some decisions between its thresholds.
func (f *FallbackInfo) Err() error {
	var errs []error
	if f.Cause.Err() != nil {
		errs = append(errs, &CauseError{Cause: f.Cause, Reason: f.Reason})
	}
	for _, c := range Causes {
		if c != f.Cause && f.Causes[c] > 0 && c.Err() != nil {
			errs = append(errs, &CauseError{Cause: c})
		}
	}
	return errors.Join(errs...)
}

// addCause counts one unsettled decision of cause c, and makes (c, why)
// the Cause and Reason when there is none yet.
func (f *FallbackInfo) addCause(c Cause, why string) {
	if f.Causes == nil {
		f.Causes = make(map[Cause]int, 2)
	}
	f.Causes[c]++
	if f.Reason == "" {
		f.Reason, f.Cause = why, c
	}
}

// Action is what the host application should do with an answer.
type Action uint8

const (
	// Review: the guard could not decide; a human or a later check should.
	Review Action = iota
	// Allow: the answer passed (or a fail-open rule let it through).
	Allow
	// Block: the answer failed (or a fail-closed rule stopped it).
	Block
)

func (a Action) String() string {
	switch a {
	case Allow:
		return "allow"
	case Block:
		return "block"
	}
	return "review"
}

// MarshalText writes "allow", "block" or "review".
func (a Action) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// UnmarshalText reads "allow", "block" or "review".
func (a *Action) UnmarshalText(b []byte) error {
	switch string(b) {
	case "allow":
		*a = Allow
	case "block":
		*a = Block
	case "review":
		*a = Review
	default:
		return fmt.Errorf("guard: unknown action %q", b)
	}
	return nil
}

// WithEscalator sends the decisions the guard's judges leave uncertain to e.
// It reads e's estimates with policy p. rule decides Result.Action when e
// cannot settle them.
//
// p must be valid and set thresholds for every decision. A decision left
// unset would be asked of the fallback, and paid for, and its answer never
// read. UniformPolicy builds such a policy. A decision the fallback must not
// settle can be marked Undecided(). A nil escalator is refused, as is a nil
// pointer in an Escalator.
//
// The guard does not own e: whoever created it closes it, after the last
// Evaluate. ragtriage.New builds the embedded judges, the cascade and this
// option in one call, and closes the cascade with the guard.
func WithEscalator(e Escalator, p Policy, rule Degrade) Option {
	return func(g *Guard) error {
		if isNil(e) {
			return nilError("WithEscalator", "escalator", e)
		}
		if err := checkFallbackPolicy(p); err != nil {
			return err
		}
		if rule > FailOpen {
			return fmt.Errorf("guard: WithEscalator: invalid degrade rule %d", uint8(rule))
		}
		g.esc = &escalation{e: e, policy: p, rule: rule, name: describe(e)}
		if h, ok := e.(ContextHonourer); ok {
			g.esc.honours = h.HonoursContext()
		}
		return nil
	}
}

type escalation struct {
	e       Escalator
	policy  Policy
	rule    Degrade
	name    string
	honours bool // e is a ContextHonourer: it runs on the caller's goroutine
}

func describe(v any) string {
	if d, ok := v.(Describer); ok {
		if n := d.Describe().Name; n != "" {
			return n
		}
	}
	return fmt.Sprintf("%T", v)
}

// escalate sends the decisions res leaves uncertain to the escalator, and
// in claims mode (c not nil) the uncertain claims, each on its own. It
// merges the answers into t (read with the escalator's policy), decides
// res again and records the escalation in res.Fallback. It is the one
// place that sets Route to Fallback.
func (g *Guard) escalate(ctx context.Context, res *Result, s *Sample, t *table, c *claimed) {
	ds, ids := escalable(res, c != nil)
	up := c.uncertain()
	if len(ds) == 0 && len(up) == 0 {
		return
	}
	info := &FallbackInfo{Judge: g.esc.name, Decisions: ds, Contexts: ids, Rule: g.esc.rule}
	if len(up) > 0 {
		info.Decisions = append(ds[:len(ds):len(ds)], Groundedness)
	}
	t0 := g.now()
	g.askClaims(ctx, c, up)
	var out []Estimate
	var failed *JudgeError
	if len(ds) > 0 {
		out, failed = g.ask(ctx, Escalation{
			Request:    Request{Sample: s, Decisions: slices.Clone(ds)},
			ContextIDs: slices.Clone(ids),
			Primary:    primaryOf(t, ds, ids, res.Withheld),
			PassRule:   g.policy.PassRule,
		}, "")
	}
	info.LatencyMs = float64(g.now().Sub(t0)) / float64(time.Millisecond)
	info.Inclusion = inclusionOf(out)
	g.noteEscalator(res)
	// Everything spent counts, including fallback estimates that were not
	// used (an abstention next to the primary's estimate).
	var spent Usage
	for i := range t.ests {
		spent = spent.Add(t.ests[i].Usage)
	}
	var claims FallbackInfo // the claims' count, added after the others'
	if len(up) > 0 {
		g.setClaims(res, t, c, &claims)
	}
	g.mergeAnswer(res, t, out, failed, ds, ids, info)
	g.decide(res, s, t)
	info.countEscalated(res, ds, ids, failed, out)
	info.addClaims(&claims)
	t.spent, t.spentSet = spent.Add(info.Usage), true
	res.Fallback = info
	res.Route = Fallback
}

// primaryOf returns copies of the primary estimates in t of the escalated
// decisions ds (chunks ids), without their evidence and citations (an
// escalator ranks by the probabilities; the result keeps the originals).
func primaryOf(t *table, ds []Decision, ids []string, withheld []Withheld) []Estimate {
	var out []Estimate
	for i := range t.ests {
		e := &t.ests[i]
		if escalated(e, ds, ids) {
			c := *e
			c.Evidence, c.Citations = nil, nil
			if isWithheld(withheld, c.Decision, c.ContextID) {
				// The monitor found this side's P breaking its promise: it
				// must not rank the escalation either (an escalator reading
				// a confident P would take the answer for a safe one).
				c.Abstained, c.Cause, c.Reason = true, CausePromiseBroken, "withheld: the promise monitor found this side broken"
			}
			out = append(out, c)
		}
	}
	return out
}

// isWithheld reports whether decision d (context id for chunk relevance)
// is among the withheld verdicts.
func isWithheld(withheld []Withheld, d Decision, id string) bool {
	for _, w := range withheld {
		if w.Decision == d && (d != ChunkRelevance || w.ContextID == id) {
			return true
		}
	}
	return false
}

// inclusionOf returns the inclusion probability an escalator put on its
// answer (the first estimate that carries one), 0 when none did.
func inclusionOf(out []Estimate) float64 {
	for i := range out {
		if p := out[i].Inclusion; p > 0 && p <= 1 {
			return p
		}
	}
	return 0
}

// mergeAnswer records the escalator's answer to the decisions ds (and the
// chunks ids): its usage in info, and its estimates in t, or its failure
// in res.Errors and info.
func (g *Guard) mergeAnswer(res *Result, t *table, out []Estimate, failed *JudgeError, ds []Decision, ids []string, info *FallbackInfo) {
	for i := range out {
		info.Usage = info.Usage.Add(out[i].Usage)
	}
	switch {
	case failed != nil:
		res.Errors = append(res.Errors, *failed)
		info.Reason, info.Cause = failed.Message, failed.Cause
	case len(ds) > 0:
		*t = g.merge(t, out, ds, ids, info)
	}
}

// escalable lists what an escalation of res asks: the uncertain decisions,
// and the uncertain chunks while no chunk passes (only then does chunk
// relevance matter to the diagnosis). In claims mode Groundedness is left
// out: its claims are escalated instead.
func escalable(res *Result, claimed bool) (ds []Decision, ids []string) {
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
			continue
		}
		if v, ok := res.Verdict(d); ok && v == Uncertain {
			ds = append(ds, d)
		}
	}
	return ds, ids
}

// ask sends one escalation. It returns the escalator's checked answer, or
// the failure to report (its message prefixed with what, when not empty).
// ask touches nothing shared: claims mode calls it concurrently.
func (g *Guard) ask(ctx context.Context, esc Escalation, what string) ([]Estimate, *JudgeError) {
	j := JudgeFunc(func(ctx context.Context, _ Request) ([]Estimate, error) {
		return g.esc.e.Escalate(ctx, esc)
	})
	out, err := g.call(ctx, j, g.esc.honours, esc.Request)
	if err == nil {
		return out, nil
	}
	if what != "" {
		err = fmt.Errorf("%s: %w", what, err)
	}
	return out, newJudgeError(g.esc.name, esc.Decisions, escalatorCause(ctx, err), err)
}

// merge returns t with the escalator's answer out in place of the escalated
// estimates it answered. A chunk that was not escalated keeps the primary's
// estimate. An abstention keeps the primary's probability, so the verdict
// stays uncertain; info takes the first abstention's reason.
func (g *Guard) merge(t *table, out []Estimate, ds []Decision, ids []string, info *FallbackInfo) table {
	ests := t.ests
	merged := t.emptied(len(ests) + len(out))
	merged.via = make([]reader, 0, len(ests)+len(out))
	for i := range ests {
		e := &ests[i]
		if !escalated(e, ds, ids) || !answered(out, e.Decision, e.ContextID) {
			merged.add(*e, t.reader(i))
		}
	}
	for i := range out {
		e := out[i]
		if e.Decision == ChunkRelevance && !slices.Contains(ids, e.ContextID) {
			continue
		}
		if e.Abstained {
			if e.Cause == "" {
				e.Cause = CauseFallbackAbstained
			}
			if info.Reason == "" {
				info.Reason, info.Cause = e.Reason, e.Cause
			}
			if has(ests, e.Decision, e.ContextID) {
				continue
			}
		}
		if e.Judge == "" {
			e.Judge = g.esc.name
		}
		merged.add(e, readFallback)
	}
	return merged
}

// countEscalated counts what the escalation settled in the decided res, and
// why the rest stayed unsettled.
func (f *FallbackInfo) countEscalated(res *Result, ds []Decision, ids []string, failed *JudgeError, out []Estimate) {
	for _, d := range ds {
		if d == ChunkRelevance {
			for _, e := range res.Verdicts.Retrieval.ChunkRelevance {
				if slices.Contains(ids, e.Key) {
					f.count(e.Value, failed, out, d, e.Key)
				}
			}
			continue
		}
		v, _ := res.Verdict(d)
		f.count(v, failed, out, d, "")
	}
}

// addClaims adds the escalated claims' count c to f. The claims' cause
// and reason come after those of the other decisions.
func (f *FallbackInfo) addClaims(c *FallbackInfo) {
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

// count counts an escalated decision (d, id) whose verdict is now v:
// settled, or unsettled with its cause (see unsettled). It returns the
// cause and reason of an unsettled decision.
func (f *FallbackInfo) count(v Verdict, failed *JudgeError, out []Estimate, d Decision, id string) (Cause, string) {
	if v != Uncertain {
		f.Settled++
		return "", ""
	}
	f.Unsettled++
	c, why := unsettled(failed, out, d, id)
	f.addCause(c, why)
	return c, why
}

// unsettled says why the escalated decision (d, id) stayed uncertain: the
// escalator's failure, its abstention, its silence, or an estimate between
// its thresholds.
func unsettled(failed *JudgeError, out []Estimate, d Decision, id string) (Cause, string) {
	if failed != nil {
		return failed.Cause, failed.Message
	}
	for i := range out {
		e := &out[i]
		if e.Decision != d || e.ContextID != id {
			continue
		}
		if !e.Abstained {
			return CauseFallbackUncertain, reasonFallbackUnsure
		}
		if e.Cause == "" {
			return CauseFallbackAbstained, e.Reason
		}
		return e.Cause, e.Reason
	}
	return CauseFallbackAbstained, reasonNoEstimate
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
