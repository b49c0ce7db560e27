package guard

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
)

// Diagnosis names why an answer failed, or that it passed.
type Diagnosis string

// The diagnoses, in precedence order (highest first).
const (
	ConflictingEvidence   Diagnosis = "CONFLICTING_EVIDENCE"
	RetrievalMiss         Diagnosis = "RETRIEVAL_MISS"
	RetrievalInsufficient Diagnosis = "RETRIEVAL_INSUFFICIENT"
	AnswerIrrelevant      Diagnosis = "ANSWER_IRRELEVANT"
	GeneratorUngrounded   Diagnosis = "GENERATOR_UNGROUNDED"
	AnswerIncorrect       Diagnosis = "ANSWER_INCORRECT"
	JudgeUncertain        Diagnosis = "JUDGE_UNCERTAIN"
	PassDiagnosis         Diagnosis = "PASS"
)

// Diagnoses lists every diagnosis in precedence order.
var Diagnoses = []Diagnosis{ConflictingEvidence, RetrievalMiss, RetrievalInsufficient, AnswerIrrelevant, GeneratorUngrounded, AnswerIncorrect, JudgeUncertain, PassDiagnosis}

// Route says who decides: the guard on its own (Auto), the fallback judge
// (Fallback), or a human when no fallback is configured (RouteReview). The
// zero Route is Fallback. A Diagnoser routes every JUDGE_UNCERTAIN
// outcome to Fallback; a guard without an escalator reports it as
// RouteReview instead.
type Route uint8

const (
	Fallback Route = iota
	Auto
	// RouteReview: the guard could not decide and has no fallback to ask,
	// so the answer goes to review (Result.Action is Review).
	RouteReview
)

func (r Route) String() string {
	switch r {
	case Auto:
		return "auto"
	case RouteReview:
		return "review"
	}
	return "fallback"
}

// MarshalJSON writes "auto", "fallback" or "review".
func (r Route) MarshalJSON() ([]byte, error) { return json.Marshal(r.String()) }

// UnmarshalJSON reads "auto", "fallback" or "review".
func (r *Route) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	switch s {
	case "auto":
		*r = Auto
	case "fallback":
		*r = Fallback
	case "review":
		*r = RouteReview
	default:
		return fmt.Errorf("guard: unknown route %q", s)
	}
	return nil
}

// Outcome is what a Diagnoser concludes.
type Outcome struct {
	Diagnosis  Diagnosis
	Confidence float64
	Route      Route
	Reason     string
}

// A Diagnoser turns a result's probabilities and verdicts into a diagnosis.
// It must be deterministic and must not modify the result. Implementations
// must be safe for concurrent use.
type Diagnoser interface {
	Diagnose(r *Result) Outcome
	// Version names the rules; it is recorded in every result.
	Version() string
}

// DefaultDiagnoser is the built-in rule set (see Diagnose).
var DefaultDiagnoser Diagnoser = diagnoserV1{}

// DiagnoseVersion is the version of the built-in rules.
const DiagnoseVersion = "diagnose/1.1.0"

type diagnoserV1 struct{}

func (diagnoserV1) Version() string            { return DiagnoseVersion }
func (diagnoserV1) Diagnose(r *Result) Outcome { return Diagnose(r) }

// Diagnose is the built-in diagnosis (version DiagnoseVersion). It reads the
// verdicts and probabilities of r, never the raw texts. A confident finding
// is reported by precedence:
//
//	CONFLICTING_EVIDENCE    conflict fails (the contexts confidently disagree); confidence P(conflict)
//	RETRIEVAL_MISS          no contexts, or every chunk's relevance fails; confidence min(1-P) over chunks
//	RETRIEVAL_INSUFFICIENT  sufficiency fails; confidence 1-P
//	ANSWER_IRRELEVANT       answer relevance fails; confidence 1-P
//	GENERATOR_UNGROUNDED    groundedness fails (confidence 1-P) or contradiction fails (confidence P)
//	ANSWER_INCORRECT        correctness fails (only with a reference); confidence 1-P
//
// each with route Auto: a confident failure needs no escalation, even when a
// decision of lower or higher precedence is uncertain (Reason names those).
// Without a confident failure, an uncertain decision that the result's pass
// rule (r.PassRule, from the policy) does not waive gives JUDGE_UNCERTAIN
// with route Fallback and the confidence of the least certain decision
// (max(P, 1-P), 0 for an abstention). Otherwise the answer is PASS with route
// Auto and the confidence of its least certain decided decision; the reason
// names the decisions the rule waived. "Uncertain" for chunk relevance means
// no chunk passes and not all fail.
func Diagnose(r *Result) Outcome { return diagnose(r, false) }

