package cascade

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/ragtriage/ragtriage/guard"
)

// causes are the causes of the cascade's abstentions, the index of their
// counters.
var causes = [...]guard.Cause{
	guard.CauseBreakerOpen, guard.CauseDeadline, guard.CauseBudget, guard.CauseShare, guard.CauseConcurrency,
	guard.CauseClosed, guard.CauseCancelled, guard.CauseFallbackFailed, guard.CauseFallbackAbstained,
}

// causeIndex returns the index of c in causes (c is one of them).
func causeIndex(c guard.Cause) int {
	for i, x := range causes {
		if x == c {
			return i
		}
	}
	panic("cascade: no counter for cause " + string(c))
}

type counters struct {
	escalations, requested, hits, misses, settled  atomic.Uint64
	abstained                                      [len(causes)]atomic.Uint64 // by causeIndex
	calls, callErrors, excluded, collapsed, probes atomic.Uint64
	trips, inTokens, outTokens                     atomic.Uint64
	sharedHits, storeFallbacks                     atomic.Uint64
}

// count records one estimate abstained for cause c. Refusals (the fallback
// was not asked) are also counted in the refusals metric.
func (c *Cascade) count(ctx context.Context, cause guard.Cause) {
	i := causeIndex(cause)
	c.st.abstained[i].Add(1)
	if cause != guard.CauseFallbackFailed && cause != guard.CauseFallbackAbstained {
		c.m.refusals.Add(context.WithoutCancel(ctx), 1, c.m.refusal[i])
	}
}

// abstained returns the count of estimates abstained for cause c.
func (c *Cascade) abstained(cause guard.Cause) uint64 {
	return c.st.abstained[causeIndex(cause)].Load()
}

// Stats are the cascade's counters since New. Estimate counts add up:
// Requested = CacheHits + CacheMisses, and CacheMisses = Settled +
// Abstained, where Abstained is the sum of the Refused…, Failed, Cancelled
// and FallbackAbstained counts. Call counts are per fallback call (one call
// may answer several estimates, and several identical escalations).
type Stats struct {
	// Escalations counts Escalate calls that were well formed.
	Escalations uint64 `json:"escalations"`
	// Requested counts the estimates asked for (one per chunk for chunk
	// relevance).
	Requested uint64 `json:"requested"`
	// CacheHits counts estimates answered from a cache: the in-process one
	// or, with WithStore, the shared one (SharedHits of them).
	CacheHits   uint64 `json:"cacheHits"`
	CacheMisses uint64 `json:"cacheMisses"`
	SharedHits  uint64 `json:"sharedHits,omitempty"`
	// Settled counts estimates the fallback gave (not abstained).
	Settled uint64 `json:"settled"`
	// Abstained counts estimates returned abstained, for any reason below.
	Abstained       uint64 `json:"abstained"`
	RefusedBreaker  uint64 `json:"refusedBreaker"`
	RefusedDeadline uint64 `json:"refusedDeadline"`
	RefusedBudget   uint64 `json:"refusedBudget"`
	// RefusedShare counts estimates of escalations Limits.Share did not
	// admit (see ShareStats for the escalations).
	RefusedShare       uint64 `json:"refusedShare,omitempty"`
	RefusedConcurrency uint64 `json:"refusedConcurrency"`
	RefusedClosed      uint64 `json:"refusedClosed"`
	Cancelled          uint64 `json:"cancelled"`
	Failed             uint64 `json:"failed"`
	FallbackAbstained  uint64 `json:"fallbackAbstained"`

	// Calls counts fallback calls made; CallErrors those that failed and
	// counted against the breaker; CallsExcluded those the caller ended
	// (not counted against it). Collapsed counts escalations that joined an
	// identical call under way instead of making their own.
	Calls         uint64 `json:"calls"`
	CallErrors    uint64 `json:"callErrors"`
	CallsExcluded uint64 `json:"callsExcluded"`
	Collapsed     uint64 `json:"collapsed"`
	// Probes counts calls let through although the p95 said they could not
	// finish in time (Limits.ProbeInterval), to measure the fallback again.
	Probes uint64 `json:"probes"`
	// BreakerTrips counts changes of the breaker to open; BreakerState is
	// its state now ("closed", "half-open", "open").
	BreakerTrips uint64 `json:"breakerTrips"`
	BreakerState string `json:"breakerState"`
	// InputTokens and OutputTokens sum what the fallback reported.
	InputTokens  uint64 `json:"inputTokens"`
	OutputTokens uint64 `json:"outputTokens"`
	// StoreFallbacks counts operations on the shared store (WithStore)
	// that failed or ran out of time and were served by the in-process
	// store alone.
	StoreFallbacks uint64 `json:"storeFallbacks,omitempty"`
	// LatencyP95 is the fallback's p95 latency over the window (0 until
	// enough calls were seen), stale or not.
	LatencyP95 time.Duration `json:"latencyP95"`
}

// Stats returns a snapshot of the counters. Counters are read one by one
// while calls may be under way, so a snapshot taken under load may be off by
// the calls in flight.
func (c *Cascade) Stats() Stats {
	s := Stats{
		Escalations:        c.st.escalations.Load(),
		Requested:          c.st.requested.Load(),
		CacheHits:          c.st.hits.Load(),
		CacheMisses:        c.st.misses.Load(),
		Settled:            c.st.settled.Load(),
		RefusedBreaker:     c.abstained(guard.CauseBreakerOpen),
		RefusedDeadline:    c.abstained(guard.CauseDeadline),
		RefusedBudget:      c.abstained(guard.CauseBudget),
		RefusedShare:       c.abstained(guard.CauseShare),
		RefusedConcurrency: c.abstained(guard.CauseConcurrency),
		RefusedClosed:      c.abstained(guard.CauseClosed),
		Cancelled:          c.abstained(guard.CauseCancelled),
		Failed:             c.abstained(guard.CauseFallbackFailed),
		FallbackAbstained:  c.abstained(guard.CauseFallbackAbstained),
		Calls:              c.st.calls.Load(),
		CallErrors:         c.st.callErrors.Load(),
		CallsExcluded:      c.st.excluded.Load(),
		Collapsed:          c.st.collapsed.Load(),
		Probes:             c.st.probes.Load(),
		BreakerTrips:       c.st.trips.Load(),
		BreakerState:       c.breaker.State().String(),
		InputTokens:        c.st.inTokens.Load(),
		OutputTokens:       c.st.outTokens.Load(),
		SharedHits:         c.st.sharedHits.Load(),
		StoreFallbacks:     c.st.storeFallbacks.Load(),
		LatencyP95:         c.lat.Known(),
	}
	s.Abstained = s.RefusedBreaker + s.RefusedDeadline + s.RefusedBudget + s.RefusedShare + s.RefusedConcurrency + s.RefusedClosed + s.Cancelled + s.Failed + s.FallbackAbstained
	return s
}
