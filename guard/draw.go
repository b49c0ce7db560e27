package guard

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync/atomic"
	"time"
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
	// DrawAudit: an answer on which the embedded judges decided at least
	// one decision side on their own (a pass or fail verdict the fallback
	// did not settle), drawn with the audit rate (enforce mode).
	DrawAudit DrawKind = "audit"
)

// Draws configures teacher draws (WithDraws): a uniform random share of the
// answers also goes to the teacher, the guard's escalator, so that its
// verdicts can teach and check the embedded judges. Rates are in [0, 1];
// zero draws nothing of that kind.
//
// Explore draws every answer with probability Explore. Audit draws the
// answers on which the embedded judges decided something on their own (at
// least one pass or fail verdict the fallback did not settle, see
// AuditOutcomes; not only answers routed Auto, which would leave a side
// that mostly appears beside an escalated decision nearly unaudited) with
// probability Audit. Every automatic verdict of a decision side is then
// drawn with probability Audit, independently of the others: the audits of
// a side are a uniform sample of its automatic verdicts, which is what the
// promise monitor assumes. With both set, an answer decided on its own is
// an audit drawn with probability max(Explore, Audit) (so the monitor sees
// every drawn automatic verdict), any other an explore draw with
// probability Explore. Whether an answer is drawn is
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
	// Cause is set when the teacher was refused or failed on some
	// decision: a refusal (budget, breaker_open, concurrency, closed), the
	// request's end (deadline, cancelled) or a failure (fallback_failed);
	// the first such cause, Reason says it for people. An abstention of the
	// teacher itself ("cannot tell": fallback_abstained) is no cause here:
	// its estimate says so, and its verdict is uncertain.
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
// escalator to ask (a result drawn by another guard).
var ErrNoTeacher = errors.New("guard: Teach: no escalator configured (WithEscalator) to teach with")

// WithDraws draws a uniform random share of the answers for the teacher
// (see Draws). Evaluate decides the draw and records it in Result.Draw; it
// never asks the teacher itself. Guard.Teach does, for a drawn result, off
// the request path. Draws need an escalator (WithEscalator) to teach with:
// New refuses WithDraws without one.
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

// TeachStats counts the teacher draws of a Guard and what Teach made of
// them. Drawn = Taught + draws not taught (yet, or dropped by the caller).
// Taught = Answered + the sum of ByCause. Audit sides count the decisions
// of audit draws on which both the embedded judges and the teacher gave a
// verdict; Disagreements those where the verdicts differ.
type TeachStats struct {
	Drawn    uint64 // results Evaluate drew
	Taught   uint64 // drawn results Teach asked the teacher about
	Answered uint64 // of those, the teacher was neither refused nor failed
	// ByCause counts the taught results whose teacher was refused or
	// failed, by Teacher.Cause. They are never retried.
	ByCause       map[Cause]uint64
	AuditSides    uint64
	Disagreements uint64
}

// Refused sums the ByCause counts whose cause is a refusal or the
// request's end (see Teacher.Refused).
func (s TeachStats) Refused() uint64 {
	var n uint64
	for c, k := range s.ByCause {
		if (&Teacher{Cause: c}).Refused() {
			n += k
		}
	}
	return n
}

// teachStats holds TeachStats' counters.
type teachStats struct {
	drawn, taught, answered, sides, disagree atomic.Uint64
	byCause                                  [maxCauses + 1]atomic.Uint64 // by index in Causes; the last: a cause guard does not name
}

// maxCauses bounds len(Causes) for teachStats' array.
const maxCauses = 16

// TeachStats returns the counts so far. Safe for concurrent use.
func (g *Guard) TeachStats() TeachStats {
	st := TeachStats{Drawn: g.teach.drawn.Load(), Taught: g.teach.taught.Load(), Answered: g.teach.answered.Load(),
		AuditSides: g.teach.sides.Load(), Disagreements: g.teach.disagree.Load()}
	for i := range g.teach.byCause {
		n := g.teach.byCause[i].Load()
		if n == 0 {
			continue
		}
		if st.ByCause == nil {
			st.ByCause = make(map[Cause]uint64, 2)
		}
		c := Cause("other")
		if i < len(Causes) {
			c = Causes[i]
		}
		st.ByCause[c] += n
	}
	return st
}

