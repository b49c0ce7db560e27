package guard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Prob is a probability in a result. It has three states: absent (not part
// of the result at all: correctness without a reference), unknown (the judge
// abstained or failed: JSON null), and known.
type Prob struct {
	Value float64
	Known bool // false: the judge could not give it
	Asked bool // false: the decision is not part of this result
}

// KnownProb returns a known probability.
func KnownProb(p float64) Prob { return Prob{Value: p, Known: true, Asked: true} }

// IsZero reports whether the probability is absent (for omitzero).
func (p Prob) IsZero() bool { return !p.Asked }

// Get returns the value and whether it is known.
func (p Prob) Get() (float64, bool) { return p.Value, p.Known }

// MarshalJSON writes the number, or null when unknown.
func (p Prob) MarshalJSON() ([]byte, error) {
	if !p.Known || math.IsNaN(p.Value) || math.IsInf(p.Value, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, p.Value, 'g', -1, 64), nil
}

// UnmarshalJSON reads a number or null.
func (p *Prob) UnmarshalJSON(b []byte) error {
	p.Asked = true
	if string(b) == "null" {
		p.Known, p.Value = false, 0
		return nil
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil {
		return fmt.Errorf("guard: probability %s: %w", b, err)
	}
	p.Value, p.Known = v, true
	return nil
}

// Entry is one key of a Keyed object.
type Entry[T any] struct {
	Key   string
	Value T
}

// Keyed is a JSON object whose key order is kept: chunk scores are listed in
// retrieval order.
type Keyed[T any] []Entry[T]

// Get returns the value at key.
func (k Keyed[T]) Get(key string) (T, bool) {
	for _, e := range k {
		if e.Key == key {
			return e.Value, true
		}
	}
	var zero T
	return zero, false
}

// MarshalJSON writes an object with the entries in order.
func (k Keyed[T]) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, e := range k {
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, err := json.Marshal(e.Key)
		if err != nil {
			return nil, err
		}
		buf.Write(kb)
		buf.WriteByte(':')
		vb, err := json.Marshal(e.Value)
		if err != nil {
			return nil, err
		}
		buf.Write(vb)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalJSON reads an object, keeping its key order.
func (k *Keyed[T]) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		*k = nil
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("guard: want a JSON object, got %v", tok)
	}
	out := Keyed[T]{}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return err
		}
		var v T
		if err := dec.Decode(&v); err != nil {
			return err
		}
		out = append(out, Entry[T]{Key: kt.(string), Value: v})
	}
	*k = out
	return nil
}

// The JSON keys of the scores and verdicts are the decision names in
// camelCase ([Decision.JSONKey]): chunkRelevance, contextSufficiency,
// contextConflict, groundedness, answerRelevance, contradiction,
// correctness. Results written before that used sufficiency, conflict and
// relevance; the decoders still read those keys.

// RetrievalScores are the retrieval-stage probabilities.
type RetrievalScores struct {
	ChunkRelevance     Keyed[Prob] `json:"chunkRelevance"`
	ContextSufficiency Prob        `json:"contextSufficiency"`
	ContextConflict    Prob        `json:"contextConflict"`
}

// GenerationScores are the generation-stage probabilities. Correctness is
// absent (omitted from JSON) when the sample has no reference.
type GenerationScores struct {
	Groundedness    Prob `json:"groundedness"`
	AnswerRelevance Prob `json:"answerRelevance"`
	Contradiction   Prob `json:"contradiction"`
	Correctness     Prob `json:"correctness,omitzero"`
}

// RetrievalVerdicts mirror RetrievalScores.
type RetrievalVerdicts struct {
	ChunkRelevance     Keyed[Verdict] `json:"chunkRelevance"`
	ContextSufficiency Verdict        `json:"contextSufficiency"`
	ContextConflict    Verdict        `json:"contextConflict"`
}

