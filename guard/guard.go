package guard

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Guard evaluates samples with its judges, applies its policy and diagnoses
// the result. A Guard is immutable after New and safe for concurrent use.
type Guard struct {
	bindings  []binding
	policy    Policy
	diagnoser Diagnoser
	limits    Limits
	now       func() time.Time
	esc       *escalation
	claims    ClaimExtractor
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
// decision no judge answers is always uncertain.
func WithJudge(j Judge, ds ...Decision) Option {
	return func(g *Guard) error {
		if j == nil {
			return errors.New("guard: WithJudge: nil judge")
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

// WithPolicy sets the thresholds. Without it every decision is uncertain.
func WithPolicy(p Policy) Option {
	return func(g *Guard) error {
		if err := p.Validate(); err != nil {
			return err
		}
		g.policy = p
		return nil
	}
}

// WithDiagnoser replaces the built-in diagnosis rules.
func WithDiagnoser(d Diagnoser) Option {
	return func(g *Guard) error {
		if d == nil {
			return errors.New("guard: WithDiagnoser: nil diagnoser")
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
// Diagnose reports as RETRIEVAL_MISS (nothing was retrieved).
func New(opts ...Option) (*Guard, error) {
	g := &Guard{diagnoser: DefaultDiagnoser, limits: DefaultLimits, now: time.Now}
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
	}
	g.bindings = kept
	return g, nil
}

// Policy returns the guard's policy.
func (g *Guard) Policy() Policy { return g.policy }

// Evaluate judges one sample. It returns an error wrapping ErrInvalidSample
// (and no result) when the sample breaks the guard's limits. Otherwise it
// always returns a complete Result; when a judge failed — returned an error,
// panicked, returned a NaN or out-of-range probability, or did not stop when
// ctx was cancelled — its decisions are uncertain, the failure is listed in
// Result.Errors, and Evaluate also returns those errors joined (each a
// *JudgeError). A failed judge never yields a pass.
func (g *Guard) Evaluate(ctx context.Context, s Sample) (Result, error) {
	start := g.now()
	if err := s.Validate(g.limits); err != nil {
		return Result{}, err
	}
	defs := &withoutRef
	if s.Reference != nil {
		defs = &withRef
	}
	var (
		ests []Estimate
		errs []error
		res  Result
	)
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
			res.Judges = make(map[string]string, len(g.bindings))
		}
		res.Judges[b.info.Name] = b.info.Version
		out, err := g.call(ctx, b, Request{Sample: &s, Decisions: ds, Definitions: defs})
		if err == nil {
			err = checkEstimates(out, ds, &s)
		}
		if err != nil {
			je := newJudgeError(b.info.Name, ds, err)
			errs = append(errs, je)
			res.Errors = append(res.Errors, *je)
			continue
		}
		for j := range out {
			e := &out[j]
			if e.Judge == "" {
				e.Judge, e.JudgeVersion = b.info.Name, b.info.Version
			}
		}
		if ests == nil {
			ests = out
		} else {
			ests = append(ests, out...)
		}
	}
	g.assemble(&res, &s, defs, ests)
	res.LatencyMs = float64(g.now().Sub(start)) / float64(time.Millisecond)
	return res, errors.Join(errs...)
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
	type reply struct {
		out []Estimate
		err error
	}
	ch := make(chan reply, 1)
	go func() {
		out, err := safeJudge(ctx, b.judge, req)
		ch <- reply{out, err}
	}()
	select {
	case r := <-ch:
		if r.err == nil && ctx.Err() != nil {
			return nil, fmt.Errorf("judge returned after cancellation: %w", ctx.Err())
		}
		return r.out, r.err
	case <-ctx.Done():
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
	for i := range out {
		e := &out[i]
		if !contains(asked, e.Decision) {
			return fmt.Errorf("estimate %d is for %v, which was not asked", i, e.Decision)
		}
		if e.Decision == ChunkRelevance {
			if !hasContext(s, e.ContextID) {
				return fmt.Errorf("chunk_relevance estimate for unknown context %q", e.ContextID)
			}
		} else if e.ContextID != "" {
			return fmt.Errorf("%v estimate names context %q", e.Decision, e.ContextID)
		}
		if why := e.check(); why != "" {
			return fmt.Errorf("%v estimate: %s", e.Decision, why)
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

// assemble fills r from the estimates: probabilities, verdicts, evidence,
// diagnosis.
func (g *Guard) assemble(r *Result, s *Sample, defs *DefinitionSet, ests []Estimate) {
	r.DecisionID, r.DecisionVersion, r.DecisionVariant = defs.ID, defs.Version, defs.Variant
	r.DiagnosisVersion = g.diagnoser.Version()
	r.Estimates = ests

	var single [numDecisions + 1]*Estimate
	for i := range ests {
		e := &ests[i]
		if e.Decision != ChunkRelevance && single[e.Decision] == nil {
			single[e.Decision] = e
		}
	}
	prob := func(d Decision) (Prob, Verdict) {
		e := single[d]
		if e == nil {
			r.Abstentions = append(r.Abstentions, Abstention{Decision: d, Reason: "no judge estimated it"})
			return Prob{Asked: true}, Uncertain
		}
		if e.Abstained {
			r.Abstentions = append(r.Abstentions, Abstention{Decision: d, Judge: e.Judge, Reason: e.Reason})
			return Prob{Asked: true}, Uncertain
		}
		return KnownProb(e.P), g.policy.For(d).Verdict(e.P)
	}

	// Chunk relevance, in context order.
	if n := len(s.Contexts); n > 0 {
		r.Retrieval.ChunkRelevance = make(Keyed[Prob], n)
		r.Verdicts.Retrieval.ChunkRelevance = make(Keyed[Verdict], n)
		th := g.policy.For(ChunkRelevance)
		cursor := 0
		for i := range s.Contexts {
			id := s.Contexts[i].ID
			r.Retrieval.ChunkRelevance[i] = Entry[Prob]{Key: id, Value: Prob{Asked: true}}
			r.Verdicts.Retrieval.ChunkRelevance[i] = Entry[Verdict]{Key: id}
			var e *Estimate
			// Judges usually return chunks in context order: start the
			// search after the previous match.
			for k := range ests {
				j := (cursor + k) % len(ests)
				if ests[j].Decision == ChunkRelevance && ests[j].ContextID == id {
					e, cursor = &ests[j], j+1
					break
				}
			}
			switch {
			case e == nil:
				r.Abstentions = append(r.Abstentions, Abstention{Decision: ChunkRelevance, ContextID: id, Reason: "no judge estimated it"})
			case e.Abstained:
				r.Abstentions = append(r.Abstentions, Abstention{Decision: ChunkRelevance, ContextID: id, Judge: e.Judge, Reason: e.Reason})
			default:
				r.Retrieval.ChunkRelevance[i].Value = KnownProb(e.P)
				r.Verdicts.Retrieval.ChunkRelevance[i].Value = th.Verdict(e.P)
			}
		}
	} else {
		r.Retrieval.ChunkRelevance = Keyed[Prob]{}
		r.Verdicts.Retrieval.ChunkRelevance = Keyed[Verdict]{}
	}
	r.Retrieval.Sufficiency, r.Verdicts.Retrieval.Sufficiency = prob(ContextSufficiency)
	r.Retrieval.Conflict, r.Verdicts.Retrieval.Conflict = prob(ContextConflict)
	r.Generation.Relevance, r.Verdicts.Generation.Relevance = prob(AnswerRelevance)
	r.Generation.Groundedness, r.Verdicts.Generation.Groundedness = prob(Groundedness)
	r.Generation.Contradiction, r.Verdicts.Generation.Contradiction = prob(Contradiction)
	if s.Reference != nil {
		p, v := prob(Correctness)
		r.Generation.Correctness = p
		r.Verdicts.Generation.Correctness = &v
	}

	n := 0
	for i := range ests {
		n += len(ests[i].Evidence)
	}
	r.Evidence = make([]Evidence, 0, n)
	for i := range ests {
		e := &ests[i]
		r.Evidence = append(r.Evidence, e.Evidence...)
		if len(e.Citations) > 0 && r.Citations == nil {
			r.Citations = e.Citations
		}
		r.Usage = r.Usage.Add(e.Usage)
	}
	o := g.diagnoser.Diagnose(r)
	r.Diagnosis, r.Confidence, r.Route, r.Reason = o.Diagnosis, o.Confidence, o.Route, o.Reason
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