// draw decides the teacher draw of the evaluated res. It runs at the end of
// Evaluate; with no draw it allocates only the Draw it returns, and costs a
// hash of the sample's ID (of its texts when it has none).
func (g *Guard) draw(s *Sample, res *Result) *Draw {
	d := g.draws
	e, a := d.Explore, d.Audit
	alone := a > 0 && decidedAlone(res)
	dr := &Draw{Seed: d.Seed}
	switch {
	case alone:
		// An audit whatever the explore rate, so that the monitor sees
		// every draw of the automatic verdicts; with both rates set it is
		// drawn with the larger.
		dr.Kind, dr.Rate, dr.Inclusion = DrawAudit, a, max(a, e)
	case e > 0:
		dr.Kind, dr.Rate, dr.Inclusion = DrawExplore, e, e
	default:
		// Audit only, and the embedded judges did not decide alone: not
		// eligible.
		dr.Kind, dr.Rate = DrawAudit, a
	}
	if dr.Inclusion > 0 && drawUniform(d.Seed, s) < dr.Inclusion {
		dr.Drawn = true
		g.teach.drawn.Add(1)
	}
	return dr
}

// DrawUniform is the number in [0, 1) that decides the teacher draw of s
// under seed: s is drawn when it is below the draw's inclusion
// probability. It depends only on seed and s's ID, or, when s has no ID,
// on its question, contexts (IDs and texts), answer and reference.
func DrawUniform(seed uint64, s *Sample) float64 { return drawUniform(seed, s) }

func drawUniform(seed uint64, s *Sample) float64 {
	h := uint64(hashOffset)
	if s.ID != "" {
		h = hashString(h, "id\x00")
		h = hashString(h, s.ID)
	} else {
		h = hashString(h, "q\x00")
		h = hashString(h, s.Question)
		for i := range s.Contexts {
			h = hashString(h, "\x00c\x00")
			h = hashString(h, s.Contexts[i].ID)
			h = hashString(h, "\x00")
			h = hashString(h, s.Contexts[i].Text)
		}
		h = hashString(h, "\x00a\x00")
		h = hashString(h, s.Answer)
		if s.Reference != nil {
			h = hashString(h, "\x00r\x00")
			h = hashString(h, *s.Reference)
		}
	}
	x := mix64(seed ^ mix64(h))
	return float64(x>>11) / (1 << 53)
}

const (
	hashOffset = 14695981039346656037
	fnvPrime   = 1099511628211
)