// diagnose is Diagnose. With noFallback set, it routes JUDGE_UNCERTAIN to
// RouteReview, its reason ending with reasonNoFallback (built in the same
// allocation), as a guard without an escalator reports it.
func diagnose(r *Result, noFallback bool) Outcome {
	dg := diagnosis{r: r, minConf: 1, noFallback: noFallback}
	r.fields(&dg.f)
	if o, ok := dg.conflict(); ok {
		return o
	}
	if o, ok := dg.chunks(); ok {
		return o
	}
	if o, ok := dg.answer(); ok {
		return o
	}
	return dg.conclude()
}

// diagnosis is the state of one Diagnose: the uncertain decisions so far,
// in precedence order, and the least confidence among those that passed.
type diagnosis struct {
	r       *Result
	f       decisionFields         // r's, read once
	pending [numDecisions]Decision // the first n are uncertain
	n       int
	set     uint8 // the same decisions, bit d-1 for decision d
	minConf float64
	// noFallback routes JUDGE_UNCERTAIN to review (see diagnose).
	noFallback bool
}

func (dg *diagnosis) unsure(d Decision) {
	dg.pending[dg.n] = d
	dg.n++
	dg.set |= 1 << (d - 1)
}

func (dg *diagnosis) uncertain() []Decision { return dg.pending[:dg.n] }

func (dg *diagnosis) take(c float64) { dg.minConf = min(dg.minConf, c) }

// The reasons that name uncertain decisions repeat from one result to the
// next, so they are built once and kept, by kind and by the set of
// uncertain decisions: the decisions are always named in precedence order,
// so the set and the kind determine the text. The kinds are a confident
// finding (one per text of findings) with decisions also uncertain, and
// the three conclusions: JUDGE_UNCERTAIN routed to review or to the
// fallback, and a PASS that waived decisions (one per pass rule).
const (
	reasonFound    = 0
	reasonReview   = reasonFound + len(findings)
	reasonFallback = reasonReview + 1
	reasonWaived   = reasonFallback + 1
	numReasonKinds = reasonWaived + len(passRuleNames)
)

var reasons [numReasonKinds][1 << numDecisions]atomic.Pointer[string]

// cachedReason returns the reason of the given kind for the decisions
// uncertain so far, building it with names(lead+prefix, ..., suffix) the
// first time (lead and prefix are joined only then). Building it twice (two
// goroutines at once) is harmless: both build the same text.
func (dg *diagnosis) cachedReason(kind int, lead, prefix, suffix string) string {
	slot := &reasons[kind][dg.set]
	if s := slot.Load(); s != nil {
		return *s
	}
	s := names(lead+prefix, dg.uncertain(), suffix)
	slot.Store(&s)
	return s
}

// The texts of the confident findings, indexed by finding; found takes the
// index, which is also its reason's kind.
const (
	findConflict = iota
	findNothingRetrieved
	findNoneRelevant
	findAnswer // the first of answerChecks
)

var findings = [...]string{
	findConflict:         "the contexts disagree on a fact the answer depends on",
	findNothingRetrieved: "nothing was retrieved",
	findNoneRelevant:     "no retrieved context is relevant to the question",
	findAnswer + 0:       "the contexts do not hold enough to answer the question",
	findAnswer + 1:       "the answer does not address the question",
	findAnswer + 2:       "the answer makes claims the contexts do not support",
	findAnswer + 3:       "the answer contradicts the contexts",
	findAnswer + 4:       "the answer disagrees with the reference answer",
}

// found is confident finding k (an index of findings); the reason names
// what is also uncertain.
func (dg *diagnosis) found(d Diagnosis, conf float64, k int) (Outcome, bool) {
	why := findings[k]
	if dg.n > 0 {
		why = dg.cachedReason(reasonFound+k, why, " (also uncertain: ", ")")
	}
	return Outcome{Diagnosis: d, Confidence: conf, Route: Auto, Reason: why}, true
}

// conflict finds CONFLICTING_EVIDENCE.
func (dg *diagnosis) conflict() (Outcome, bool) {
	r := dg.r
	switch r.Verdicts.Retrieval.ContextConflict {
	case Fail:
		return dg.found(ConflictingEvidence, r.Retrieval.ContextConflict.Value, findConflict)
	case Pass:
		dg.take(1 - r.Retrieval.ContextConflict.Value)
	default:
		dg.unsure(ContextConflict)
	}
	return Outcome{}, false
}

// chunks finds RETRIEVAL_MISS: no contexts, or every chunk fails.
func (dg *diagnosis) chunks() (Outcome, bool) {
	r := dg.r
	chunks := r.Retrieval.ChunkRelevance
	if len(chunks) == 0 {
		return dg.found(RetrievalMiss, 1, findNothingRetrieved)
	}
	allFail, best := true, -1.0
	missConf := 1.0
	for i, e := range r.Verdicts.Retrieval.ChunkRelevance {
		p := chunks[i].Value
		if e.Value != Fail {
			allFail = false
		} else if 1-p.Value < missConf {
			missConf = 1 - p.Value
		}
		if e.Value == Pass && p.Value > best {
			best = p.Value
		}
	}
	switch {
	case allFail:
		return dg.found(RetrievalMiss, missConf, findNoneRelevant)
	case best >= 0:
		dg.take(best)
	default:
		dg.unsure(ChunkRelevance)
	}
	return Outcome{}, false
}

