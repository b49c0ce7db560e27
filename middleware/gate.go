package middleware

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ragtriage/ragtriage/guard"
)

// Enforcement is what an inline gate does with an answer it does not allow.
// The zero Enforcement, ReturnError, is the safe one: the caller gets no
// answer.
type Enforcement uint8

const (
	// ReturnError makes the chain return a *GateError (and no outputs).
	ReturnError Enforcement = iota
	// ReplaceAnswer replaces the answer in the outputs with Gate.FallbackText.
	// When the answer is not a string output of the chain (it came from the
	// LLM capture), there is nothing to replace and the gate returns a
	// *GateError instead.
	ReplaceAnswer
	// AnnotateOnly leaves the outputs alone; the Outcome (WithOutcome,
	// WithResultKey) and the spans say what the guard found.
	AnnotateOnly
)

func (e Enforcement) String() string {
	switch e {
	case ReturnError:
		return "return_error"
	case ReplaceAnswer:
		return "replace_answer"
	case AnnotateOnly:
		return "annotate_only"
	}
	return fmt.Sprintf("Enforcement(%d)", uint8(e))
}

// DefaultFallbackText is what ReplaceAnswer puts in place of the answer when
// Gate.FallbackText is empty.
const DefaultFallbackText = "I can't give a reliable answer to that from the documents I have."

// Gate says what inline evaluation does with each guard.Action of a result
// (Result.Action). Allow always lets the answer through. Block and Review
// follow the Enforcement set for them. The zero Gate returns an error for
// both, so nothing unverified reaches the caller.
type Gate struct {
	// Block applies when the guard blocks the answer: a confident failure,
	// or an escalation the fallback could not settle under a fail-closed
	// rule.
	Block Enforcement
	// Review applies when the guard could not decide (JUDGE_UNCERTAIN with
	// no fallback to settle it) or could not evaluate at all.
	Review Enforcement
	// FallbackText replaces the answer under ReplaceAnswer. Empty:
	// DefaultFallbackText.
	FallbackText string
}

func (g Gate) validate() error {
	for _, e := range []Enforcement{g.Block, g.Review} {
		if e > AnnotateOnly {
			return fmt.Errorf("middleware: Gate: invalid enforcement %d", uint8(e))
		}
	}
	return nil
}

func (g Gate) forAction(a guard.Action) (Enforcement, bool) {
	switch a {
	case guard.Allow:
		return AnnotateOnly, false
	case guard.Block:
		return g.Block, true
	}
	return g.Review, true
}

// ErrBlocked is wrapped by a *GateError whose action is Block.
var ErrBlocked = errors.New("answer blocked by the guard")

// ErrReview is wrapped by a *GateError whose action is Review: the guard
// could not decide, or could not evaluate.
var ErrReview = errors.New("answer needs review")

// GateError is the error a wrapped chain returns when its gate stops an
// answer. errors.Is(err, ErrBlocked) or errors.Is(err, ErrReview) tells
// which; errors.As gives the result.
type GateError struct {
	// ID is the sample's ID.
	ID string
	// Action is Block or Review.
	Action guard.Action
	// Result is the guard's result; nil when the guard gave none (see Err).
	Result *guard.Result
	// Err is why there is no result (an invalid sample, nothing captured),
	// or nil.
	Err error
}

func (e *GateError) Error() string {
	var b strings.Builder
	b.WriteString("middleware: ")
	if e.Action == guard.Block {
		b.WriteString(ErrBlocked.Error())
	} else {
		b.WriteString(ErrReview.Error())
	}
	if e.Result != nil {
		fmt.Fprintf(&b, ": %s", e.Result.Diagnosis)
		if e.Result.Reason != "" {
			fmt.Fprintf(&b, " (%s)", e.Result.Reason)
		}
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	return b.String()
}

// Unwrap returns ErrBlocked or ErrReview, and Err when set.
func (e *GateError) Unwrap() []error {
	kind := ErrReview
	if e.Action == guard.Block {
		kind = ErrBlocked
	}
	if e.Err != nil {
		return []error{kind, e.Err}
	}
	return []error{kind}
}

// ErrNoRetrieval is reported when a wrapped chain call finished without any
// wrapped retriever being called: the guard cannot judge an answer whose
// contexts it never saw. Wrap the chain's retriever with WrapRetriever (Wrap
// does this itself for RetrievalQA and ConversationalRetrievalQA).
var ErrNoRetrieval = errors.New("no retrieval captured: wrap the chain's retriever with WrapRetriever")

// ErrNoAnswer is reported when a wrapped chain call produced no string
// answer in its outputs and no wrapped LLM generated one.
var ErrNoAnswer = errors.New("no answer captured: set WithAnswerKey or wrap the LLM with WrapLLM")
