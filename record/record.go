package record

import (
	"encoding/json"
	"time"

	"github.com/ragtriage/ragtriage/guard"
)

// Version names the record format below. It changes when a field
// changes meaning; new optional fields keep it.
//
// Version 2: a verdict speaks for the answer ("pass" is healthy for every
// decision), and the result's keys are the decision names in camelCase.
// Version 1 records ("ragtriage.record/1") said the opposite for
// context_conflict and contradiction; readers refuse them.
const Version = "ragtriage.record/2"

// A Record is one evaluated request as the middleware's record sink writes it:
// one JSON line per request. `ragtriage eval -records FILE` replays records
// and joins labels to them by ID from a dataset file.
//
// Sample is absent when the application did not opt in to content capture;
// such a record can be scored from its Result but not re-judged.
type Record struct {
	Version string    `json:"recordVersion"`
	ID      string    `json:"id"`
	Time    time.Time `json:"time"`
	// TraceID and SpanID link the record to the evaluation span (hex, as
	// OpenTelemetry prints them), when tracing was on.
	TraceID string `json:"traceId,omitempty"`
	SpanID  string `json:"spanId,omitempty"`
	// Sample is what was evaluated, when content capture was on.
	Sample *Sample `json:"sample,omitempty"`
	// Result is the guard's result. Since the typed causes (guard.Cause)
	// its abstentions, errors and fallback carry a "cause" (and the
	// fallback "causes"); they are new optional fields, so the version
	// stays: older records read as before, without causes, and reports
	// count their unsettled decisions and abstentions as "unrecorded".
	Result guard.Result `json:"result"`
	// EvidenceKinds sums up the result's evidence as sorted, unique
	// "decision:kind" strings ("groundedness:number_mismatch"), as the
	// evaluation span's ragtriage.evidence.kinds attribute does. It holds
	// no text, so the middleware writes it with or without content
	// capture. A decision or kind outside the fixed lists (a custom
	// judge's) is "other". It is a new optional field, so the version
	// stays: a record without it had no evidence, or predates it.
	EvidenceKinds []string `json:"evidenceKinds,omitempty"`
	// Legs holds latency and usage per leg of the evaluation: "primary" (the
	// guard's own judges) and, when the answer was escalated, "fallback".
	Legs []Leg `json:"legs,omitempty"`
	// Metadata is free-form, copied from the sample.
	Metadata map[string]any `json:"metadata,omitempty"`
	// TimedOut says the evaluation was a shadow evaluation whose deadline
	// (middleware.ShadowConfig.Timeout) passed before the evaluator
	// returned: Result is what it returned then, the decisions it could not
	// finish uncertain (Result.Errors says which judge failed).
	TimedOut bool `json:"timedOut,omitempty"`
}

// Sample is the content of a recorded sample, in the dataset shape.
type Sample struct {
	Question  string    `json:"question"`
	Contexts  []Context `json:"contexts"`
	Answer    string    `json:"answer"`
	Reference *string   `json:"referenceAnswer,omitempty"`
	// OriginalQuestion is the user's question before a chain condensed it
	// (ConversationalRetrievalQA), when it differs from Question.
	OriginalQuestion string `json:"originalQuestion,omitempty"`
}

// Context is one retrieved context.
type Context struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// Leg is the cost of one leg of an evaluation.
type Leg struct {
	Name      string      `json:"name"` // "primary" or "fallback"
	Judge     string      `json:"judge,omitempty"`
	LatencyMs float64     `json:"latencyMs"`
	Usage     guard.Usage `json:"usage,omitzero"`
	// Retries is set only when the judge reported retries.
	Retries int `json:"retries,omitempty"`
}

// NewSample copies a guard.Sample into a Sample.
func NewSample(s *guard.Sample) *Sample {
	rs := &Sample{Question: s.Question, Answer: s.Answer, Reference: s.Reference,
		Contexts: make([]Context, len(s.Contexts))}
	for i, c := range s.Contexts {
		rs.Contexts[i] = Context{ID: c.ID, Text: c.Text}
	}
	return rs
}

// GuardSample converts a recorded sample back to a guard.Sample.
func (rs *Sample) GuardSample(id string) guard.Sample {
	s := guard.Sample{ID: id, Question: rs.Question, Answer: rs.Answer, Reference: rs.Reference,
		Contexts: make([]guard.Context, len(rs.Contexts))}
	for i, c := range rs.Contexts {
		s.Contexts[i] = guard.Context{ID: c.ID, Text: c.Text}
	}
	return s
}

// Marshal returns r as one JSON line (with the trailing newline),
// filling Version when it is empty.
func Marshal(r *Record) ([]byte, error) {
	if r.Version == "" {
		r.Version = Version
	}
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
