package cascade_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/guard"
)

// The zero Config is the defaults; "off" and "no bound" are named values,
// never zero.
func TestConfigEffective(t *testing.T) {
	e, err := cascade.Config{}.Effective()
	if err != nil {
		t.Fatal(err)
	}
	d := cascade.DefaultLimits
	if e.Limits != d || e.CacheSize != cascade.DefaultCacheSize || e.BreakerFailures != cascade.DefaultBreakerFailures ||
		e.BreakerCooldown != cascade.DefaultBreakerCooldown || e.Budget != (cascade.Budget{}) || e.Store != nil {
		t.Errorf("zero Config's effective values %+v; want the defaults", e)
	}
	if e.Limits.MaxWaiting != 0 {
		t.Errorf("default MaxWaiting %d; want 0 (nobody waits)", e.Limits.MaxWaiting)
	}
	e, err = cascade.Config{Limits: cascade.Limits{MaxWaiting: cascade.NoLimit, StoreTimeout: time.Second}, CacheSize: cascade.CacheOff}.Effective()
	if err != nil || e.Limits.MaxWaiting != cascade.NoLimit || e.CacheSize != cascade.CacheOff || e.Limits.StoreTimeout != time.Second {
		t.Errorf("named values: %+v, %v; want NoLimit, CacheOff and the StoreTimeout kept", e, err)
	}
	if e2, err := e.Effective(); err != nil || e2 != e {
		t.Errorf("Effective is not idempotent: %+v then %+v (%v)", e, e2, err)
	}
	for _, c := range []struct {
		cfg  cascade.Config
		want string
	}{
		{cascade.Config{Limits: cascade.Limits{MaxConcurrent: -1}}, "MaxConcurrent"},
		{cascade.Config{Limits: cascade.Limits{CallTimeout: -1}}, "CallTimeout"},
		{cascade.Config{Limits: cascade.Limits{StoreTimeout: -1}}, "negative field"},
		{cascade.Config{BreakerFailures: -1}, "BreakerFailures"},
		{cascade.Config{BreakerCooldown: -1}, "BreakerCooldown"},
		{cascade.Config{Budget: cascade.Budget{MaxTokens: 10}}, "positive Window"},
	} {
		if _, err := c.cfg.Effective(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Effective(%+v) = %v; want an error naming %q", c.cfg, err, c.want)
		}
		if _, err := cascade.NewFromConfig(&fake{}, c.cfg); err == nil {
			t.Errorf("NewFromConfig accepted %+v", c.cfg)
		}
	}
}

// CacheSize 0 is the default cache; CacheOff turns it off.
func TestConfigCache(t *testing.T) {
	for _, c := range []struct {
		size      int
		wantCalls int
	}{{0, 1}, {cascade.CacheOff, 2}, {-7, 2}, {16, 1}} {
		f := &fake{P: 0.9}
		cas, err := cascade.NewFromConfig(f, cascade.Config{CacheSize: c.size})
		if err != nil {
			t.Fatal(err)
		}
		mustEscalate(t, cas, context.Background(), escalation(sample(1)))
		mustEscalate(t, cas, context.Background(), escalation(sample(1)))
		if f.Calls() != c.wantCalls {
			t.Errorf("CacheSize %d: %d fallback calls for one sample asked twice; want %d", c.size, f.Calls(), c.wantCalls)
		}
		checkStats(t, cas.Stats())
		if err := cas.Close(context.Background()); err != nil {
			t.Error(err)
		}
	}
}

// BreakerFailures and BreakerCooldown build the breaker; zero keeps the
// default of 5 failures.
func TestConfigBreaker(t *testing.T) {
	for _, c := range []struct {
		failures, wantCalls int
	}{{0, 5}, {2, 2}} {
		f := &fake{Hook: func(context.Context, guard.Request) error { return errors.New("down") }}
		cas := newCascade(t, f, cascade.WithConfig(cascade.Config{BreakerFailures: c.failures, BreakerCooldown: time.Hour, CacheSize: cascade.CacheOff}))
		for i := range 8 {
			mustEscalate(t, cas, context.Background(), escalation(sample(i)))
		}
		if f.Calls() != c.wantCalls || cas.Stats().BreakerTrips != 1 {
			t.Errorf("BreakerFailures %d: %d calls, %d trips; want %d calls, then the breaker open", c.failures, f.Calls(), cas.Stats().BreakerTrips, c.wantCalls)
		}
	}
}

// The budget of a Config caps the calls as WithBudget does.
func TestConfigBudget(t *testing.T) {
	f := &fake{P: 0.9}
	cas := newCascade(t, f, cascade.WithConfig(cascade.Config{Budget: cascade.Budget{MaxCalls: 2, Window: time.Hour}}))
	for i := range 4 {
		mustEscalate(t, cas, context.Background(), escalation(sample(i)))
	}
	if f.Calls() != 2 || cas.Stats().RefusedBudget != 2 {
		t.Errorf("%d calls, %d refused by the budget; want 2 and 2", f.Calls(), cas.Stats().RefusedBudget)
	}
}

// A Config's Store is shared as WithStore shares it: a second cascade over
// the same store finds what the first settled.
func TestConfigStore(t *testing.T) {
	st, err := cascade.NewMemoryStore(0, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	f := &fake{P: 0.9}
	cfg := cascade.Config{Store: st, Limits: cascade.Limits{StoreTimeout: time.Second}}
	a := newCascade(t, f, cascade.WithConfig(cfg))
	b := newCascade(t, f, cascade.WithConfig(cfg))
	mustEscalate(t, a, context.Background(), escalation(sample(1)))
	// The settled estimate reaches the store after a's caller has it (on the
	// call's goroutine); Close waits for that.
	if err := a.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	mustEscalate(t, b, context.Background(), escalation(sample(1)))
	if f.Calls() != 1 || b.Stats().SharedHits != 1 {
		t.Errorf("%d fallback calls, %d shared hits in the second cascade; want 1 and 1", f.Calls(), b.Stats().SharedHits)
	}
}
