package cascade

import (
	"context"

	"github.com/sony/gobreaker/v2"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// ScopeName is the instrumentation scope of the cascade's metrics.
const ScopeName = "github.com/ragtriage/ragtriage/cascade"

// Metric names and attribute keys, written once.
const (
	MetricBreakerState  = "ragtriage.cascade.breaker.state"  // gauge: 0 closed, 1 half-open, 2 open
	MetricBreakerTrips  = "ragtriage.cascade.breaker.trips"  // counter: changes to open
	MetricCache         = "ragtriage.cascade.cache.requests" // counter by result=hit|miss
	MetricFallbackCalls = "ragtriage.cascade.fallback.calls" // counter by outcome
	MetricFallbackTime  = "ragtriage.cascade.fallback.duration"
	MetricRefusals      = "ragtriage.cascade.refusals" // counter by reason (estimates not sent to the fallback)
	MetricTokens        = "ragtriage.cascade.fallback.tokens"
	// With a shared store (WithStore):
	MetricSharedHits     = "ragtriage.cascade.store.hits"      // counter: estimates the shared store answered
	MetricStoreFallbacks = "ragtriage.cascade.store.fallbacks" // counter by op: shared-store operations served locally

	AttrResult  = attribute.Key("result")
	AttrOutcome = attribute.Key("outcome")
	AttrReason  = attribute.Key("reason")
	AttrBreaker = attribute.Key("breaker")
	AttrOp      = attribute.Key("op") // get, put, reserve, spend, refund
)

// Outcomes of a fallback call (the outcome attribute).
const (
	OutcomeOK       = "ok"       // the fallback returned estimates
	OutcomeError    = "error"    // it failed; counted against the breaker
	OutcomeExcluded = "excluded" // the caller's context ended; not counted against the breaker
)

type metrics struct {
	hit, miss            metric.MeasurementOption
	ok, failed, excluded metric.MeasurementOption
	refusal              [len(causes)]metric.MeasurementOption // by causeIndex
	storeOp              [numStoreOps]metric.MeasurementOption
	sharedHits           metric.Int64Counter
	storeFallbacks       metric.Int64Counter
	cache                metric.Int64Counter
	calls                metric.Int64Counter
	trips                metric.Int64Counter
	refusals             metric.Int64Counter
	tokens               metric.Int64Counter
	duration             metric.Float64Histogram
	breakerAttr          metric.MeasurementOption
	reg                  metric.Registration
}

func newMetrics(mp metric.MeterProvider, c *Cascade) (*metrics, error) {
	m := mp.Meter(ScopeName)
	var x metrics
	var err error
	opt := func(kv ...attribute.KeyValue) metric.MeasurementOption {
		return metric.WithAttributeSet(attribute.NewSet(kv...))
	}
	name := AttrBreaker.String(c.breaker.Name())
	x.breakerAttr = opt(name)
	x.hit, x.miss = opt(AttrResult.String("hit")), opt(AttrResult.String("miss"))
	x.ok, x.failed, x.excluded = opt(AttrOutcome.String(OutcomeOK)), opt(AttrOutcome.String(OutcomeError)), opt(AttrOutcome.String(OutcomeExcluded))
	for i, cause := range causes {
		x.refusal[i] = opt(AttrReason.String(string(cause)))
	}
	for o := storeOp(0); o < numStoreOps; o++ {
		x.storeOp[o] = opt(AttrOp.String(storeOpLabels[o]))
	}
	if x.sharedHits, err = m.Int64Counter(MetricSharedHits, metric.WithDescription("Escalated estimates the shared store (fleet cache) answered.")); err != nil {
		return nil, err
	}
	if x.storeFallbacks, err = m.Int64Counter(MetricStoreFallbacks, metric.WithDescription("Shared-store operations that failed or ran out of time and were served by the in-process store, by op.")); err != nil {
		return nil, err
	}
	if x.cache, err = m.Int64Counter(MetricCache, metric.WithDescription("Escalated estimates looked up in the cascade cache, by result (hit or miss).")); err != nil {
		return nil, err
	}
	if x.calls, err = m.Int64Counter(MetricFallbackCalls, metric.WithDescription("Calls to the fallback judge, by outcome.")); err != nil {
		return nil, err
	}
	if x.trips, err = m.Int64Counter(MetricBreakerTrips, metric.WithDescription("Times the circuit breaker opened.")); err != nil {
		return nil, err
	}
	if x.refusals, err = m.Int64Counter(MetricRefusals, metric.WithDescription("Escalated estimates the fallback was not asked for, by reason.")); err != nil {
		return nil, err
	}
	if x.tokens, err = m.Int64Counter(MetricTokens, metric.WithUnit("{token}"), metric.WithDescription("Tokens the fallback judge reported.")); err != nil {
		return nil, err
	}
	if x.duration, err = m.Float64Histogram(MetricFallbackTime, metric.WithUnit("s"), metric.WithDescription("Duration of fallback calls.")); err != nil {
		return nil, err
	}
	state, err := m.Int64ObservableGauge(MetricBreakerState, metric.WithDescription("Circuit breaker state: 0 closed, 1 half-open, 2 open."))
	if err != nil {
		return nil, err
	}
	// The callback reads the breaker's state outside any breaker callback,
	// so it may take the breaker's lock.
	x.reg, err = m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		o.ObserveInt64(state, stateValue(c.breaker.State()), x.breakerAttr)
		return nil
	}, state)
	if err != nil {
		return nil, err
	}
	return &x, nil
}

func stateValue(s gobreaker.State) int64 {
	switch s {
	case gobreaker.StateHalfOpen:
		return 1
	case gobreaker.StateOpen:
		return 2
	}
	return 0
}
