package lexical

import (
	"context"
	"errors"
	"math"
	"strconv"

	"github.com/ragtriage/ragtriage/calibrate"
	"github.com/ragtriage/ragtriage/guard"
)

// Version is the version of the judges' code (features and evidence). The
// profile has a version of its own; both are recorded with every result.
const Version = "1.0.0"

// Name is the judges' name in results.
const Name = "ragtriage/lexical"

// Judge is the embedded default judge: it answers all seven decisions from
// deterministic lexical signals, turned into probabilities by the logistic
// models of its profile. It does no I/O and loads no model. A Judge is
// immutable and safe for concurrent use.
type Judge struct {
	prof   *Profile
	vocab  *vocabulary
	models [len(decisionOrder) + 1]*calibrate.Logistic
	gates  [len(decisionOrder) + 1]gate
	limits Limits
	// noFeatures leaves the feature vectors off the estimates
	// (WithoutFeatures).
	noFeatures bool
	// cache keeps the analyses of texts read more than once
	// (WithTextCache); nil: off.
	cache *textCache
}

// gate holds a decision's SoftFloor and SoftCeiling.
type gate struct{ floor, ceiling float64 }

var decisionOrder = [...]guard.Decision{guard.ChunkRelevance, guard.ContextSufficiency, guard.ContextConflict,
	guard.AnswerRelevance, guard.Groundedness, guard.Contradiction, guard.Correctness}

// New returns a judge calibrated by p, or by the embedded DefaultProfile when
// p is nil, with the options applied (WithLimits). A decision the profile
// has no model for is answered with an abstention.
func New(p *Profile, opts ...Option) (*Judge, error) {
	if p == nil {
		p = DefaultProfile()
	} else if err := p.Validate(); err != nil {
		return nil, err
	}
	loadLexicon()
	j := &Judge{prof: p, vocab: defaultVocab, limits: DefaultLimits, cache: newTextCache(DefaultTextCache)}
	for _, o := range opts {
		o(j)
	}
	for _, d := range decisionOrder {
		if m, ok := p.Decisions[d.String()]; ok {
			j.models[d] = &m.Model
			j.gates[d] = gate{m.SoftFloor, m.SoftCeiling}
		}
	}
	return j, nil
}

// NewGuard returns a guard with the embedded judges answering every decision
// under the shipped profile (DefaultProfile): its models, its thresholds and
// its pass rule. Options are applied after those defaults:
//
//   - WithProfile(p) or WithProfileFile(path) swaps in another profile (one
//     written by `ragtriage calibrate`), with its thresholds and pass rule;
//   - guard.WithJudge(j) with a judge from New(p) does the same: a judge
//     brings its profile's policy for the decisions it answers (see
//     guard.Calibrated);
//   - guard.WithPolicy(p) overrides the thresholds and pass rule;
//   - guard.WithEscalator adds a fallback (ragtriage.New builds the whole
//     production shape, cascade included, in one call).
func NewGuard(opts ...guard.Option) (*guard.Guard, error) {
	j, err := New(nil)
	if err != nil {
		return nil, err
	}
	return guard.New(append([]guard.Option{guard.WithJudge(j)}, opts...)...)
}

// WithProfile returns a guard option that binds the embedded judges,
// calibrated by p and configured by opts (see New), to every decision; they
// bring p's thresholds and pass rule with them (unless guard.WithPolicy is
// also given). A nil p is the shipped DefaultProfile. A profile that does
// not fit these judges (another features version, other feature names, an
// invalid policy) is refused with the reason.
//
//	p, err := lexical.LoadProfile("profile.json") // from `ragtriage calibrate`
//	…
//	g, err := lexical.NewGuard(lexical.WithProfile(p))
func WithProfile(p *Profile, opts ...Option) guard.Option {
	return func(g *guard.Guard) error {
		j, err := New(p, opts...)
		if err != nil {
			return err
		}
		return guard.WithJudge(j)(g)
	}
}

