package evalkit

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/sony/gobreaker/v2"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/guard"
)

// CascadeSettings configures the cascade (package cascade) that cascade mode
// runs the fallback judge behind. A zero field takes the default stated; the
// zero value is a usable configuration.
type CascadeSettings struct {
	// MaxConcurrent is the most fallback calls under way at once. Default
	// cascade.DefaultLimits.MaxConcurrent (8).
	MaxConcurrent int
	// MaxWaiting is how many calls may wait for a free slot; the calls
	// beyond it abstain with "concurrency limit reached". 0 means no bound:
	// a replay has no deadline to miss, so by default every call waits for
	// its turn (the workers bound how many can). Negative: nobody waits.
	MaxWaiting int
	// CallTimeout caps one fallback call; a call stopped by it counts
	// against the breaker. Default cascade.DefaultLimits.CallTimeout (30s).
	CallTimeout time.Duration
	// CacheSize is how many settled estimates the cache keeps. 0 means
	// cascade.DefaultCacheSize; negative turns the cache off.
	CacheSize int
	// BreakerFailures is how many consecutive failed calls open the
	// breaker. Default 5.
	BreakerFailures int
	// BreakerCooldown is how long the breaker stays open before one call
	// tries again. Default 30s.
	BreakerCooldown time.Duration
	// BudgetCalls and BudgetTokens cap the fallback calls started, and the
	// tokens spent, within any BudgetWindow; 0 is no cap. A cap needs a
	// positive BudgetWindow.
	BudgetCalls, BudgetTokens int
	BudgetWindow              time.Duration
}

// Default breaker settings of CascadeSettings.
const (
	DefaultBreakerFailures = 5
	DefaultBreakerCooldown = 30 * time.Second
)

// Effective returns s with every default filled in, or an error naming the
// first invalid field.
func (s CascadeSettings) Effective() (CascadeSettings, error) {
	switch {
	case s.MaxConcurrent < 0:
		return s, fmt.Errorf("evalkit: cascade: MaxConcurrent %d: want 0 or more", s.MaxConcurrent)
	case s.CallTimeout < 0:
		return s, fmt.Errorf("evalkit: cascade: CallTimeout %v: want 0 or more", s.CallTimeout)
	case s.BreakerFailures < 0:
		return s, fmt.Errorf("evalkit: cascade: BreakerFailures %d: want 0 or more", s.BreakerFailures)
	case s.BreakerCooldown < 0:
		return s, fmt.Errorf("evalkit: cascade: BreakerCooldown %v: want 0 or more", s.BreakerCooldown)
	case s.BudgetCalls < 0 || s.BudgetTokens < 0:
		return s, errors.New("evalkit: cascade: negative budget")
	case s.BudgetWindow < 0:
		return s, fmt.Errorf("evalkit: cascade: BudgetWindow %v: want 0 or more", s.BudgetWindow)
	case (s.BudgetCalls > 0 || s.BudgetTokens > 0) && s.BudgetWindow == 0:
		return s, errors.New("evalkit: cascade: a call or token budget needs a positive BudgetWindow")
	}
	if s.MaxConcurrent == 0 {
		s.MaxConcurrent = cascade.DefaultLimits.MaxConcurrent
	}
	if s.CallTimeout == 0 {
		s.CallTimeout = cascade.DefaultLimits.CallTimeout
	}
	if s.CacheSize == 0 {
		s.CacheSize = cascade.DefaultCacheSize
	}
	if s.BreakerFailures == 0 {
		s.BreakerFailures = DefaultBreakerFailures
	}
	if s.BreakerCooldown == 0 {
		s.BreakerCooldown = DefaultBreakerCooldown
	}
	return s, nil
}

// Options returns the cascade options for s (after Effective).
func (s CascadeSettings) Options() ([]cascade.Option, error) {
	e, err := s.Effective()
	if err != nil {
		return nil, err
	}
	lim := cascade.Limits{MaxConcurrent: e.MaxConcurrent, CallTimeout: e.CallTimeout}
	switch {
	case e.MaxWaiting == 0:
		lim.MaxWaiting = math.MaxInt32
	case e.MaxWaiting > 0:
		lim.MaxWaiting = e.MaxWaiting
	}
	cache := e.CacheSize
	if cache < 0 {
		cache = -1
	}
	failures := uint32(min(e.BreakerFailures, math.MaxUint32))
	opts := []cascade.Option{
		cascade.WithLimits(lim),
		cascade.WithCacheSize(cache),
		cascade.WithBreakerSettings(gobreaker.Settings{
			Name:        cascade.DefaultBreakerSettings.Name,
			MaxRequests: 1,
			Timeout:     e.BreakerCooldown,
			ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= failures },
		}),
	}
	if e.BudgetCalls > 0 || e.BudgetTokens > 0 {
		opts = append(opts, cascade.WithBudget(cascade.Budget{Window: e.BudgetWindow, MaxCalls: e.BudgetCalls, MaxTokens: e.BudgetTokens}))
	}
	return opts, nil
}

// NewCascade returns the cascade of cascade mode around fallback, configured
// by s; more options (a meter provider, a clock) come after s's.
func NewCascade(fallback guard.Judge, s CascadeSettings, more ...cascade.Option) (*cascade.Cascade, error) {
	opts, err := s.Options()
	if err != nil {
		return nil, err
	}
	return cascade.New(fallback, append(opts, more...)...)
}

// report returns the settings as the report records them.
func (s CascadeSettings) report() *CascadeSettingsReport {
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	r := &CascadeSettingsReport{MaxConcurrent: s.MaxConcurrent, MaxWaiting: s.MaxWaiting, CallTimeoutMs: ms(s.CallTimeout),
		CacheSize: max(s.CacheSize, 0), BreakerFailures: s.BreakerFailures, BreakerCooldownMs: ms(s.BreakerCooldown),
		BudgetCalls: s.BudgetCalls, BudgetTokens: s.BudgetTokens}
	if s.BudgetCalls > 0 || s.BudgetTokens > 0 {
		r.BudgetWindowMs = ms(s.BudgetWindow)
	}
	return r
}

// CascadeStatser is implemented by an escalator that counts what it did;
// *cascade.Cascade does. Run reads the counts once the run has ended.
type CascadeStatser interface {
	Stats() cascade.Stats
}

// runtimeReport turns a cascade's counters into the report's block.
func runtimeReport(name string, st cascade.Stats) *CascadeRuntime {
	rt := &CascadeRuntime{
		Escalator:   name,
		Escalations: int(st.Escalations), Requested: int(st.Requested),
		CacheHits: int(st.CacheHits), CacheMisses: int(st.CacheMisses), CacheHitRate: ratio(int(st.CacheHits), int(st.Requested)),
		Settled: int(st.Settled), Abstained: int(st.Abstained),
		RefusedBreaker: int(st.RefusedBreaker), RefusedDeadline: int(st.RefusedDeadline), RefusedBudget: int(st.RefusedBudget),
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