// hashString continues the hash h with the bytes of s: eight at a time
// (each word multiplied in and folded), the rest as 64-bit FNV-1a does. It
// is no cryptographic hash; mix64 spreads its result.
func hashString(h uint64, s string) uint64 {
	for len(s) >= 8 {
		w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		h = (h ^ w) * 0x9e3779b97f4a7c15
		h ^= h >> 32
		s = s[8:]
	}
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

// mix64 is splitmix64's finaliser: nearby inputs give unrelated outputs.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// Teach asks the teacher (the guard's escalator) about a result that
// Evaluate drew (res.Draw.Drawn), and records its answer in res.Teacher. It
// does nothing, and returns nil, for a result that was not drawn or that
// was taught already. It is meant to run off the request path, after the
// answer was returned: the middleware calls it in the shadow worker, or on
// a bounded background goroutine in inline mode; evalkit's runner right
// after Evaluate. s must be the sample res was evaluated from. Teach is safe
// for concurrent use on different results.
//
// The teacher is asked every decision the guard's own judges were asked
// (chunk relevance of every context), in one escalation behind the
// escalator's budget, breaker and concurrency limit; ctx bounds it. A
// refusal or failure is recorded in res.Teacher.Cause, counted
// (TeachStats), and never retried. For an audit draw, the outcomes
// (AuditOutcomes) go to the guard's Monitor (WithMonitor). Teach never
// changes res's verdicts, diagnosis, route, action or Fallback. It returns
// an error only when it could not ask: ErrNoTeacher without an escalator,
// or a nil sample or result.
func (g *Guard) Teach(ctx context.Context, s *Sample, res *Result) error {
	if s == nil || res == nil {
		return errors.New("guard: Teach: nil sample or result")
	}
	if res.Draw == nil || !res.Draw.Drawn || res.Teacher != nil {
		return nil
	}
	if g.esc == nil {
		return ErrNoTeacher
	}
	ds := g.asked(s)
	var ids []string
	if slices.Contains(ds, ChunkRelevance) {
		ids = make([]string, len(s.Contexts))
		for i := range s.Contexts {
			ids[i] = s.Contexts[i].ID
		}
	}
	t := &Teacher{Judge: g.esc.name}
	t0 := g.now()
	var out []Estimate
	var failed *JudgeError
	if len(ds) > 0 {
		out, failed = g.ask(ctx, Escalation{Request: Request{Sample: s, Decisions: slices.Clone(ds)}, ContextIDs: ids, Teacher: true}, "teacher")
	}
	t.LatencyMs = float64(g.now().Sub(t0)) / float64(time.Millisecond)
	for i := range out {
		t.Usage = t.Usage.Add(out[i].Usage)
	}
	if failed != nil {
		t.Cause, t.Reason = failed.Cause, failed.Message
	} else {
		t.Estimates = g.teacherEstimates(out, ds, ids)
	}
	g.teacherVerdicts(s, t, ds)
	res.Teacher = t
	g.teach.taught.Add(1)
	if t.Cause == "" {
		g.teach.answered.Add(1)
	} else {
		g.teach.byCause[causeIndex(t.Cause)].Add(1)
	}
	if res.Draw.Kind == DrawAudit {
		// The audit's outcome per decision side, computed here once the
		// teacher answered: the promise monitor observes them.
		outs := AuditOutcomes(res)
		for _, o := range outs {
			g.teach.sides.Add(1)
			if o.Disagree {
				g.teach.disagree.Add(1)
			}
		}
		if g.monitor != nil && len(outs) > 0 {
			// A store failure is the monitor's to count and retry
			// (PromiseMonitor.StoreErrors): the teacher was asked.
			_ = g.monitor.Observe(ctx, g.promise, outs)
		}
	}
	return nil
}

// causeIndex is c's index in Causes, or maxCauses for a cause guard does
// not name.
func causeIndex(c Cause) int {
	if i := slices.Index(Causes, c); i >= 0 && i < maxCauses {
		return i
	}
	return maxCauses
}

// asked lists the decisions the guard's own judges are asked about s, in
// Decisions order.
func (g *Guard) asked(s *Sample) []Decision {
	var ds []Decision
	for _, d := range Decisions {
		if d == Correctness && s.Reference == nil {
			continue
		}
		for i := range g.bindings {
			if contains(g.bindings[i].decisions, d) {
				ds = append(ds, d)
				break
			}
		}
	}
	return ds
}

// teacherEstimates keeps the teacher's estimates of what it was asked (one
// per decision, one per listed context), named after who gave them.
func (g *Guard) teacherEstimates(out []Estimate, ds []Decision, ids []string) []Estimate {
	kept := make([]Estimate, 0, len(out))
	for _, e := range out {
		if !slices.Contains(ds, e.Decision) || e.Decision == ChunkRelevance && !slices.Contains(ids, e.ContextID) {
			continue
		}
		if has(kept, e.Decision, e.ContextID) {
			continue
		}
		if e.Judge == "" {
			e.Judge = g.esc.name
		}
		if e.Abstained && e.Cause == "" {
			e.Cause = CauseFallbackAbstained
		}
		e.Features = nil
		kept = append(kept, e)
	}
	return kept
}

// primaryJudge reports whether name is one of the guard's own judges.
func (g *Guard) primaryJudge(name string) bool {
	for i := range g.bindings {
		if g.bindings[i].info.Name == name {
			return name != g.esc.name
		}
	}
	return false
}

// teacherVerdicts fills t.Verdicts (and t.FromPrimary, and t.Cause when the
// teacher was refused or failed on a decision) from t.Estimates, read with
// the fallback policy.
func (g *Guard) teacherVerdicts(s *Sample, t *Teacher, ds []Decision) {
	read := func(d Decision, id string) Verdict {
		for i := range t.Estimates {
			e := &t.Estimates[i]
			if e.Decision != d || e.ContextID != id {
				continue
			}
			switch {
			case e.Abstained:
				if t.Cause == "" && e.Cause != CauseFallbackAbstained {
					t.Cause, t.Reason = e.Cause, e.Reason
				}
				return Uncertain
			case g.primaryJudge(e.Judge):
				t.FromPrimary = true
				return Uncertain
			}
			return g.esc.policy.Verdict(d, e.P)
		}
		return Uncertain // no estimate: the teacher could not tell
	}
	v := &t.Verdicts
	v.Retrieval.ChunkRelevance = make(Keyed[Verdict], 0, len(s.Contexts))
	if slices.Contains(ds, ChunkRelevance) {
		for i := range s.Contexts {
			id := s.Contexts[i].ID
			v.Retrieval.ChunkRelevance = append(v.Retrieval.ChunkRelevance, Entry[Verdict]{Key: id, Value: read(ChunkRelevance, id)})
		}
	}
	var r Result
	for _, d := range Decisions[1:] {
		if d == Correctness && s.Reference == nil {
			continue
		}
		vd := Uncertain
		if slices.Contains(ds, d) {
			vd = read(d, "")
		}
		r.Set(d, Prob{}, vd)
	}
	v.Retrieval.ContextSufficiency = r.Verdicts.Retrieval.ContextSufficiency
	v.Retrieval.ContextConflict = r.Verdicts.Retrieval.ContextConflict
	v.Generation = r.Verdicts.Generation
}

// decidedAlone reports whether the embedded judges decided some decision of
// res on their own: a pass or fail verdict that the fallback did not
// settle (the verdicts AuditOutcomes compares).
func decidedAlone(res *Result) bool {
	for _, e := range res.Verdicts.Retrieval.ChunkRelevance {
		if e.Value != Uncertain && !settledByFallback(res, ChunkRelevance, e.Key) {
			return true
		}
	}
	for _, d := range Decisions[1:] {
		if v, ok := res.Verdict(d); ok && v != Uncertain && !settledByFallback(res, d, "") {
			return true
		}
	}
	return false
}

// settledByFallback reports whether decision d (chunk id for chunk
// relevance) of res was escalated to the fallback.
func settledByFallback(res *Result, d Decision, id string) bool {
	f := res.Fallback
	if f == nil || !slices.Contains(f.Decisions, d) {
		return false
	}
	return d != ChunkRelevance || slices.Contains(f.Contexts, id)
}

// AuditOutcome is one decision side of an audited result: the verdict the
// embedded judges gave on their own, and the teacher's.
type AuditOutcome struct {
	Decision  Decision
	ContextID string // for ChunkRelevance
	// Auto is the embedded verdict (Pass or Fail: the side), Teacher the
	// teacher's (Pass or Fail).
	Auto, Teacher Verdict
	// Disagree is Auto != Teacher.
	Disagree bool
}

// AuditOutcomes compares the verdicts the embedded judges reached on their
// own in res (decisions the fallback did not settle) with the teacher's
// (res.Teacher), decision by decision, chunk by chunk. A decision either
// left uncertain is not compared. It returns nil without a teacher. The
// promise monitor reads these for audit draws: each is one observation of
// the error of the auto verdicts on side Auto.
func AuditOutcomes(res *Result) []AuditOutcome {
	t := res.Teacher
	if t == nil {
		return nil
	}
	var out []AuditOutcome
	add := func(d Decision, id string, auto, teach Verdict) {
		if auto == Uncertain || teach == Uncertain || settledByFallback(res, d, id) {
			return
		}
		out = append(out, AuditOutcome{Decision: d, ContextID: id, Auto: auto, Teacher: teach, Disagree: auto != teach})
	}
	for _, e := range res.Verdicts.Retrieval.ChunkRelevance {
		if tv, ok := t.Verdicts.Retrieval.ChunkRelevance.Get(e.Key); ok {
			add(ChunkRelevance, e.Key, e.Value, tv)
		}
	}
	tr := Result{Verdicts: t.Verdicts}
	for _, d := range Decisions[1:] {
		auto, ok1 := res.Verdict(d)
		teach, ok2 := tr.Verdict(d)
		if ok1 && ok2 {
			add(d, "", auto, teach)
		}
	}
	return out
}

// collectFeatures adds the feature vectors of a FeatureJudge's estimates
// ests (features version v) to res.Features. Vectors of another features
// version than the first judge's are left out: one result has one version.
func collectFeatures(res *Result, v string, ests []Estimate) {
	if res.Features != nil && res.Features.Version != v {
		return
	}
	for i := range ests {
		e := &ests[i]
		if e.Features == nil {
			continue
		}
		if res.Features == nil {
			res.Features = newFeatures(v, len(ests)-i)
		}
		res.Features.Vectors = append(res.Features.Vectors, FeatureVector{Decision: e.Decision, ContextID: e.ContextID, X: e.Features})
	}
}

// featuresBlock holds a Features and room for its first vectors, so that
// the usual result (one context, six other decisions) gets both in one
// allocation.
type featuresBlock struct {
	f Features
	v [8]FeatureVector
}

// newFeatures returns an empty Features of version v with room for n
// vectors.
func newFeatures(v string, n int) *Features {
	if n <= len(featuresBlock{}.v) {
		b := &featuresBlock{}
		b.f = Features{Version: v, Vectors: b.v[:0:n]}
		return &b.f
	}
	return &Features{Version: v, Vectors: make([]FeatureVector, 0, n)}
}
