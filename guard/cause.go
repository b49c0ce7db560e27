package guard

import (
	"context"
	"errors"
)

// A Cause says, with a stable name, why a decision has no probability or why
// an escalated decision stayed unsettled. It is the one thing code matches:
// reason texts are for people. Results carry a cause beside every reason
// (Abstention, JudgeError, FallbackInfo, Claim). Each cause has one
// sentinel error (Err). errors.Is works with it on the errors a Result
// gives: Result.Err and the Err methods of Abstention, FallbackInfo and
// Estimate.
//
// The names are part of the JSON form and of telemetry, and never change
// meaning. The zero Cause is "no cause": an estimate that was given.
type Cause string

// The causes. The first four are about the guard's own judges; the others
// about the fallback an escalation was sent to (package cascade sets them
// on the estimates it returns abstained). CauseDeadline and CauseCancelled
// are also what an embedded judge (package lexical) gives when the request
// ends while it works.
const (
	// CauseAbstained: a primary judge could not tell, left the decision
	// out, or no judge is bound to it (the reason says which).
	CauseAbstained Cause = "abstained"
	// CauseJudgeFailed: the judge failed (it is listed in Result.Errors).
	CauseJudgeFailed Cause = "judge_failed"
	// CauseInputTooLarge: the sample is larger than a primary judge's work
	// budget allows it to read whole (package lexical's Limits); the reason
	// says which limit and by how much. The judge abstains rather than read
	// part of it.
	CauseInputTooLarge Cause = "input_too_large"
	// CausePromiseBroken: the promise monitor (WithMonitor) found that this
	// side of the decision disagrees with the teacher more often than its
	// promise allows, so the guard withholds the verdict it would have
	// given (Result.Withheld) and the decision reads as uncertain. It is
	// never an abstention's or the fallback's cause.
	CausePromiseBroken Cause = "promise_broken"

	// CauseBreakerOpen: the fallback's circuit breaker was open (or
	// half-open with its probe calls under way).
	CauseBreakerOpen Cause = "breaker_open"
	// CauseDeadline: too little time was left before the request's deadline
	// for the fallback to answer, or it did not answer in that time; or the
	// deadline passed while an embedded judge was still working.
	CauseDeadline Cause = "deadline"
	// CauseBudget: the fallback's call or token budget was spent.
	CauseBudget Cause = "budget"
	// CauseShare: the escalation was not admitted within the share of
	// answers the fallback may see (package cascade's Limits.Share): its
	// risk ranked below the share's quantile and the uniform draw for the
	// rest did not pick it.
	CauseShare Cause = "share"
	// CauseConcurrency: the fallback's concurrency limit was reached with
	// no room to wait.
	CauseConcurrency Cause = "concurrency"
	// CauseClosed: the escalator was closed.
	CauseClosed Cause = "closed"
	// CauseCancelled: the request was cancelled (its context, before its
	// deadline) before the fallback answered.
	CauseCancelled Cause = "cancelled"
	// CauseFallbackFailed: the fallback judge (or the escalator) failed.
	CauseFallbackFailed Cause = "fallback_failed"
	// CauseFallbackAbstained: the fallback answered but could not tell, or
	// left the decision out.
	CauseFallbackAbstained Cause = "fallback_abstained"
	// CauseFallbackUncertain: the fallback gave a probability between its
	// policy's thresholds. Nothing failed, so it has no sentinel error; it
	// appears only in FallbackInfo.Causes, so that those add up to
	// FallbackInfo.Unsettled.
	CauseFallbackUncertain Cause = "fallback_uncertain"
)

// Causes lists every cause, in the order reports show them.
var Causes = []Cause{
	CauseAbstained, CauseJudgeFailed, CauseInputTooLarge, CausePromiseBroken,
	CauseBreakerOpen, CauseDeadline, CauseBudget, CauseShare, CauseConcurrency, CauseClosed, CauseCancelled,
	CauseFallbackFailed, CauseFallbackAbstained, CauseFallbackUncertain,
}