// GenerationVerdicts mirror GenerationScores; Correctness is nil without a
// reference.
type GenerationVerdicts struct {
	Groundedness    Verdict  `json:"groundedness"`
	AnswerRelevance Verdict  `json:"answerRelevance"`
	Contradiction   Verdict  `json:"contradiction"`
	Correctness     *Verdict `json:"correctness,omitempty"`
}

// Verdicts are the policy's conclusions per decision.
type Verdicts struct {
	Retrieval  RetrievalVerdicts  `json:"retrieval"`
	Generation GenerationVerdicts `json:"generation"`
}

// Abstention records why a decision has no probability.
type Abstention struct {
	Decision  Decision `json:"decision"`
	ContextID string   `json:"contextId,omitempty"`
	Judge     string   `json:"judge,omitempty"`
	Reason    string   `json:"reason"`
	// Cause names the reason: CauseAbstained or CauseJudgeFailed for the
	// guard's own judges (CauseDeadline or CauseCancelled for one that did
	// not answer before the request ended), a fallback cause when the
	// escalator's abstention is what the result kept. Empty only in results written before causes
	// were recorded.
	Cause Cause `json:"cause,omitempty"`
}

// Err returns the abstention as a *CauseError (its Cause and Reason), so
// that errors.Is(a.Err(), guard.ErrFallbackDeadline) works. An abstention
// without a Cause (an old record) reads as CauseAbstained.
func (a *Abstention) Err() error {
	c := a.Cause
	if c == "" {
		c = CauseAbstained
	}
	return &CauseError{Cause: c, Reason: a.Reason}
}

// Result is the normalized outcome of one evaluation. Its JSON form is
// stable: see the README for the schema.
type Result struct {
	Retrieval  RetrievalScores  `json:"retrieval"`
	Generation GenerationScores `json:"generation"`
	Verdicts   Verdicts         `json:"verdicts"`

	Diagnosis  Diagnosis `json:"diagnosis"`
	Confidence float64   `json:"confidence"`
	Route      Route     `json:"route"`
	// Reason explains the diagnosis in one sentence.
	Reason string `json:"reason,omitempty"`
	// Action is what the host should do with the answer: allow it, block it,
	// or send it for review. See Guard.Evaluate.
	Action Action `json:"action"`

	DecisionID       string  `json:"decisionId"`
	DecisionVersion  string  `json:"decisionVersion"`
	DecisionVariant  Variant `json:"decisionVariant"`
	DiagnosisVersion string  `json:"diagnosisVersion"`

	// Evidence gathers the evidence of every estimate; never nil.
	Evidence []Evidence `json:"evidence"`
	// Citations map each answer sentence to its best supporting context span.
	Citations []Citation `json:"citations,omitempty"`
	// Abstentions says why each unknown probability is unknown.
	Abstentions []Abstention `json:"abstentions,omitempty"`
	// Withheld lists the verdicts the promise monitor withheld (see
	// WithMonitor): their decisions read as uncertain, and the answer was
	// escalated for them.
	Withheld []Withheld `json:"withheld,omitempty"`
	// Judges maps each judge name to its version.
	Judges map[string]string `json:"judges,omitempty"`
	// Errors lists the judges that failed; their decisions are uncertain.
	// Err returns them as one error.
	Errors []JudgeError `json:"errors,omitempty"`
	// Fallback records the escalation to the fallback judge, if any.
	Fallback *FallbackInfo `json:"fallback,omitempty"`
	// Claims lists the answer's atomic claims and their support, in claims
	// mode (WithClaims) only.
	Claims []Claim `json:"claims,omitempty"`
	// Usage sums what the judges spent.
	Usage     Usage   `json:"usage,omitzero"`
	LatencyMs float64 `json:"latencyMs"`

	// Features are the embedded judges' raw feature vectors (numbers, no
	// text), when a FeatureJudge estimated the sample.
	Features *Features `json:"features,omitempty"`
	// Draw records the teacher draw, whenever draws are configured
	// (WithDraws), drawn or not.
	Draw *Draw `json:"draw,omitempty"`
	// Teacher is the teacher's answer about a drawn result, once Teach has
	// run. It never changes the result's own verdicts.
	Teacher *Teacher `json:"teacher,omitempty"`

	// PassRule is the pass rule of the policy the result was judged under
	// (see PassRule); the built-in diagnosis reads it. Not part of the JSON
	// form: the reason names a rule that waived anything.
	PassRule PassRule `json:"-"`

	// Estimates are the raw estimates the result was built from, in the order
	// the judges returned them. Not part of the JSON form.
	Estimates []Estimate `json:"-"`
}

