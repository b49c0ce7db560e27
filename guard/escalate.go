package guard

import (
	"context"
	"errors"
	"fmt"
)

// An Escalator settles the decisions the guard's own judges left uncertain:
// it is the fallback path of the cascade (package cascade implements it
// around a slower judge with a circuit breaker, cache, deadline and budget).
//
// The guard calls Escalate only when its own outcome routes to the fallback
// (the diagnosis is JUDGE_UNCERTAIN), and only for the uncertain decisions.
// Escalate returns estimates the same way a Judge does; an estimate it
// cannot give is returned with Abstained set, a Reason ("circuit breaker
// open", "budget spent", …) and a Cause (CauseBudget, …; empty reads as
// CauseFallbackAbstained), or left out. A returned error makes every
// escalated decision uncertain and is reported like a judge failure, with
// the cause the error wraps (one of the ErrFallback… sentinels), else
// CauseFallbackFailed.
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
	// when a primary judge failed or the request's context had ended
	// (cancelled or past its deadline) before the escalation, the action is
	// Review, never Allow.
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

// FallbackInfo records an escalation in a Result.
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
	// thresholds. The counts add up to Unsettled. (Results written before
	// causes were recorded have none.)
	Causes map[Cause]int `json:"causes,omitempty"`
	// Rule is the degrade rule that applied to the unsettled decisions.
	Rule      Degrade `json:"rule"`
	LatencyMs float64 `json:"latencyMs"`
	// Usage sums what the fallback spent on this result (zero for cache
	// hits). It is also included in Result.Usage.
	Usage Usage `json:"usage,omitzero"`
}

// Err returns nil when the fallback left nothing unsettled for a reason
// that has a sentinel (it may still have answered some decisions between
// its thresholds); otherwise the causes in Causes joined, each a
// *CauseError (Cause's with Reason), so that errors.Is(f.Err(),
// guard.ErrFallbackBudget) reports whether the budget left a decision
// unsettled.
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

// WithEscalator sends the decisions the guard's judges leave uncertain to e,
// and reads e's estimates with policy p. rule decides Result.Action when e
// cannot settle them.
//
// p must be valid and set thresholds for every decision: a decision left
// unset would be asked of the fallback, and paid for, and its answer never
// read (the zero policy would settle nothing at all). UniformPolicy builds
// one; a decision the fallback must not settle can be marked Undecided().
// A nil escalator, or a nil pointer in an Escalator, is refused.
//
// The guard does not own e: whoever created it closes it (a cascade's
// Close), after the last Evaluate. ragtriage.New builds the embedded
// judges, the cascade and this option in one call, and closes the cascade
// with the guard.
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
		return nil
	}
}

type escalation struct {
	e      Escalator
	policy Policy
	rule   Degrade
	name   string
}

func describe(v any) string {
	if d, ok := v.(Describer); ok {
		if n := d.Describe().Name; n != "" {
			return n
		}
	}
	return fmt.Sprintf("%T", v)
}
