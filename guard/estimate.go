package guard

import (
	"fmt"
	"math"
	"time"
)

// Estimate is one judge's answer to one decision: the probability that the
// decision is true, or an abstention. An abstention is a typed outcome: it is
// never read as 0, 0.5 or 1, and it is kept out of averages.
type Estimate struct {
	Decision Decision `json:"decision"`
	// ContextID names the context a ChunkRelevance estimate is about; empty
	// for every other decision.
	ContextID string `json:"contextId,omitempty"`
	// P is the probability that the decision is true, in [0, 1]. Meaningless
	// when Abstained.
	P float64 `json:"p"`
	// Abstained says the judge could not tell; Reason says why, and Cause
	// says it with a stable name when the judge knows one (package cascade
	// sets it on every estimate it returns abstained; a judge usually leaves
	// it empty, which the guard reads as CauseAbstained, or
	// CauseFallbackAbstained for the escalator's).
	Abstained bool   `json:"abstained,omitempty"`
	Reason    string `json:"reason,omitempty"`
	Cause     Cause  `json:"cause,omitempty"`
	// Evidence backs the estimate: the unsupported sentence, the mismatched
	// number and its context counterpart, the conflicting pair, ...
	Evidence []Evidence `json:"evidence,omitempty"`
	// Citations, on a Groundedness estimate: each answer sentence with its
	// best supporting context span, or marked unsupported.
	Citations []Citation `json:"citations,omitempty"`
	// Judge and JudgeVersion name who estimated; the guard fills them from
	// the judge's Info when left empty.
	Judge        string        `json:"judge,omitempty"`
	JudgeVersion string        `json:"judgeVersion,omitempty"`
	Latency      time.Duration `json:"latency,omitempty"`
	Usage        Usage         `json:"usage,omitzero"`
	// Inclusion, on an escalator's estimate, is the probability the
	// escalation had of being admitted to the fallback by a known design
	// (package cascade's Limits.Share), in (0, 1]; 0 when the escalator
	// states none. The guard copies it to FallbackInfo.Inclusion.
	Inclusion float64 `json:"inclusion,omitempty"`
	// Features is the raw feature vector the estimate was computed from,
	// when the judge is a FeatureJudge (nil otherwise). The guard gathers
	// the vectors into Result.Features; it is not part of the estimate's
	// JSON form.
	Features []float64 `json:"-"`
}

// Usage is what a judge spent on an estimate. Zero for local judges. A
// negative count makes the estimate invalid (see Call).
type Usage struct {
	InputTokens  int `json:"inputTokens,omitempty"`
	OutputTokens int `json:"outputTokens,omitempty"`
	Calls        int `json:"calls,omitempty"`
	Retries      int `json:"retries,omitempty"`
}

// Add returns the sum of two usages. Each sum saturates at math.MaxInt
// instead of wrapping, and a negative count adds nothing. So a total never
// falls below what was spent.
func (u Usage) Add(o Usage) Usage {
	return Usage{satAdd(u.InputTokens, o.InputTokens), satAdd(u.OutputTokens, o.OutputTokens),
		satAdd(u.Calls, o.Calls), satAdd(u.Retries, o.Retries)}
}

// Tokens returns the input plus the output tokens, saturating at
// math.MaxInt. A negative count adds nothing.
func (u Usage) Tokens() int { return satAdd(u.InputTokens, u.OutputTokens) }

// satAdd returns a+b with a negative term taken as zero, capped at
// math.MaxInt instead of wrapping.
func satAdd(a, b int) int {
	a, b = max(a, 0), max(b, 0)
	if a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}

// negative names the first negative count of u, or "".
func (u *Usage) negative() string {
	switch {
	case u.InputTokens < 0:
		return fmt.Sprintf("usage has %d input tokens", u.InputTokens)
	case u.OutputTokens < 0:
		return fmt.Sprintf("usage has %d output tokens", u.OutputTokens)
	case u.Calls < 0:
		return fmt.Sprintf("usage has %d calls", u.Calls)
	case u.Retries < 0:
		return fmt.Sprintf("usage has %d retries", u.Retries)
	}
	return ""
}

// Abstain returns an abstaining estimate for d.
func Abstain(d Decision, contextID, reason string) Estimate {
	return Estimate{Decision: d, ContextID: contextID, Abstained: true, Reason: reason}
}

// Err returns nil for an estimate that was given and, for an abstention, a
// *CauseError with its Cause (CauseAbstained when empty) and Reason, so that
// errors.Is(e.Err(), guard.ErrFallbackBudget) tells a cascade's budget
// refusal.
func (e *Estimate) Err() error {
	if !e.Abstained {
		return nil
	}
	c := e.Cause
	if c == "" {
		c = CauseAbstained
	}
	return &CauseError{Cause: c, Reason: e.Reason}
}