// Err returns the judges' failures (Errors) joined, each a *JudgeError,
// and nil when every judge worked. Evaluate does not return them as its
// error: the result is complete, the failed judges' decisions are uncertain
// and never pass. Use it where a failed judge must stop the work (a
// calibration run), or errors.Is(res.Err(), guard.ErrFallbackFailed) to
// tell who failed.
func (r *Result) Err() error {
	if len(r.Errors) == 0 {
		return nil
	}
	errs := make([]error, len(r.Errors))
	for i := range r.Errors {
		je := r.Errors[i]
		errs[i] = &je
	}
	return errors.Join(errs...)
}

// slots locates one decision's probability and verdict in a Result: it is
// the one place that maps a decision to its Result fields. The guard fills
// a result through it, and Prob, Verdict and Set read and write through it.
// ok is false for ChunkRelevance (keyed by context) and an invalid
// decision. For Correctness the verdict is nil when the result has none,
// unless alloc is set. It is a switch rather than a table of functions so
// that r does not escape: Evaluate keeps its Result on the stack.
func (r *Result) slots(d Decision, alloc bool) (p *Prob, v *Verdict, ok bool) {
	switch d {
	case ContextSufficiency:
		return &r.Retrieval.ContextSufficiency, &r.Verdicts.Retrieval.ContextSufficiency, true
	case ContextConflict:
		return &r.Retrieval.ContextConflict, &r.Verdicts.Retrieval.ContextConflict, true
	case AnswerRelevance:
		return &r.Generation.AnswerRelevance, &r.Verdicts.Generation.AnswerRelevance, true
	case Groundedness:
		return &r.Generation.Groundedness, &r.Verdicts.Generation.Groundedness, true
	case Contradiction:
		return &r.Generation.Contradiction, &r.Verdicts.Generation.Contradiction, true
	case Correctness:
		if r.Verdicts.Generation.Correctness == nil && alloc {
			r.Verdicts.Generation.Correctness = new(Verdict)
		}
		return &r.Generation.Correctness, r.Verdicts.Generation.Correctness, true
	}
	return nil, nil, false
}

// decisionFields are the probability and verdict of every decision but
// ChunkRelevance, by decision: what Result.slots locates, read at once.
// has is false where the result has no verdict (Correctness without a
// reference).
type decisionFields [numDecisions + 1]struct {
	p   Prob
	v   Verdict
	has bool
}

// fields reads every decision's fields into f, as slots locates them
// (TestDecisionFields checks that they agree): the diagnosis reads each
// decision twice, and one read of them all is cheaper than a slots call
// per decision and read.
func (r *Result) fields(f *decisionFields) {
	f[ContextSufficiency].p, f[ContextSufficiency].v = r.Retrieval.ContextSufficiency, r.Verdicts.Retrieval.ContextSufficiency
	f[ContextConflict].p, f[ContextConflict].v = r.Retrieval.ContextConflict, r.Verdicts.Retrieval.ContextConflict
	f[AnswerRelevance].p, f[AnswerRelevance].v = r.Generation.AnswerRelevance, r.Verdicts.Generation.AnswerRelevance
	f[Groundedness].p, f[Groundedness].v = r.Generation.Groundedness, r.Verdicts.Generation.Groundedness
	f[Contradiction].p, f[Contradiction].v = r.Generation.Contradiction, r.Verdicts.Generation.Contradiction
	f[Correctness].p = r.Generation.Correctness
	for d := ContextSufficiency; d < Correctness; d++ {
		f[d].has = true
	}
	if v := r.Verdicts.Generation.Correctness; v != nil {
		f[Correctness].v, f[Correctness].has = *v, true
	}
}

