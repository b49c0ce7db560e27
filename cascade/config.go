package cascade

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/sony/gobreaker/v2"

	"github.com/ragtriage/ragtriage/guard"
)

// Config is the whole configuration of a Cascade in one value, for callers
// that keep it in a file or build it from flags (evalkit and the ragtriage
// command use it). It has one zero-value convention: a zero field is the
// default stated on it, so the zero Config is the defaults. Where a field
// can also be switched off or unbounded, that is a distinct, named value
// (CacheOff, NoLimit), never zero. Apply it with WithConfig.
type Config struct {
	// Limits bound how the fallback is called; a zero field is its
	// DefaultLimits value. Limits.MaxWaiting is 0 by default (nobody
	// waits for a slot); NoLimit means no bound.
	Limits Limits
	// CacheSize is how many settled estimates the in-process cache keeps.
	// 0 is DefaultCacheSize; CacheOff (any negative value) turns the cache
	// off.
	CacheSize int
	// BreakerFailures is how many consecutive failed calls open the
	// breaker. 0 is DefaultBreakerFailures; negative is invalid.
	BreakerFailures int
	// BreakerCooldown is how long the breaker stays open before one call
	// tries again. 0 is DefaultBreakerCooldown; negative is invalid.
	BreakerCooldown time.Duration
	// Budget caps the fallback's calls and tokens over a sliding window.
	// The zero Budget, the default, is no cap (see Budget).
	Budget Budget
	// Store, when not nil, shares the cache, the budget and counters
	// across replicas (WithStore). nil, the default, is no shared store.
	Store Store
}

// Default breaker settings of Config (those of DefaultBreakerSettings).
const (
	DefaultBreakerFailures = 5
	DefaultBreakerCooldown = 30 * time.Second
)

// Effective returns c with every default filled in, or an error naming the
// first invalid field. In the result, Limits.MaxWaiting is NoLimit or a
// bound of 0 or more, and CacheSize is CacheOff or a positive size.
func (c Config) Effective() (Config, error) {
	switch {
	case c.Limits.MaxConcurrent < 0:
		return c, fmt.Errorf("cascade: config: MaxConcurrent %d: want 0 (default) or more", c.Limits.MaxConcurrent)
	case c.Limits.CallTimeout < 0:
		return c, fmt.Errorf("cascade: config: CallTimeout %v: want 0 (default) or more", c.Limits.CallTimeout)
	case c.BreakerFailures < 0:
		return c, fmt.Errorf("cascade: config: BreakerFailures %d: want 0 (default) or more", c.BreakerFailures)
	case c.BreakerCooldown < 0:
		return c, fmt.Errorf("cascade: config: BreakerCooldown %v: want 0 (default) or more", c.BreakerCooldown)
	}
	if err := c.Budget.validate(); err != nil {
		return c, err
	}
	waiting := c.Limits.MaxWaiting
	lim, err := c.Limits.withDefaults()
	if err != nil {
		return c, err
	}
	if waiting < 0 {
		lim.MaxWaiting = NoLimit
	}
	c.Limits = lim
	switch {
	case c.CacheSize == 0:
		c.CacheSize = DefaultCacheSize
	case c.CacheSize < 0:
		c.CacheSize = CacheOff
	}
	if c.BreakerFailures == 0 {
		c.BreakerFailures = DefaultBreakerFailures
	}
	if c.BreakerCooldown == 0 {
		c.BreakerCooldown = DefaultBreakerCooldown
	}
	return c, nil
}

// WithConfig applies cfg: its limits, cache size, breaker (unless both
// breaker fields are zero, which leaves DefaultBreakerSettings), budget and
// store. It is the same as giving WithLimits, WithCacheSize,
// WithBreakerSettings, WithBudget and WithStore one by one; options after it
// override what it set. An invalid cfg (see Config.Effective) makes New
// fail.
func WithConfig(cfg Config) Option {
	return func(c *config) error {
		e, err := cfg.Effective()
		if err != nil {
			return err
		}
		c.limits = cfg.Limits // New fills in the defaults
		c.cacheSize = e.CacheSize
		c.budget = e.Budget
		if cfg.BreakerFailures != 0 || cfg.BreakerCooldown != 0 {
			if c.breaker != nil {
				return errors.New("cascade: WithConfig's breaker settings and WithBreaker are exclusive")
			}
			failures := uint32(min(e.BreakerFailures, math.MaxUint32))
			c.settings = &gobreaker.Settings{
				Name:        DefaultBreakerSettings.Name,
				MaxRequests: 1,
				Timeout:     e.BreakerCooldown,
				ReadyToTrip: func(n gobreaker.Counts) bool { return n.ConsecutiveFailures >= failures },
			}
		}
		if cfg.Store != nil {
			c.shared = cfg.Store
		}
		return nil
	}
}

// NewFromConfig is New(fallback, WithConfig(cfg), more...).
func NewFromConfig(fallback guard.Judge, cfg Config, more ...Option) (*Cascade, error) {
	return New(fallback, append([]Option{WithConfig(cfg)}, more...)...)
}
