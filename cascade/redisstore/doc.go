// Package redisstore keeps a cascade's shared state in Redis, so that a
// fleet of replicas shares one fallback cache and spends one budget: fleet
// mode (cascade.WithStore).
//
// A Store holds, under Options.Prefix:
//
//   - the cache: settled estimates as JSON under their cascade.Key, each
//     with Options.TTL, at most Options.MaxEntries of them (a write script
//     deletes the oldest past it) and none over Options.MaxEntryBytes, so
//     the client, not a server setting, bounds the memory;
//   - the budget: per budget configuration, a hash of window slices that
//     one Lua script reads and changes atomically (check and count in one
//     step: exact under concurrent replicas), on the Redis server's clock;
//   - counters: cascade.Counts from every replica, sent at most once per
//     Options.FlushInterval, read with Counts;
//   - promise tallies (a guard.PromiseStore, for guard.PromiseMonitor):
//     per promise a hash of each decision side's audits, disagreements and
//     trip, changed with HINCRBY/HSETNX in one script per operation, so
//     that the fleet's monitors test one stream and a trip on one replica
//     reaches all (each Options.PromiseTTL after its last change).
//
// When Redis fails or is too slow (the cascade bounds every operation with
// cascade.Limits.StoreTimeout), the cascade serves the operation from the
// replica's own in-process store and counts it; the Store answers
// ErrUnavailable at once for Options.RetryAfter, then tries Redis again and
// rejoins on the first success. The client must honour context deadlines
// (ClientOptions sets ContextTimeoutEnabled; New checks it).
//
// Cost over loopback (go test -bench . ./cascade/redisstore, 2 cores): a
// shared cache hit about 12 µs at the median, a budget check 17 µs; an
// escalation that reaches the fallback about 70 µs more than with the
// in-process store. docs/reliability.md ("Fleet mode") has the fault tests
// and the figures.
//
// Usage:
//
//	rdb := redis.NewClient(redisstore.ClientOptions("127.0.0.1:6379"))
//	defer rdb.Close()
//	st, err := redisstore.New(rdb, redisstore.Options{Prefix: "myapp:"})
//	if err != nil { … }
//	c, err := cascade.New(fallback, cascade.WithStore(st),
//		cascade.WithBudget(cascade.Budget{Window: time.Minute, MaxCalls: 600})) // for the whole fleet
package redisstore
