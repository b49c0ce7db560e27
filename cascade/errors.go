package cascade

import "github.com/ragtriage/ragtriage/guard"

// The causes of an abstention. Every estimate the cascade returns abstained
// carries one: its Estimate.Cause names it (guard.CauseBudget, …) and
// Estimate.Err returns an error that wraps the sentinel below with the
// detail of the Reason, so that
//
//	errors.Is(est.Err(), cascade.ErrBudget)
//
// tells a budget refusal without reading the Reason's text. The sentinels
// are the guard's (cascade.ErrBudget is guard.ErrFallbackBudget: the same
// value), so the same check works on what a guard.Result carries, where the
// cascade is not known: its Abstentions, Fallback.Err() and the records and
// reports made from it.
var (
	// ErrBreakerOpen: the breaker was open, or half-open with its probe
	// calls under way (ReasonBreakerOpen).
	ErrBreakerOpen = guard.ErrFallbackBreakerOpen
	// ErrDeadline: too little time was left for the fallback, no slot
	// freed in time, or it did not answer before the caller's deadline
	// (ReasonDeadline; also ReasonCancelled when it was the caller's
	// deadline that ended the request, which Stats counts as Cancelled).
	ErrDeadline = guard.ErrFallbackDeadline
	// ErrBudget: the call or token budget was spent (ReasonBudget).
	ErrBudget = guard.ErrFallbackBudget
	// ErrConcurrency: MaxConcurrent calls were under way and MaxWaiting
	// waiting (ReasonConcurrency).
	ErrConcurrency = guard.ErrFallbackConcurrency
	// ErrClosed: Close was called (ReasonClosed).
	ErrClosed = guard.ErrFallbackClosed
	// ErrCancelled: the caller's context was cancelled before the fallback
	// answered (ReasonCancelled, its deadline not passed).
	ErrCancelled = guard.ErrFallbackCancelled
	// ErrFallbackFailed: the fallback returned an error, panicked or gave a
	// malformed answer (ReasonFailed).
	ErrFallbackFailed = guard.ErrFallbackFailed
	// ErrFallbackAbstained: the fallback itself abstained (with its own
	// reason), or left the estimate out (ReasonNoEstimate).
	ErrFallbackAbstained = guard.ErrFallbackAbstained
)

// cause is the guard.Cause of a refusal.
func (r refusal) cause() guard.Cause {
	switch r {
	case refBreaker:
		return guard.CauseBreakerOpen
	case refDeadline:
		return guard.CauseDeadline
	case refBudget:
		return guard.CauseBudget
	case refConcurrency:
		return guard.CauseConcurrency
	case refClosed:
		return guard.CauseClosed
	case refCancelled:
		return guard.CauseCancelled
	case refFailed:
		return guard.CauseFallbackFailed
	case refAbstained:
		return guard.CauseFallbackAbstained
	}
	return ""
}