// WithProfileFile is WithProfile with the profile read from a file by
// LoadProfile: lexical.NewGuard(lexical.WithProfileFile("profile.json")).
func WithProfileFile(path string) guard.Option {
	return func(g *guard.Guard) error {
		p, err := LoadProfile(path)
		if err != nil {
			return err
		}
		return WithProfile(p)(g)
	}
}

// Profile returns the judge's profile.
func (j *Judge) Profile() *Profile { return j.prof }

// Policy returns the thresholds and pass rule of the judge's profile. It
// makes the judge guard.Calibrated: a guard built without guard.WithPolicy
// reads the judge's decisions with this policy.
func (j *Judge) Policy() guard.Policy { return j.prof.Policy }

// Describe names the judge; the version joins the code and profile versions.
func (j *Judge) Describe() guard.JudgeInfo {
	return guard.JudgeInfo{Name: Name, Version: Version + "+" + j.prof.Version}
}

// Inline reports that the judge does no I/O: the guard runs it on the
// caller's goroutine.
func (j *Judge) Inline() bool { return true }

// Features are the raw, uncalibrated features of one sample, one vector per
// decision in the order of FeatureNames. They are what profiles are fitted
// on.
type Features struct {
	ChunkRelevance     [][]float64 // one vector per context
	ContextSufficiency []float64
	ContextConflict    []float64
	AnswerRelevance    []float64
	Groundedness       []float64
	Contradiction      []float64
	Correctness        []float64 // nil without a reference
}

// Features computes the raw features of s. It allocates fresh slices; the
// judge itself does not.
func (j *Judge) Features(s *guard.Sample) Features {
	a := analysisPool.Get().(*analysis)
	defer analysisPool.Put(a)
	var f featureSet
	a.m.unlimited()
	loadSample(a, s, j.vocab)
	extract(a, j.vocab, &f)
	out := Features{
		ContextSufficiency: append([]float64(nil), f.suff...),
		ContextConflict:    append([]float64(nil), f.conflict...),
		AnswerRelevance:    append([]float64(nil), f.relev...),
		Groundedness:       append([]float64(nil), f.ground[:]...),
		Contradiction:      append([]float64(nil), f.contra...),
	}
	if a.hasRef {
		out.Correctness = append([]float64(nil), f.correct...)
	}
	for _, c := range f.chunks {
		out.ChunkRelevance = append(out.ChunkRelevance, append([]float64(nil), c...))
	}
	return out
}

func loadSample(a *analysis, s *guard.Sample, v *vocabulary) {
	loadTexts(a, s, v, s.Answer, s.Reference)
}

// loadTexts analyzes the question and contexts of s with the given answer
// and reference.
func loadTexts(a *analysis, s *guard.Sample, v *vocabulary, answer string, ref *string) {
	a.tz.vocab = v
	texts := a.ctxTexts[:0]
	for i := range s.Contexts {
		texts = append(texts, s.Contexts[i].Text)
	}
	a.ctxTexts = texts
	a.load(s.Question, answer, ref, texts)
}

