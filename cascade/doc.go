// Package cascade is the fallback path for the uncertain band: it settles
// the decisions the guard's own judges left uncertain with a slower judge
// (usually an LLM, see package guard/llmjudge), and keeps that judge from
// hurting the application when it is slow, failing or expensive.
//
// A Cascade implements guard.Escalator. Around the fallback judge it keeps:
//
//   - a sony/gobreaker circuit breaker: after repeated failures the fallback
//     is not called until the breaker's timeout has passed. A call that
//     ends because the caller's context ended (cancelled, or its deadline
//     passed) is excluded from the breaker's counts; a call stopped by the
//     cascade's own CallTimeout counts as a failure;
//   - a golang-lru cache of settled estimates, keyed per decision by a
//     SHA-256 of the judge's name and version, the decision's definition
//     (ID and version), the decision (and, for chunk relevance, the context
//     ID), and the texts that decision's question shows, with white space
//     normalized (Inputs): chunk relevance sees the question and that
//     chunk, sufficiency and conflict the question and the contexts, so a
//     right and a wrong answer to the same question share them;
//   - collapsing: identical calls under way at the same time share one
//     fallback call, which runs until the latest deadline among the callers
//     waiting for it (each caller still returns at its own) and is
//     cancelled once nobody waits for it;
//   - a concurrency limit: at most Limits.MaxConcurrent calls at once, at
//     most Limits.MaxWaiting more waiting for a slot; the rest abstain;
//   - a deadline check: the fallback is skipped when the time left before
//     the caller's deadline is below its p95 latency (over a small window of
//     recent calls) plus a reserve, except for one probe per
//     Limits.ProbeInterval; the call's own deadline is the caller's minus
//     that reserve, capped by Limits.CallTimeout;
//   - a budget: a maximum number of calls and/or tokens per sliding window.
//
// The cache and the budget live in a Store. Each Cascade has an in-process
// one (MemoryStore); WithStore adds a store shared by a fleet of replicas
// (package cascade/redisstore keeps it in Redis), so that the replicas share
// settled estimates and spend one budget. Shared-store operations are
// bounded by Limits.StoreTimeout; one that fails is served by the
// in-process store and counted (Stats.StoreFallbacks), and since the
// in-process budget is charged on every call, a replica whose shared store
// is down makes no call it would not make alone.
//
// When the fallback cannot settle an estimate — breaker open, deadline too
// near, budget spent, no slot, or the fallback failed — the estimate comes
// back abstained with a typed cause: Estimate.Cause (guard.CauseBudget, …)
// and Estimate.Err, which wraps one of the sentinels ErrBreakerOpen,
// ErrDeadline, ErrBudget, ErrConcurrency, ErrClosed, ErrCancelled,
// ErrFallbackFailed, ErrFallbackAbstained (the guard's own values, so that
// errors.Is works on the guard's Result too); its Reason, for people,
// starts with one of the Reason constants. The guard then keeps the
// diagnosis JUDGE_UNCERTAIN, records the cause in Result.Fallback and
// Result.Abstentions, and applies its fail-open or fail-closed rule
// (guard.WithEscalator): never a silent pass.
//
// Metrics (OpenTelemetry, the global MeterProvider unless WithMeterProvider
// is given): the breaker's state and trips, cache hits and misses, fallback
// calls by outcome and their duration, tokens, and refusals by reason.
// Stats returns the same counts for reports.
//
// Time: the budget window and the latency window use the clock given with
// WithClock, so tests step through them without sleeping. gobreaker reads
// time.Now itself and takes no clock; tests use a short
// gobreaker.Settings.Timeout for the open → half-open transition.
//
// Cost (go test -bench . -benchmem ./cascade, 2-core AMD EPYC, Go 1.26): a
// cache hit is one SHA-256 over the sample's normalized text plus an LRU
// lookup: about 1.5 µs and 4 allocations with 600 bytes of context, 7 µs
// with 5 KB (the hash is most of it). Around a fallback that answers at once
// the cascade adds about 5.5 µs and 25 allocations (hashing, the shared-call
// goroutine, a deadline context, the breaker and the slot). With 64 callers
// and a 50 ms fallback limited to 8 calls at once, no more than 8 calls are
// ever under way; waiting callers get about 155 calls/s of the 160 possible.
//
// Usage: ragtriage.New builds a cascade with the embedded judges in front
// and closes it with the guard. By hand:
//
//	fallback, err := llmjudge.NewOpenAI(llmjudge.OpenAIConfig{Model: "gpt-4o-mini", APIKey: key})
//	if err != nil { … } // a nil judge beside the error: New would refuse it
//	c, err := cascade.New(fallback,
//		cascade.WithLimits(cascade.Limits{MaxConcurrent: 4, MaxWaiting: 16}),
//		cascade.WithBudget(cascade.Budget{Window: time.Minute, MaxCalls: 600}))
//	if err != nil { … }
//	defer c.Close(context.Background()) // after the guard's last Evaluate
//	g, err := lexical.NewGuard(guard.WithEscalator(c, guard.UniformPolicy(0.3, 0.7), guard.FailClosed))
//
// The same settings as one value: [Config] (limits, cache size, breaker,
// budget, shared store), applied with [WithConfig] or [NewFromConfig]. It is
// what evalkit and the ragtriage command configure the cascade with, and it
// has one zero-value convention: a zero field is the default; "no cache" and
// "no bound on waiting calls" are the named values [CacheOff] and
// [NoLimit], never zero.
//
//	c, err := cascade.NewFromConfig(fallback, cascade.Config{
//		Limits:    cascade.Limits{MaxConcurrent: 4, MaxWaiting: cascade.NoLimit},
//		CacheSize: cascade.CacheOff,
//	})
package cascade