// Prob returns the probability of a decision other than ChunkRelevance (the
// zero, absent Prob for ChunkRelevance, whose probabilities are keyed by
// context in Retrieval.ChunkRelevance).
func (r *Result) Prob(d Decision) Prob {
	if p, _, ok := r.slots(d, false); ok {
		return *p
	}
	return Prob{}
}

// Verdict returns the verdict of a decision other than ChunkRelevance, and
// false when the decision is not part of the result (Correctness without a
// reference, ChunkRelevance, an invalid decision).
func (r *Result) Verdict(d Decision) (Verdict, bool) {
	if _, v, ok := r.slots(d, false); ok && v != nil {
		return *v, true
	}
	return Uncertain, false
}

// refuseOldKeys refuses a result written before the keys were the decision
// names: "sufficiency" and "conflict" in retrieval, "relevance" in
// generation. The error names the old keys and their new names. pairs holds
// old and new keys, in turn.
func refuseOldKeys(b []byte, pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if !bytes.Contains(b, []byte(`"`+pairs[i]+`"`)) {
			continue // the usual case: no old key, no second decoding
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(b, &raw); err != nil {
			return err
		}
		if _, ok := raw[pairs[i]]; ok {
			return fmt.Errorf("guard: result in the old format: key %q is now %q (old keys sufficiency, conflict, relevance; new keys contextSufficiency, contextConflict, answerRelevance)", pairs[i], pairs[i+1])
		}
	}
	return nil
}

// UnmarshalJSON reads the scores; a result with old keys is refused.
func (s *RetrievalScores) UnmarshalJSON(b []byte) error {
	type plain RetrievalScores
	if err := refuseOldKeys(b, "sufficiency", "contextSufficiency", "conflict", "contextConflict"); err != nil {
		return err
	}
	return json.Unmarshal(b, (*plain)(s))
}

// UnmarshalJSON reads the scores; a result with an old key is refused.
func (s *GenerationScores) UnmarshalJSON(b []byte) error {
	type plain GenerationScores
	if err := refuseOldKeys(b, "relevance", "answerRelevance"); err != nil {
		return err
	}
	return json.Unmarshal(b, (*plain)(s))
}

// UnmarshalJSON reads the verdicts; a result with old keys is refused.
func (v *RetrievalVerdicts) UnmarshalJSON(b []byte) error {
	type plain RetrievalVerdicts
	if err := refuseOldKeys(b, "sufficiency", "contextSufficiency", "conflict", "contextConflict"); err != nil {
		return err
	}
	return json.Unmarshal(b, (*plain)(v))
}

// UnmarshalJSON reads the verdicts; a result with an old key is refused.
func (v *GenerationVerdicts) UnmarshalJSON(b []byte) error {
	type plain GenerationVerdicts
	if err := refuseOldKeys(b, "relevance", "answerRelevance"); err != nil {
		return err
	}
	return json.Unmarshal(b, (*plain)(v))
}

// Set sets the probability and verdict of a decision other than
// ChunkRelevance (for Correctness it makes the decision part of the
// result). It is for code that rebuilds a Result from a record; it panics
// for ChunkRelevance and an invalid decision, whose values have no single
// field.
func (r *Result) Set(d Decision, p Prob, v Verdict) {
	pp, vp, ok := r.slots(d, true)
	if !ok {
		panic(fmt.Sprintf("guard: Result.Set: %v has no single field", d))
	}
	*pp, *vp = p, v
}