// Judge estimates the requested decisions. It returns ctx's error when ctx
// is done before it starts. Once started it looks at ctx every few tens of
// microseconds of work: when ctx ends first, every requested decision
// abstains with the cause guard.CauseDeadline (guard.CauseCancelled when
// ctx was cancelled before its deadline). A sample beyond the judge's
// Limits makes every requested decision abstain with the cause
// guard.CauseInputTooLarge. Neither is ever a pass.
func (j *Judge) Judge(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s := req.Sample
	if why := j.limits.tooLarge(s); why != "" {
		return abstainAll(req, guard.CauseInputTooLarge, why), nil
	}
	a := analysisPool.Get().(*analysis)
	defer putAnalysis(a)
	a.cache = j.cache
	a.m.start(ctx, j.limits.MaxWork)
	loadSample(a, s, j.vocab)
	f := &a.feat
	prepare(a, f)
	f.need(a, j.vocab, partsOf(req.Decisions))
	if a.m.check(); !a.m.ok() {
		return abstainAll(req, a.m.stop, a.m.reason()), nil
	}
	n := len(req.Decisions) - 1 + len(s.Contexts)
	out := make([]guard.Estimate, 0, max(n, 1))
	// Estimates are large: each is written in its place in out, not
	// returned and copied there.
	for _, d := range req.Decisions {
		if d == guard.ChunkRelevance {
			k := len(out)
			out = append(out, make([]guard.Estimate, len(s.Contexts))...)
			j.chunksTo(out[k:], a, f, s)
			continue
		}
		out = append(out, guard.Estimate{})
		j.estimateTo(&out[len(out)-1], d, a, f, s)
	}
	if !j.noFeatures {
		attachFeatures(out, a, f)
	}
	return out, nil
}

// FeaturesVersion names the feature definitions the judge's estimates
// carry (Estimate.Features): FeaturesVersion, or "" when they carry none
// (WithoutFeatures). It makes the judge a guard.FeatureJudge, so that
// results carry the vectors (Result.Features).
func (j *Judge) FeaturesVersion() string {
	if j.noFeatures {
		return ""
	}
	return FeaturesVersion
}

// vectorOf is the raw feature vector an estimate of d was computed from
// (of context ci for ChunkRelevance), as Features returns it; nil when f
// does not hold it (correctness without a reference).
func vectorOf(a *analysis, f *featureSet, d guard.Decision, ci int) []float64 {
	switch d {
	case guard.ChunkRelevance:
		if ci < len(f.chunks) {
			return f.chunks[ci]
		}
	case guard.ContextSufficiency:
		return f.suff
	case guard.ContextConflict:
		return f.conflict
	case guard.AnswerRelevance:
		return f.relev
	case guard.Groundedness:
		return f.ground[:]
	case guard.Contradiction:
		return f.contra
	case guard.Correctness:
		if a.hasRef {
			return f.correct
		}
	}
	return nil
}

// attachFeatures puts on each estimate of out (in the order Judge built
// them: chunks in context order) a copy of its raw feature vector, all of
// them in one allocation. An estimate the sample settled without a model
// (nothing retrieved, one context) or that abstained for want of a question
// carries its vector too: Features gives it, and profiles are fitted on it.
func attachFeatures(out []guard.Estimate, a *analysis, f *featureSet) {
	n, ci := 0, 0
	for i := range out {
		d := out[i].Decision
		n += len(vectorOf(a, f, d, ci))
		if d == guard.ChunkRelevance {
			ci++
		}
	}
	if n == 0 {
		return
	}
	buf := make([]float64, 0, n)
	ci = 0
	for i := range out {
		d := out[i].Decision
		x := vectorOf(a, f, d, ci)
		if d == guard.ChunkRelevance {
			ci++
		}
		if len(x) == 0 {
			continue
		}
		k := len(buf)
		buf = append(buf, x...)
		out[i].Features = buf[k:len(buf):len(buf)]
	}
}

