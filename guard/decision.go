package guard

import (
	"encoding/json"
	"fmt"
)

// Decision names one atomic question a judge answers with a probability that
// it is true. The zero Decision is invalid.
type Decision uint8

// The seven decisions of a RAG answer. Retrieval decisions come first.
const (
	// ChunkRelevance: does this context hold information relevant to the
	// question? One estimate per context.
	ChunkRelevance Decision = iota + 1
	// ContextSufficiency: does the set of contexts hold enough to answer the
	// question? A set-level judgment, never an average of chunk relevance.
	ContextSufficiency
	// ContextConflict: do the contexts materially disagree on something the
	// answer depends on? True is the bad outcome.
	ContextConflict
	// AnswerRelevance: does the answer address the question?
	AnswerRelevance
	// Groundedness: is every claim of the answer supported by the contexts?
	Groundedness
	// Contradiction: does the answer contradict the contexts? True is the bad
	// outcome; different from "unsupported".
	Contradiction
	// Correctness: is the answer consistent with the reference answer? Only
	// asked when the sample has a reference.
	Correctness

	numDecisions = iota
)

// Decisions lists every decision in a stable order.
var Decisions = []Decision{ChunkRelevance, ContextSufficiency, ContextConflict, AnswerRelevance, Groundedness, Contradiction, Correctness}

var decisionNames = [...]string{
	ChunkRelevance:     "chunk_relevance",
	ContextSufficiency: "context_sufficiency",
	ContextConflict:    "context_conflict",
	AnswerRelevance:    "answer_relevance",
	Groundedness:       "groundedness",
	Contradiction:      "contradiction",
	Correctness:        "correctness",
}

// String returns the decision's stable snake_case name, e.g. "groundedness".
func (d Decision) String() string {
	if d.Valid() {
		return decisionNames[d]
	}
	return fmt.Sprintf("Decision(%d)", uint8(d))
}

var decisionKeys = [...]string{
	ChunkRelevance:     "chunkRelevance",
	ContextSufficiency: "contextSufficiency",
	ContextConflict:    "contextConflict",
	AnswerRelevance:    "answerRelevance",
	Groundedness:       "groundedness",
	Contradiction:      "contradiction",
	Correctness:        "correctness",
}

// JSONKey returns the decision's name in camelCase, e.g. "contextConflict":
// the key of its probability and verdict in a result's and a report's JSON.
// It is the one spelling of [Decision.String] in another case.
func (d Decision) JSONKey() string {
	if d.Valid() {
		return decisionKeys[d]
	}
	return d.String()
}

// DecisionNames returns the names of all decisions in the stable order of
// [Decisions], joined by ", " — what an error about an unknown name lists.
func DecisionNames() string {
	var b []byte
	for i, d := range Decisions {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, decisionNames[d]...)
	}
	return string(b)
}

// Valid reports whether d is one of the seven decisions.
func (d Decision) Valid() bool { return d >= ChunkRelevance && d <= Correctness }

// Retrieval reports whether d judges retrieval (as opposed to generation).
func (d Decision) Retrieval() bool { return d >= ChunkRelevance && d <= ContextConflict }

// Adverse reports whether "true" is the bad outcome for d (conflict,
// contradiction). P is always P(d's proposition is true); for an adverse
// decision a confidently low P is the healthy verdict Pass.
func (d Decision) Adverse() bool { return d == ContextConflict || d == Contradiction }

// AnswerVerdict turns a verdict on d's proposition (Pass = confidently
// true, as [Thresholds.Verdict] gives it) into the verdict on the answer
// (Pass = healthy). It swaps Pass and Fail for the adverse decisions and
// returns v unchanged for the others; [Decision.PropositionVerdict] undoes it.
func (d Decision) AnswerVerdict(v Verdict) Verdict {
	if !d.Adverse() {
		return v
	}
	switch v {
	case Pass:
		return Fail
	case Fail:
		return Pass
	}
	return v
}