// check reports why e is not a usable estimate, or "". A negative usage
// count makes even an abstention unusable: it would buy budget back.
func (e *Estimate) check() string {
	if e.Usage != (Usage{}) {
		if why := e.Usage.negative(); why != "" {
			return why
		}
	}
	if e.Abstained {
		return ""
	}
	if math.IsNaN(e.P) {
		return "probability is NaN"
	}
	if e.P < 0 || e.P > 1 {
		return fmt.Sprintf("probability %v is outside [0, 1]", e.P)
	}
	return ""
}

// Source names the text a quote is taken from.
type Source string

const (
	SourceQuestion  Source = "question"
	SourceAnswer    Source = "answer"
	SourceReference Source = "reference"
	SourceContext   Source = "context"
)

// Quote is a span of one of the sample's texts. Start and End are UTF-8 byte
// offsets into that text; Text is the span itself.
type Quote struct {
	Source    Source `json:"source"`
	ContextID string `json:"contextId,omitempty"`
	Start     int    `json:"start"`
	End       int    `json:"end"`
	Text      string `json:"text"`
}

// IsZero reports whether q is the empty quote (no source).
func (q Quote) IsZero() bool { return q.Source == "" }

// EvidenceKind says what a piece of evidence shows.
type EvidenceKind string

const (
	EvidenceUnsupported     EvidenceKind = "unsupported_sentence" // an answer sentence no context supports
	EvidenceNumberMismatch  EvidenceKind = "number_mismatch"      // a quantity of the answer differs from the context's in the same slot
	EvidenceNegationFlip    EvidenceKind = "negation_flip"        // the answer negates what the context states, or the reverse
	EvidenceAntonymFlip     EvidenceKind = "antonym_flip"         // before/after, increase/decrease, ...
	EvidenceAbsentEntity    EvidenceKind = "absent_entity"        // a name in the answer appears in no context
	EvidenceConflict        EvidenceKind = "conflict"             // two contexts disagree on the same slot
	EvidenceRefusal         EvidenceKind = "refusal"              // the answer declines to answer
	EvidenceTypeMismatch    EvidenceKind = "type_mismatch"        // the answer is not the kind the question asks for
	EvidenceMissingTerm     EvidenceKind = "missing_term"         // something the question asks about appears in no context
	EvidenceNoContexts      EvidenceKind = "no_contexts"          // nothing was retrieved
	EvidenceReferenceDiffer EvidenceKind = "reference_mismatch"   // the answer disagrees with the reference
	EvidenceSupport         EvidenceKind = "support"              // the span that supports a positive estimate
	EvidenceOffTopic        EvidenceKind = "off_topic"            // the answer shares nothing with the question
	EvidenceSoftMismatch    EvidenceKind = "soft_mismatch"        // the judge leans negative without hard evidence (wording it cannot read): never a confident verdict
)

// EvidenceKinds lists every EvidenceKind constant, in the order above. Code
// that must bound the kinds it passes on (telemetry, for one) reads it
// rather than copying the constants.
var EvidenceKinds = []EvidenceKind{
	EvidenceUnsupported, EvidenceNumberMismatch, EvidenceNegationFlip, EvidenceAntonymFlip,
	EvidenceAbsentEntity, EvidenceConflict, EvidenceRefusal, EvidenceTypeMismatch,
	EvidenceMissingTerm, EvidenceNoContexts, EvidenceReferenceDiffer, EvidenceSupport,
	EvidenceOffTopic, EvidenceSoftMismatch,
}

// Evidence is one concrete finding behind an estimate.
type Evidence struct {
	Decision Decision     `json:"decision"`
	Kind     EvidenceKind `json:"kind"`
	// Detail is a short human-readable explanation.
	Detail string `json:"detail,omitempty"`
	// Quote is the span the finding is about (usually in the answer).
	Quote Quote `json:"quote,omitzero"`
	// Counterpart is the span it is compared with (usually in a context):
	// the context's number, the other side of a conflict. Zero when there
	// is none.
	Counterpart Quote `json:"counterpart,omitzero"`
}

// Citation ties one answer sentence to its best supporting context span.
type Citation struct {
	// Sentence is the answer sentence.
	Sentence Quote `json:"sentence"`
	// Support is the judge's support score for the sentence in [0, 1]
	// (a raw signal, not a calibrated probability).
	Support float64 `json:"support"`
	// Supported says whether the sentence passed the judge's support test.
	Supported bool `json:"supported"`
	// Context is the best supporting span; zero (omitted from JSON) when no
	// context supports the sentence, as always with zero contexts.
	Context Quote `json:"context,omitzero"`
}