// JudgeClaims estimates the groundedness of each claim against the
// contexts of s, one estimate per claim, in order. The estimate for
// claims[i] is the Groundedness estimate Judge gives for a copy of s with
// Answer claims[i]. The question and the contexts are analyzed once for all
// claims. It returns ctx's error when ctx is done before it starts; when ctx
// ends while it works, or the sample with its claims is beyond the judge's
// Limits, every claim abstains with the cause, as in Judge. It makes the
// judge a guard.ClaimJudge.
func (j *Judge) JudgeClaims(ctx context.Context, s *guard.Sample, claims []string) ([]guard.Estimate, error) {
	if s == nil {
		return nil, errors.New("lexical: JudgeClaims: nil sample")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c := *s
	c.Answer, c.Reference = "", nil
	n := sampleBytes(&c)
	for _, cl := range claims {
		n += len(cl)
	}
	if why := j.limits.over(n); why != "" {
		return abstainClaims(claims, guard.CauseInputTooLarge, why), nil
	}
	a := analysisPool.Get().(*analysis)
	defer putAnalysis(a)
	a.cache = j.cache
	a.m.start(ctx, j.limits.MaxWork)
	// Groundedness reads no reference: it is left out of the analysis.
	loadTexts(a, s, j.vocab, "", nil)
	a.manyAns = len(claims) > 1 // the contexts' pair table pays for itself
	f := &a.feat
	f.reset()
	prepareQuestion(a, f)
	c = *s
	out := make([]guard.Estimate, 0, len(claims))
	var feats []float64 // the claims' feature vectors, as Judge attaches them
	if !j.noFeatures {
		feats = make([]float64, 0, nG*len(claims))
	}
	for _, claim := range claims {
		if a.m.check(); !a.m.ok() {
			return abstainClaims(claims, a.m.stop, a.m.reason()), nil
		}
		c.Answer = claim
		a.loadAnswer(claim)
		f.reset()
		prepareAnswer(a, f)
		f.need(a, j.vocab, partGround)
		e := j.estimate(guard.Groundedness, a, f, &c)
		if !j.noFeatures {
			k := len(feats)
			feats = append(feats, f.ground[:]...)
			e.Features = feats[k:len(feats):len(feats)]
		}
		out = append(out, e)
	}
	if a.m.check(); !a.m.ok() {
		return abstainClaims(claims, a.m.stop, a.m.reason()), nil
	}
	return out, nil
}

// abstainClaims is JudgeClaims' answer when the judge stops: every claim
// abstains with cause c.
func abstainClaims(claims []string, c guard.Cause, why string) []guard.Estimate {
	out := make([]guard.Estimate, len(claims))
	for i := range out {
		out[i] = abstained(guard.Groundedness, "", c, why)
	}
	return out
}

func (j *Judge) predict(d guard.Decision, x []float64) (float64, bool) {
	m := j.models[d]
	if m == nil {
		return 0, false
	}
	p := m.Predict(x)
	if math.IsNaN(p) {
		return 0, false
	}
	if g := &j.gates[d]; (g.floor > 0 || g.ceiling > 0) && !HardEvidence(d, x) {
		if p < g.floor {
			p = g.floor
		}
		if g.ceiling > 0 && p > g.ceiling {
			p = g.ceiling
		}
	}
	return p, true
}

// HardEvidence reports whether the feature vector x of decision d holds any
// of the decision's hard features (see Feature.Hard): the evidence a
// confident negative needs.
func HardEvidence(d guard.Decision, x []float64) bool {
	for i, f := range decisionFeatures(d) {
		if f.Hard && i < len(x) && x[i] != 0 {
			return true
		}
	}
	return false
}

func (j *Judge) estimate(d guard.Decision, a *analysis, f *featureSet, s *guard.Sample) (e guard.Estimate) {
	j.estimateTo(&e, d, a, f, s)
	return e
}

// estimateTo is estimate, written to *e, which is the zero Estimate.
func (j *Judge) estimateTo(e *guard.Estimate, d guard.Decision, a *analysis, f *featureSet, s *guard.Sample) {
	x, ok := modelInput(d, a, f, s, e)
	if !ok {
		return // *e is settled
	}
	p, ok := j.predict(d, x)
	if !ok {
		*e = guard.Abstain(d, "", "the profile has no "+d.String()+" model")
		return
	}
	e.Decision, e.P = d, p
	if d == guard.Groundedness {
		e.Citations = citations(a, f, s)
	}
	e.Evidence = evidence(d, p, a, f, s)
	if f.refusal && (d == guard.Groundedness || d == guard.AnswerRelevance) {
		e.Evidence = append(e.Evidence, guard.Evidence{Decision: d, Kind: guard.EvidenceRefusal, Detail: "the answer declines to answer",
			Quote: quote(guard.SourceAnswer, "", s.Answer, span{0, len(s.Answer)})})
	}
}

// modelInput returns the feature vector the model of d reads. When the
// sample settles d without a model (nothing retrieved, one context, no
// question, no reference), it writes that estimate to *e instead, and
// returns false.
func modelInput(d guard.Decision, a *analysis, f *featureSet, s *guard.Sample, e *guard.Estimate) ([]float64, bool) {
	switch d {
	case guard.ContextSufficiency:
		if len(s.Contexts) == 0 {
			// Definitional: with nothing retrieved nothing can be answered.
			*e = guard.Estimate{Decision: d, P: 0, Evidence: []guard.Evidence{{Decision: d, Kind: guard.EvidenceNoContexts, Detail: "nothing was retrieved"}}}
			return nil, false
		}
		if f.emptyQ {
			*e = guard.Abstain(d, "", noQuestion)
			return nil, false
		}
		return f.suff, true
	case guard.ContextConflict:
		if len(s.Contexts) < 2 {
			// Definitional: one context cannot disagree with another.
			*e = guard.Estimate{Decision: d, P: 0}
			return nil, false
		}
		return f.conflict, true
	case guard.AnswerRelevance:
		if f.emptyQ {
			*e = guard.Abstain(d, "", noQuestion)
			return nil, false
		}
		return f.relev, true
	case guard.Groundedness:
		if len(s.Contexts) == 0 && !f.refusal && len(a.a.toks) > 0 {
			// Definitional: with no context, no claim is supported.
			*e = guard.Estimate{Decision: d, P: 0, Citations: citations(a, f, s),
				Evidence: []guard.Evidence{{Decision: d, Kind: guard.EvidenceNoContexts, Detail: "no context to support the answer"}}}
			return nil, false
		}
		return f.ground[:], true
	case guard.Contradiction:
		return f.contra, true
	case guard.Correctness:
		if !a.hasRef {
			*e = guard.Abstain(d, "", "no reference answer")
			return nil, false
		}
		return f.correct, true
	}
	return nil, true
}

// evidence backs an estimate of d with probability p when p leans against
// the answer (or, for the conflict and contradiction decisions, towards
// them); it is nil otherwise.
func evidence(d guard.Decision, p float64, a *analysis, f *featureSet, s *guard.Sample) []guard.Evidence {
	var b1 [32]byte
	switch d {
	case guard.Groundedness:
		if p < 0.5 {
			return groundEvidence(a, f, s, d, false)
		}
	case guard.Contradiction:
		if p > 0.5 {
			return groundEvidence(a, f, s, d, true)
		}
	case guard.ContextSufficiency:
		if p < 0.5 {
			return suffEvidence(a, f, s)
		}
	case guard.ContextConflict:
		if p > 0.5 {
			return conflictEvidence(a, f, s)
		}
	case guard.AnswerRelevance:
		if p < 0.5 {
			kind, why := guard.EvidenceOffTopic, "the answer shares little with the question or the passage that answers it"
			if f.relev[3] == 1 {
				kind, why = guard.EvidenceTypeMismatch, "the answer is not the kind of thing the question asks for ("+f.qtype.String()+")"
			}
			return []guard.Evidence{{Decision: d, Kind: kind, Detail: why, Quote: quote(guard.SourceAnswer, "", s.Answer, span{0, len(s.Answer)})}}
		}
	case guard.Correctness:
		if p < 0.5 {
			return []guard.Evidence{{Decision: d, Kind: guard.EvidenceReferenceDiffer,
				Detail:      "the answer shares " + string(appendPct(b1[:0], 100*f.correct[0])) + "% (weighted F1) with the reference",
				Quote:       quote(guard.SourceAnswer, "", s.Answer, span{0, len(s.Answer)}),
				Counterpart: quote(guard.SourceReference, "", *s.Reference, span{0, len(*s.Reference)})}}
		}
	}
	return nil
}

// noQuestion is why the decisions that read the question abstain when it
// has no content word (an empty question, or one of function words only).
const noQuestion = "the question has no content word to judge by"

// appendPct appends v rounded to a whole number, as fmt's %.0f writes it.
// Evidence details are built by concatenation, in one allocation each.
// A share in [0, 1e15] is rounded here, to the nearest whole number and
// half to even as strconv rounds the exact value of v, and written as an
// integer: strconv's general path costs several times as much.
func appendPct(b []byte, v float64) []byte {
	if v >= 0 && v <= 1e15 && !math.Signbit(v) {
		return strconv.AppendUint(b, uint64(math.RoundToEven(v)), 10)
	}
	return strconv.AppendFloat(b, v, 'f', 0, 64)
}

func quote(src guard.Source, ctxID, text string, sp span) guard.Quote {
	sp.start = max(0, min(sp.start, len(text)))
	sp.end = max(sp.start, min(sp.end, len(text)))
	return guard.Quote{Source: src, ContextID: ctxID, Start: sp.start, End: sp.end, Text: text[sp.start:sp.end]}
}

func quoteCtx(a *analysis, s *guard.Sample, ci int, sp span) guard.Quote {
	return quote(guard.SourceContext, s.Contexts[ci].ID, s.Contexts[ci].Text, sp)
}

// supportedCut is the raw support a sentence needs to count as supported in
// citations: more than half of its IDF-weighted content words found in one
// context window (words of the question count as given). It is a cut on a
// raw signal, not a probability.
const supportedCut = 0.5

func citations(a *analysis, f *featureSet, s *guard.Sample) []guard.Citation {
	if len(f.sents) == 0 {
		return nil
	}
	out := make([]guard.Citation, len(f.sents))
	for k, si := range f.sents {
		c := guard.Citation{Sentence: quote(guard.SourceAnswer, "", s.Answer, a.a.sents[k]), Support: si.support}
		if si.win.ctx >= 0 && len(s.Contexts) > 0 {
			c.Supported = si.support > supportedCut && !sentHasMismatch(a, f, k)
			if c.Supported {
				c.Context = quoteCtx(a, s, si.win.ctx, a.windowSpan(si.win))
			}
		}
		out[k] = c
	}
	return out
}

// sentHasMismatch reports whether answer sentence k holds a number with no
// counterpart in the contexts, or a flip.
func sentHasMismatch(a *analysis, f *featureSet, k int) bool {
	sp := a.a.sents[k]
	for _, m := range f.mismatches {
		q := a.a.quants[m.ans]
		if q.Start >= sp.start && q.Start < sp.end {
			return true
		}
	}
	for _, fl := range f.flips {
		if fl.sent == k {
			return true
		}
	}
	return false
}

func groundEvidence(a *analysis, f *featureSet, s *guard.Sample, d guard.Decision, contradictionOnly bool) []guard.Evidence {
	var b1 [64]byte
	// Room for every finding (an upper bound), so that appends do not copy.
	n := len(f.mismatches) + len(f.flips)
	if !contradictionOnly {
		n += len(f.absent) + len(f.sents)
	}
	ev := make([]guard.Evidence, 0, max(n, 1))
	for _, m := range f.mismatches {
		if contradictionOnly && !m.sameSlot {
			continue
		}
		q := a.a.quants[m.ans]
		e := guard.Evidence{Decision: d, Kind: guard.EvidenceNumberMismatch,
			Quote: quote(guard.SourceAnswer, "", s.Answer, span{q.Start, q.End})}
		if m.sameSlot {
			c := a.ctxs[m.ctx].quants[m.cq]
			e.Detail = "the answer says " + s.Answer[q.Start:q.End] + " where the context says " + s.Contexts[m.ctx].Text[c.Start:c.End]
			e.Counterpart = quoteCtx(a, s, m.ctx, span{c.Start, c.End})
		} else {
			e.Kind = guard.EvidenceUnsupported
			e.Detail = "no context states " + s.Answer[q.Start:q.End]
		}
		ev = append(ev, e)
	}
	for _, fl := range f.flips {
		e := guard.Evidence{Decision: d, Counterpart: quoteCtx(a, s, fl.win.ctx, a.windowSpan(fl.win))}
		if fl.tok < 0 {
			e.Kind = guard.EvidenceNegationFlip
			e.Detail = "the answer and the context it matches differ in negation"
			e.Quote = quote(guard.SourceAnswer, "", s.Answer, a.a.sents[fl.sent])
		} else {
			t := a.a.toks[fl.tok]
			e.Kind = guard.EvidenceAntonymFlip
			e.Detail = "the answer says " + string(strconv.AppendQuote(b1[:0], s.Answer[t.start:t.end])) + " where the context it matches has its opposite"
			e.Quote = quote(guard.SourceAnswer, "", s.Answer, span{int(t.start), int(t.end)})
		}
		ev = append(ev, e)
	}
	if contradictionOnly {
		if len(ev) == 0 {
			ev = append(ev, softMismatch(a, f, s, d, "no number, negation or antonym of the answer contradicts the contexts"))
		}
		return ev
	}
	for _, ti := range f.swapped {
		t := a.a.toks[ti]
		ev = append(ev, guard.Evidence{Decision: d, Kind: guard.EvidenceAbsentEntity,
			Detail: string(strconv.AppendQuote(b1[:0], s.Answer[t.start:t.end])) + " is stated in the contexts, but not in the passage that supports the rest of its sentence",
			Quote:  quote(guard.SourceAnswer, "", s.Answer, span{int(t.start), int(t.end)})})
	}
	for _, ti := range f.absent {
		t := a.a.toks[ti]
		if t.flags&fNum != 0 {
			continue // numbers are reported as quantities
		}
		ev = append(ev, guard.Evidence{Decision: d, Kind: guard.EvidenceAbsentEntity,
			Detail: string(strconv.AppendQuote(b1[:0], s.Answer[t.start:t.end])) + " appears in no context",
			Quote:  quote(guard.SourceAnswer, "", s.Answer, span{int(t.start), int(t.end)})})
	}
	for k, si := range f.sents {
		if si.support <= supportedCut {
			e := guard.Evidence{Decision: d, Kind: guard.EvidenceUnsupported,
				Detail: "best context window supports " + string(appendPct(b1[:0], 100*si.support)) + "% of this sentence's weighted words",
				Quote:  quote(guard.SourceAnswer, "", s.Answer, a.a.sents[k])}
			if si.win.ctx >= 0 {
				e.Counterpart = quoteCtx(a, s, si.win.ctx, a.windowSpan(si.win))
			}
			ev = append(ev, e)
		}
	}
	if len(ev) == 0 {
		ev = append(ev, softMismatch(a, f, s, d, "every sentence of the answer is mostly found in the contexts"))
	}
	return ev
}

// softMismatch is the evidence of a lean without hard evidence: the weakest
// sentence, its best window, and a plain statement that what the judge
// doubts is the wording, which it cannot read. Such an estimate is never a
// confident verdict (see DecisionModel.SoftFloor).
func softMismatch(a *analysis, f *featureSet, s *guard.Sample, d guard.Decision, what string) guard.Evidence {
	e := weakestSentence(a, f, s, d)
	e.Kind = guard.EvidenceSoftMismatch
	if len(f.sents) > 0 {
		e.Detail = what + "; the doubt is about how its words are put together (word order, relations, paraphrase), which a lexical judge cannot read: no hard evidence, so it escalates"
	}
	return e
}

// weakestSentence is the evidence of last resort: the least supported answer
// sentence and its best window.
func weakestSentence(a *analysis, f *featureSet, s *guard.Sample, d guard.Decision) guard.Evidence {
	k := 0
	for i, si := range f.sents {
		if si.support < f.sents[k].support {
			k = i
		}
	}
	e := guard.Evidence{Decision: d, Kind: guard.EvidenceUnsupported}
	if len(f.sents) == 0 {
		e.Detail = "the answer is empty"
		return e
	}
	si := f.sents[k]
	var b1 [32]byte
	e.Detail = "weakest sentence: best context window supports " + string(appendPct(b1[:0], 100*si.support)) + "% of its weighted words"
	e.Quote = quote(guard.SourceAnswer, "", s.Answer, a.a.sents[k])
	if si.win.ctx >= 0 {
		e.Counterpart = quoteCtx(a, s, si.win.ctx, a.windowSpan(si.win))
	}
	return e
}

func suffEvidence(a *analysis, f *featureSet, s *guard.Sample) []guard.Evidence {
	var b1 [64]byte
	d := guard.ContextSufficiency
	ev := make([]guard.Evidence, 0, max(1, min(len(f.missingQ), 5)))
	for _, ti := range f.missingQ {
		t := a.q.toks[ti]
		ev = append(ev, guard.Evidence{Decision: d, Kind: guard.EvidenceMissingTerm,
			Detail: string(strconv.AppendQuote(b1[:0], s.Question[t.start:t.end])) + " from the question appears in no context",
			Quote:  quote(guard.SourceQuestion, "", s.Question, span{int(t.start), int(t.end)})})
		if len(ev) == 5 {
			break
		}
	}
	if len(ev) == 0 {
		e := guard.Evidence{Decision: d, Kind: guard.EvidenceMissingTerm,
			Detail: "no passage holds the question's terms together with what it asks for (" + f.qtype.String() + ")",
			Quote:  quote(guard.SourceQuestion, "", s.Question, span{0, len(s.Question)})}
		ev = append(ev, e)
	}
	return ev
}

func conflictEvidence(a *analysis, f *featureSet, s *guard.Sample) []guard.Evidence {
	d := guard.ContextConflict
	var ev []guard.Evidence
	for _, p := range f.conflicts {
		e := guard.Evidence{Decision: d, Kind: guard.EvidenceConflict}
		if p.qi >= 0 {
			q1, q2 := a.ctxs[p.ci].quants[p.qi], a.ctxs[p.cj].quants[p.qj]
			e.Detail = s.Contexts[p.ci].ID + " says " + s.Contexts[p.ci].Text[q1.Start:q1.End] + ", " + s.Contexts[p.cj].ID + " says " + s.Contexts[p.cj].Text[q2.Start:q2.End]
		} else {
			e.Detail = s.Contexts[p.ci].ID + " and " + s.Contexts[p.cj].ID + " make opposite statements (" + p.kind + ")"
		}
		e.Quote = quoteCtx(a, s, p.ci, a.ctxs[p.ci].sents[p.si])
		e.Counterpart = quoteCtx(a, s, p.cj, a.ctxs[p.cj].sents[p.sj])
		ev = append(ev, e)
		if len(ev) == 5 {
			break
		}
	}
	if len(ev) == 0 {
		ev = append(ev, guard.Evidence{Decision: d, Kind: guard.EvidenceConflict, Detail: "no single conflicting pair stands out"})
	}
	return ev
}

var qtypeNames = [...]string{qOther: "other", qWhen: "a date or time", qHowMany: "a number", qYesNo: "yes or no",
	qWho: "a person or organization", qWhere: "a place", qWhich: "a choice", qWhy: "a reason", qHow: "a manner"}

func (q questionType) String() string { return qtypeNames[q] }