// The sentinel errors of the causes, one per cause. Cause.Err returns them,
// and every error a Result gives for a cause wraps one. For example,
// errors.Is(res.Fallback.Err(), guard.ErrFallbackBudget) reports whether the
// fallback's budget left a decision unsettled. ErrJudge is
// CauseJudgeFailed's. Package cascade uses these same values.
var (
	ErrAbstained           = errors.New("judge abstained")
	ErrInputTooLarge       = errors.New("input too large for the judge's work budget")
	ErrPromiseBroken       = errors.New("promise broken: the monitor withheld the verdict")
	ErrFallbackBreakerOpen = errors.New("fallback circuit breaker open")
	ErrFallbackDeadline    = errors.New("fallback deadline too near")
	ErrFallbackBudget      = errors.New("fallback budget spent")
	ErrFallbackShare       = errors.New("fallback share spent")
	ErrFallbackConcurrency = errors.New("fallback concurrency limit reached")
	ErrFallbackClosed      = errors.New("fallback escalator closed")
	ErrFallbackCancelled   = errors.New("request ended before the fallback answered")
	ErrFallbackFailed      = errors.New("fallback failed")
	ErrFallbackAbstained   = errors.New("fallback abstained")
)

// Err returns the cause's sentinel error: nil for the zero Cause,
// CauseFallbackUncertain and a name this version does not know.
func (c Cause) Err() error {
	switch c {
	case CauseAbstained:
		return ErrAbstained
	case CauseJudgeFailed:
		return ErrJudge
	case CauseInputTooLarge:
		return ErrInputTooLarge
	case CausePromiseBroken:
		return ErrPromiseBroken
	case CauseBreakerOpen:
		return ErrFallbackBreakerOpen
	case CauseDeadline:
		return ErrFallbackDeadline
	case CauseBudget:
		return ErrFallbackBudget
	case CauseShare:
		return ErrFallbackShare
	case CauseConcurrency:
		return ErrFallbackConcurrency
	case CauseClosed:
		return ErrFallbackClosed
	case CauseCancelled:
		return ErrFallbackCancelled
	case CauseFallbackFailed:
		return ErrFallbackFailed
	case CauseFallbackAbstained:
		return ErrFallbackAbstained
	}
	return nil
}

// Known reports whether c is one of Causes.
func (c Cause) Known() bool {
	for _, k := range Causes {
		if c == k {
			return true
		}
	}
	return false
}

// CauseOf returns the cause whose sentinel err wraps, "" when none. An
// error that wraps several (a JudgeError of the escalator wraps ErrJudge and
// its own cause) gives the most specific: CauseInputTooLarge,
// CausePromiseBroken or a fallback cause before CauseJudgeFailed and
// CauseAbstained.
func CauseOf(err error) Cause {
	if err == nil {
		return ""
	}
	for _, c := range Causes[2:] {
		if s := c.Err(); s != nil && errors.Is(err, s) {
			return c
		}
	}
	for _, c := range Causes[:2] {
		if errors.Is(err, c.Err()) {
			return c
		}
	}
	return ""
}

// CauseError is the error form of a cause with its reason text. Error
// returns the reason, or the sentinel's text when the reason is empty.
// Unwrap returns the sentinel, so errors.Is(err, guard.ErrFallbackBudget)
// works on it.
type CauseError struct {
	Cause  Cause
	Reason string
}

func (e *CauseError) Error() string {
	if e.Reason != "" {
		return e.Reason
	}
	if s := e.Cause.Err(); s != nil {
		return s.Error()
	}
	return "guard: cause " + string(e.Cause)
}

// Unwrap returns the cause's sentinel error (nil for a cause without one).
func (e *CauseError) Unwrap() error { return e.Cause.Err() }

// escalatorCause is the cause of an escalator's error: the one it wraps,
// else the request's end (cancelled, or its deadline passed), else
// CauseFallbackFailed. The request's end is read from the error, and then
// from ctx: an error that wraps nothing, returned after ctx ended, is the
// request's end too.
func escalatorCause(ctx context.Context, err error) Cause {
	if c := CauseOf(err); c != "" && c != CauseJudgeFailed && c != CauseAbstained {
		return c
	}
	for _, e := range []error{err, ended(ctx)} {
		switch {
		case errors.Is(e, context.DeadlineExceeded):
			return CauseDeadline
		case errors.Is(e, context.Canceled):
			return CauseCancelled
		}
	}
	return CauseFallbackFailed
}
