package evalkit

import (
	"time"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/evalkit/report"
)

// cascadeSettingsReport returns the effective settings of c as the report
// records them. The report keeps its own encoding of MaxWaiting (0: no
// bound, negative: nobody waits; see report.CascadeSettings) so that reports
// stay comparable with earlier ones.
func cascadeSettingsReport(c cascade.Config) *report.CascadeSettings {
	e, err := c.Effective()
	if err != nil {
		e = c
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	waiting := e.Limits.MaxWaiting
	switch {
	case waiting < 0:
		waiting = 0
	case waiting == 0:
		waiting = -1
	}
	r := &report.CascadeSettings{MaxConcurrent: e.Limits.MaxConcurrent, MaxWaiting: waiting, CallTimeoutMs: ms(e.Limits.CallTimeout),
		CacheSize: max(e.CacheSize, 0), BreakerFailures: e.BreakerFailures, BreakerCooldownMs: ms(e.BreakerCooldown),
		BudgetCalls: e.Budget.MaxCalls, BudgetTokens: e.Budget.MaxTokens}
	if e.Budget.MaxCalls > 0 || e.Budget.MaxTokens > 0 {
		r.BudgetWindowMs = ms(e.Budget.Window)
	}
	if e.Limits.Share > 0 {
		r.Share, r.ShareWindow, r.ShareUniform = e.Limits.Share, e.Limits.ShareWindow, e.Limits.ShareUniform
		if r.ShareUniform == 0 {
			r.ShareUniform = cascade.DefaultShareUniform
		}
	}
	return r
}

// cascadeStatser is implemented by an escalator that counts what it did;
// *cascade.Cascade does. Run reads the counts once the run has ended.
type cascadeStatser interface {
	Stats() cascade.Stats
}

// runtimeReport turns a cascade's counters into the report's block.
func runtimeReport(name string, st cascade.Stats) *report.CascadeRuntime {
	rt := &report.CascadeRuntime{
		Escalator:   name,
		Escalations: int(st.Escalations), Requested: int(st.Requested),
		CacheHits: int(st.CacheHits), CacheMisses: int(st.CacheMisses), CacheHitRate: ratio(int(st.CacheHits), int(st.Requested)),
		Settled: int(st.Settled), Abstained: int(st.Abstained),
		RefusedBreaker: int(st.RefusedBreaker), RefusedDeadline: int(st.RefusedDeadline), RefusedBudget: int(st.RefusedBudget), RefusedShare: int(st.RefusedShare),
		RefusedConcurrency: int(st.RefusedConcurrency), RefusedClosed: int(st.RefusedClosed), Cancelled: int(st.Cancelled),
		Failed: int(st.Failed), FallbackAbstained: int(st.FallbackAbstained),
		FallbackCalls: int(st.Calls), FallbackCallErrors: int(st.CallErrors), FallbackCallsExcluded: int(st.CallsExcluded),
		Collapsed:    int(st.Collapsed),
		BreakerTrips: int(st.BreakerTrips), BreakerState: st.BreakerState,
		InputTokens: int(st.InputTokens), OutputTokens: int(st.OutputTokens),
		FallbackP95Ms: float64(st.LatencyP95) / float64(time.Millisecond),
	}
	return rt
}
