package guard

import (
	"errors"
	"fmt"
	"sync/atomic"
)

// A judge that is not Inline runs on a goroutine of its own, so that
// Evaluate can return when ctx ends even if the judge does not. When it does
// not, its call is abandoned: the goroutine goes on until the judge returns.
// A judge that ignores cancellation would leave such goroutines behind
// without bound, so a Guard counts them and, past a limit, stops calling
// judges on goroutines of their own until enough have returned.

// DefaultAbandonLimit is the number of abandoned judge calls a Guard lets
// run at once unless WithAbandonLimit says otherwise.
const DefaultAbandonLimit = 256

// ErrAbandonLimit is the error of a judge call the guard did not make
// because AbandonedCalls.Outstanding had reached the limit. The call's
// decisions are uncertain, as for any failed judge (Result.Errors names the
// judge).
var ErrAbandonLimit = errors.New("judge not called: too many earlier judge calls have not returned since their context ended")

// AbandonedCalls counts the judge calls a Guard stopped waiting for because
// their context ended first.
type AbandonedCalls struct {
	// Outstanding is the number of abandoned calls whose judge has not
	// returned yet: each holds a goroutine.
	Outstanding int64
	// Total counts the calls abandoned since New, returned or not.
	Total uint64
	// Refused counts the judge calls not made because Outstanding had
	// reached Limit (each failed with ErrAbandonLimit).
	Refused uint64
	// Limit is the guard's bound on Outstanding.
	Limit int
}

// WithAbandonLimit bounds the abandoned judge calls (see AbandonedCalls)
// that may be outstanding at once; zero means DefaultAbandonLimit. Once the
// bound is reached, a judge that would run on a goroutine of its own is not
// called (its decisions are uncertain, with ErrAbandonLimit) until one
// returns. Calls already under way when the bound is reached may still be
// abandoned, so Outstanding can exceed n by the number of calls in flight
// at that moment, never by more.
func WithAbandonLimit(n int) Option {
	return func(g *Guard) error {
		if n < 0 {
			return fmt.Errorf("guard: WithAbandonLimit: negative limit %d", n)
		}
		g.abandon.limit = n
		return nil
	}
}

// Abandoned returns the guard's abandoned-call counts.
func (g *Guard) Abandoned() AbandonedCalls {
	return AbandonedCalls{
		Outstanding: g.abandon.outstanding.Load(),
		Total:       g.abandon.total.Load(),
		Refused:     g.abandon.refused.Load(),
		Limit:       g.abandon.max(),
	}
}

// abandonState is a Guard's count of abandoned judge calls.
type abandonState struct {
	limit       int // 0: DefaultAbandonLimit
	outstanding atomic.Int64
	total       atomic.Uint64
	refused     atomic.Uint64
}

func (a *abandonState) max() int {
	if a.limit == 0 {
		return DefaultAbandonLimit
	}
	return a.limit
}

// admit reports whether a judge may be called on a goroutine of its own; if
// not, it counts the refusal and returns the error to report.
func (a *abandonState) admit() error {
	n, lim := a.outstanding.Load(), a.max()
	if n < int64(lim) {
		return nil
	}
	a.refused.Add(1)
	return fmt.Errorf("%w (%d outstanding, limit %d)", ErrAbandonLimit, n, lim)
}

// The states of one judge call on its own goroutine.
const (
	callRunning uint32 = iota
	callReturned
	callAbandoned
)

// judgeCall is one judge call on a goroutine of its own.
type judgeCall struct {
	reply chan judgeReply // buffered: the goroutine never blocks on it
	state atomic.Uint32
}

type judgeReply struct {
	out []Estimate
	err error
}

// finish is called by the judge's goroutine once the judge has returned.
func (a *abandonState) finish(c *judgeCall) {
	if c.state.Swap(callReturned) == callAbandoned {
		a.outstanding.Add(-1)
	}
}

// leave is called by the caller when ctx ended before the judge returned.
func (a *abandonState) leave(c *judgeCall) {
	a.outstanding.Add(1) // before the swap, so that finish never drives it below zero
	if c.state.CompareAndSwap(callRunning, callAbandoned) {
		a.total.Add(1)
		return
	}
	a.outstanding.Add(-1) // the judge returned meanwhile
}