// answerChecks are the per-answer decisions, in precedence order, with the
// diagnosis a confident failure gives. The text of check i is finding
// findAnswer+i.
var answerChecks = [...]struct {
	dec Decision
	d   Diagnosis
}{
	{ContextSufficiency, RetrievalInsufficient},
	{AnswerRelevance, AnswerIrrelevant},
	{Groundedness, GeneratorUngrounded},
	{Contradiction, GeneratorUngrounded},
	{Correctness, AnswerIncorrect},
}

// answer reads the per-answer decisions through the Result's decision
// table. Correctness is skipped without a reference (Verdict reports it
// absent).
func (dg *diagnosis) answer() (Outcome, bool) {
	for i := range answerChecks {
		c := &answerChecks[i]
		f := &dg.f[c.dec]
		p, verdict := f.p, Uncertain
		if f.has {
			verdict = f.v
		} else if !p.Asked {
			continue // correctness without a reference
		}
		// The confidence is P(the answer's side of the proposition): P for
		// a healthy proposition, 1-P for an adverse one (contradiction).
		healthy := p.Value
		if c.dec.Adverse() {
			healthy = 1 - p.Value
		}
		switch verdict {
		case Fail:
			return dg.found(c.d, 1-healthy, findAnswer+i)
		case Pass:
			dg.take(healthy)
		default:
			dg.unsure(c.dec)
		}
	}
	return Outcome{}, false
}

// conclude gives JUDGE_UNCERTAIN when the pass rule does not waive an
// uncertain decision, and PASS otherwise.
func (dg *diagnosis) conclude() Outcome {
	r := dg.r
	if dg.n == 0 {
		return Outcome{Diagnosis: PassDiagnosis, Confidence: dg.minConf, Route: Auto, Reason: "every decision passed"}
	}
	for _, d := range dg.uncertain() {
		if !r.PassRule.Waives(d) {
			if dg.noFallback {
				return Outcome{Diagnosis: JudgeUncertain, Confidence: leastCertain(r, &dg.f), Route: RouteReview,
					Reason: dg.cachedReason(reasonReview, "", "uncertain: ", reasonNoFallback)}
			}
			return Outcome{Diagnosis: JudgeUncertain, Confidence: leastCertain(r, &dg.f), Route: Fallback,
				Reason: dg.cachedReason(reasonFallback, "", "uncertain: ", "")}
		}
	}
	const lead, waived = "every decision the pass rule ", " requires passed (uncertain, waived: "
	var why string
	if int(r.PassRule) < len(passRuleNames) {
		why = dg.cachedReason(reasonWaived+int(r.PassRule), lead+passRuleNames[r.PassRule], waived, ")")
	} else {
		why = names(lead+r.PassRule.String()+waived, dg.uncertain(), ")") // a rule of no name: not kept
	}
	return Outcome{Diagnosis: PassDiagnosis, Confidence: dg.minConf, Route: Auto, Reason: why}
}

// names returns prefix, the decisions' names joined with commas, and
// suffix, in one allocation.
func names(prefix string, ds []Decision, suffix string) string {
	n := len(prefix) + len(suffix) + 2*max(len(ds)-1, 0)
	for _, d := range ds {
		n += len(d.String())
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(prefix)
	for i, d := range ds {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(d.String())
	}
	b.WriteString(suffix)
	return b.String()
}

// leastCertain is the smallest max(P, 1-P) over the uncertain decisions of r
// (0 for an unknown probability); f holds r's fields.
func leastCertain(r *Result, f *decisionFields) float64 {
	c := 1.0
	consider := func(p Prob, v Verdict) {
		if v != Uncertain || !p.Asked {
			return
		}
		x := 0.0
		if p.Known {
			x = max(p.Value, 1-p.Value)
		}
		c = min(c, x)
	}
	for d := ContextSufficiency; d <= Correctness; d++ {
		if f[d].has {
			consider(f[d].p, f[d].v)
		}
	}
	// Chunk relevance counts as uncertain only when no chunk passed.
	anyPass := false
	for _, e := range r.Verdicts.Retrieval.ChunkRelevance {
		anyPass = anyPass || e.Value == Pass
	}
	if !anyPass {
		for i, e := range r.Verdicts.Retrieval.ChunkRelevance {
			consider(r.Retrieval.ChunkRelevance[i].Value, e.Value)
		}
	}
	return c
}