// PropositionVerdict turns the verdict on the answer back into the verdict on
// d's proposition (Pass = P ≥ the pass threshold): the inverse of
// [Decision.AnswerVerdict], which is its own inverse.
func (d Decision) PropositionVerdict(v Verdict) Verdict { return d.AnswerVerdict(v) }

// ParseDecision returns the decision with the given name.
func ParseDecision(name string) (Decision, error) {
	for d := ChunkRelevance; d <= Correctness; d++ {
		if decisionNames[d] == name {
			return d, nil
		}
	}
	return 0, fmt.Errorf("guard: unknown decision %q (valid: %s)", name, DecisionNames())
}

// MarshalText implements encoding.TextMarshaler.
func (d Decision) MarshalText() ([]byte, error) {
	if !d.Valid() {
		return nil, fmt.Errorf("guard: invalid decision %d", uint8(d))
	}
	return []byte(decisionNames[d]), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Decision) UnmarshalText(b []byte) error {
	v, err := ParseDecision(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// Variant says whether a definition set judges with or without a reference
// answer.
type Variant string

const (
	WithReference    Variant = "with-reference"
	WithoutReference Variant = "without-reference"
	// Mixed is what a report over both kinds of results says.
	Mixed Variant = "mixed"
)

// Definition is the versioned wording of one decision within a set. Judges
// that answer a decision answer this question.
type Definition struct {
	Decision Decision `json:"decision"`
	ID       string   `json:"id"`
	Version  string   `json:"version"`
	Question string   `json:"question"`
}

// DefinitionSet is the versioned set of decisions a result answers. The two
// sets (with and without a reference) have distinct IDs, so results of the
// two kinds are never mixed up.
type DefinitionSet struct {
	ID          string       `json:"id"`
	Version     string       `json:"version"`
	Variant     Variant      `json:"variant"`
	Definitions []Definition `json:"definitions"`
}

// Lookup returns the definition of d in the set.
func (s *DefinitionSet) Lookup(d Decision) (Definition, bool) {
	for _, def := range s.Definitions {
		if def.Decision == d {
			return def, true
		}
	}
	return Definition{}, false
}

// DefinitionsVersion is the version of both built-in definition sets. It
// changes whenever the wording of any decision changes.
const DefinitionsVersion = "1.0.0"

func definitions(v Variant) DefinitionSet {
	prefix := "ragtriage.rag." + string(v) + "."
	qs := []struct {
		d Decision
		q string
	}{
		{ChunkRelevance, "Does this context hold information relevant to answering the question?"},
		{ContextSufficiency, "Do the contexts, taken together, hold enough information to answer the question?"},
		{ContextConflict, "Do the contexts materially disagree about something the answer depends on?"},
		{AnswerRelevance, "Does the answer address the question that was asked (an honest refusal counts)?"},
		{Groundedness, "Is every claim in the answer supported by the contexts?"},
		{Contradiction, "Does the answer state something the contexts contradict?"},
		{Correctness, "Is the answer consistent with the reference answer?"},
	}
	set := DefinitionSet{ID: "ragtriage.rag." + string(v), Version: DefinitionsVersion, Variant: v}
	for _, x := range qs {
		if x.d == Correctness && v == WithoutReference {
			continue
		}
		set.Definitions = append(set.Definitions, Definition{Decision: x.d, ID: prefix + x.d.String(), Version: DefinitionsVersion, Question: x.q})
	}
	return set
}

var (
	withRef    = definitions(WithReference)
	withoutRef = definitions(WithoutReference)
)

// Definitions returns the built-in definition set for a variant. The
// with-reference set has all seven decisions; the without-reference set omits
// Correctness. The returned value is a copy.
func Definitions(v Variant) DefinitionSet {
	src := withoutRef
	if v == WithReference {
		src = withRef
	}
	src.Definitions = append([]Definition(nil), src.Definitions...)
	return src
}

var _ json.Marshaler = Verdict(0)
