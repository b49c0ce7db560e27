// Package cascade is the fallback path for the uncertain band. It settles
// the decisions the guard's own judges left uncertain with a slower judge,
// usually an LLM (see package guard/llmjudge). It keeps that judge from
// hurting the application when it is slow, failing or expensive.
//
// A Cascade implements guard.Escalator. Around the fallback judge it keeps:
//
//   - a sony/gobreaker circuit breaker. After repeated failures, the
//     fallback is not called until the breaker's timeout has passed. A call
//     that ends because the caller's context ended is not counted against
//     the breaker. A call stopped by the cascade's own CallTimeout is.
//   - a golang-lru cache of settled estimates, keyed per decision (Key). The
//     key is a SHA-256 of the judge's name and version, the decision's
//     definition, the decision (and the context, for chunk relevance), and
//     the texts that decision's question shows, with white space normalized
//     (Inputs). Chunk relevance sees the question and that chunk.
//     Sufficiency and conflict see the question and the contexts, so a right
//     and a wrong answer to the same question share them.
//   - collapsing. Identical calls under way at the same time share one
//     fallback call. It runs until the latest deadline among the callers
//     waiting for it, and is cancelled once nobody waits for it. Each caller
//     still returns at its own deadline.
//   - a concurrency limit: at most Limits.MaxConcurrent calls at once, and
//     at most Limits.MaxWaiting more waiting for a slot. The rest abstain.
//   - a deadline check. The fallback is skipped when the time left is below
//     its p95 latency plus a reserve, except for one probe per
//     Limits.ProbeInterval. The p95 is taken over a window of recent calls.
//     The call's own deadline is the caller's minus that reserve, capped by
//     Limits.CallTimeout.
//   - a budget: a maximum number of calls or tokens per sliding window.
//
// The cache and the budget live in a Store. Each Cascade has an in-process
// one (MemoryStore). WithStore adds a store shared by a fleet of replicas;
// package cascade/redisstore keeps it in Redis. The replicas then share
// settled estimates and spend one budget. Each shared-store operation is
// bounded by Limits.StoreTimeout. One that fails is served by the
// in-process store and counted (Stats.StoreFallbacks). The in-process
// budget is charged on every call, so a replica whose shared store is down
// makes no call it would not make alone.
//
// When the fallback cannot settle an estimate, the estimate comes back
// abstained with a cause: the breaker is open, the deadline too near, the
// budget spent, no slot free, or the fallback failed. Estimate.Cause names
// it (guard.CauseBudget, …). Estimate.Err wraps the cause's one sentinel
// (guard.ErrFallbackBudget, …), so errors.Is works on the estimate and on
// the guard's Result alike. The Reason is text for people. The guard keeps
// the diagnosis JUDGE_UNCERTAIN and records the cause in Result.Fallback
// and Result.Abstentions. Then its fail-open or fail-closed rule applies
// (guard.WithEscalator): never a silent pass.
//
// A Cascade trusts the guard.Escalation it is given, as a guard makes it.
// It calls its fallback through guard.Call, which recovers a panic and
// checks the answer. It returns before its context's deadline, and says so
// (guard.ContextHonourer): the guard calls it on the caller's goroutine.
//
// Metrics (OpenTelemetry, the global MeterProvider unless WithMeterProvider
// is given) count the breaker's state and trips, cache hits and misses,
// fallback calls by outcome, their duration, tokens, and refusals by cause.
// Stats returns the same counts for reports.
//
// Time: the budget window, the latency window and the time left before a
// deadline are read from the clock given with WithClock. Tests step through
// them without sleeping. gobreaker reads time.Now itself and takes no
// clock; tests use a short gobreaker.Settings.Timeout for the open →
// half-open transition.
//
// Cost (go test -bench . -benchmem ./cascade, 2-core AMD EPYC, Go 1.26): a
// cache hit is one SHA-256 over the sample's normalized text plus an LRU
// lookup. That is about 1.5 µs and 4 allocations with 600 bytes of context,
// and 7 µs with 5 KB (the hash is most of it). Around a fallback that
// answers at once, the cascade adds about 5.5 µs and 25 allocations. They
// go to hashing, the shared-call goroutine, a deadline context, the breaker
// and the slot. With 64 callers and a 50 ms fallback limited to 8 calls at
// once, no more than 8 calls are ever under way. Waiting callers get about
// 155 calls/s of the 160 possible.
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
// [Config] holds the same settings as one value: limits, cache size,
// breaker, budget and shared store. Apply it with [WithConfig] or
// [NewFromConfig]; evalkit and the ragtriage command do. It has one
// zero-value convention: a zero field is the default. "No cache" and "no
// bound on waiting calls" are the named values [CacheOff] and [NoLimit],
// never zero.
//
//	c, err := cascade.NewFromConfig(fallback, cascade.Config{
//		Limits:    cascade.Limits{MaxConcurrent: 4, MaxWaiting: cascade.NoLimit},
//		CacheSize: cascade.CacheOff,
//	})
package cascade
