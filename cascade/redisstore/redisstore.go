package redisstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/guard"
)

// Defaults of Options.
const (
	DefaultPrefix        = "ragtriage:"
	DefaultTTL           = 24 * time.Hour
	DefaultMaxEntries    = 100_000
	DefaultMaxEntryBytes = 16 << 10
	DefaultRetryAfter    = time.Second
	DefaultFlushInterval = time.Second
	DefaultPromiseTTL    = 30 * 24 * time.Hour
)

// Options configure a Store. A zero field means its default.
type Options struct {
	// Prefix starts the name of every key the store writes. Replicas that
	// share a cache and a budget use the same prefix (and the same fallback
	// judge: the judge is part of every cache key anyway). Under Redis
	// Cluster give it a hash tag, e.g. "{ragtriage}:", so that every key a
	// script touches is in one slot. Default "ragtriage:".
	Prefix string
	// TTL is how long a cached estimate lives. Default 24h.
	TTL time.Duration
	// MaxEntries bounds the cache: after a write that takes it past
	// MaxEntries, the oldest entries (by time of writing) are deleted, in
	// the same script. Default 100,000.
	MaxEntries int
	// MaxEntryBytes bounds one cached estimate's encoding (JSON); a larger
	// estimate is not shared (it stays in the replica's own cache). With
	// MaxEntries this bounds the cache's memory: about MaxEntries ×
	// (MaxEntryBytes + 200 bytes of key and index). Default 16 KiB.
	MaxEntryBytes int
	// RetryAfter is how long the store answers ErrUnavailable at once,
	// without asking Redis, after an operation failed for want of Redis (a
	// connection error or a timeout); then the next operation tries Redis
	// again, and the store is back as soon as one succeeds. Default 1s.
	RetryAfter time.Duration
	// FlushInterval is how often the counters Count gathers are sent to
	// Redis (with the next operation due after it; Flush sends them at
	// once). Default 1s.
	FlushInterval time.Duration
	// PromiseTTL is how long a promise monitor's tallies and trips
	// (guard.PromiseStore) live after their last change: a tripped side
	// stays tripped at least this long without audits. Default 30 days.
	PromiseTTL time.Duration
	// Clock, when set, places budget windows by this clock instead of the
	// Redis server's (for tests that step through windows). Leave it nil in
	// production: the server's clock is the one every replica agrees on.
	Clock func() time.Time
	// Now is the clock of RetryAfter and FlushInterval. Default time.Now.
	Now func() time.Time
}

// ErrUnavailable is returned while the store is waiting RetryAfter after a
// failure; the cascade then serves the operation from its own store.
var ErrUnavailable = errors.New("redisstore: Redis unavailable")

// Store is a cascade.Store in Redis, shared by every replica that uses the
// same Redis and prefix. Safe for concurrent use; it starts no goroutine
// and does not own the client (close the client when done).
type Store struct {
	rdb redis.UniversalClient
	opt Options

	downUntil atomic.Int64 // Now() in Unix ns before which Redis is not asked
	down      atomic.Bool
	failures  atomic.Uint64
	rejoins   atomic.Uint64
	oversize  atomic.Uint64
	corrupt   atomic.Uint64

	mu        sync.Mutex
	pending   cascade.Counts
	lastFlush time.Time
}

var _ cascade.Store = (*Store)(nil)

// ClientOptions returns go-redis options for a store's client at addr:
// context deadlines honoured (ContextTimeoutEnabled, without which an
// operation could outlive the cascade's Limits.StoreTimeout), one retry,
// short dial timeouts, and no connection-time extras (client identity,
// maintenance notifications). Adjust and pass to redis.NewClient.
func ClientOptions(addr string) *redis.Options {
	return &redis.Options{
		Addr:                     addr,
		ContextTimeoutEnabled:    true,
		MaxRetries:               1,
		DialTimeout:              time.Second,
		DialerRetries:            1,
		ReadTimeout:              time.Second,
		WriteTimeout:             time.Second,
		DisableIdentity:          true,
		MaintNotificationsConfig: &maintnotifications.Config{Mode: maintnotifications.ModeDisabled},
	}
}

// New returns a store on rdb. The client must honour context deadlines
// (ContextTimeoutEnabled; see ClientOptions): New checks it for
// *redis.Client and *redis.ClusterClient.
func New(rdb redis.UniversalClient, opt Options) (*Store, error) {
	if rdb == nil {
		return nil, errors.New("redisstore: nil client")
	}
	switch c := rdb.(type) {
	case *redis.Client:
		if !c.Options().ContextTimeoutEnabled {
			return nil, errors.New("redisstore: the client does not honour context deadlines: set ContextTimeoutEnabled (see ClientOptions)")
		}
	case *redis.ClusterClient:
		if !c.Options().ContextTimeoutEnabled {
			return nil, errors.New("redisstore: the client does not honour context deadlines: set ContextTimeoutEnabled")
		}
	}
	if opt.TTL < 0 || opt.MaxEntries < 0 || opt.MaxEntryBytes < 0 || opt.RetryAfter < 0 || opt.FlushInterval < 0 || opt.PromiseTTL < 0 {
		return nil, fmt.Errorf("redisstore: options %+v: negative field", opt)
	}
	if opt.Prefix == "" {
		opt.Prefix = DefaultPrefix
	}
	if opt.TTL == 0 {
		opt.TTL = DefaultTTL
	}
	if opt.TTL < time.Millisecond {
		return nil, fmt.Errorf("redisstore: TTL %v below a millisecond", opt.TTL)
	}
	if opt.PromiseTTL == 0 {
		opt.PromiseTTL = DefaultPromiseTTL
	}
	if opt.PromiseTTL < time.Millisecond {
		return nil, fmt.Errorf("redisstore: PromiseTTL %v below a millisecond", opt.PromiseTTL)
	}
	if opt.MaxEntries == 0 {
		opt.MaxEntries = DefaultMaxEntries
	}
	if opt.MaxEntryBytes == 0 {
		opt.MaxEntryBytes = DefaultMaxEntryBytes
	}
	if opt.RetryAfter == 0 {
		opt.RetryAfter = DefaultRetryAfter
	}
	if opt.FlushInterval == 0 {
		opt.FlushInterval = DefaultFlushInterval
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return &Store{rdb: rdb, opt: opt, lastFlush: opt.Now()}, nil
}

// Health is what a store has seen of Redis.
type Health struct {
	// Down reports that the last operation failed for want of Redis (the
	// store is answering ErrUnavailable until RetryAfter has passed).
	Down bool `json:"down"`
	// Failures counts operations that failed for want of Redis; Rejoins
	// the times an operation succeeded again after such a failure.
	Failures uint64 `json:"failures"`
	Rejoins  uint64 `json:"rejoins"`
	// Oversize counts estimates not shared because their encoding was
	// over MaxEntryBytes; Corrupt entries read back that did not decode
	// (treated as missing).
	Oversize uint64 `json:"oversize"`
	Corrupt  uint64 `json:"corrupt"`
}

// Health returns the store's view of Redis.
func (s *Store) Health() Health {
	return Health{Down: s.down.Load(), Failures: s.failures.Load(), Rejoins: s.rejoins.Load(), Oversize: s.oversize.Load(), Corrupt: s.corrupt.Load()}
}

// do runs op unless Redis is known to be down, and keeps the store's view
// of Redis: a failure for want of Redis marks it down for RetryAfter; a
// success after that is a rejoin. An error Redis itself returned (a reply
// error) says Redis is there and marks nothing.
func (s *Store) do(ctx context.Context, op func(context.Context) error) error {
	if s.opt.Now().UnixNano() < s.downUntil.Load() {
		return ErrUnavailable
	}
	err := op(ctx)
	var rerr redis.Error
	switch {
	case err == nil || errors.Is(err, redis.Nil):
		if s.down.Swap(false) {
			s.rejoins.Add(1)
		}
		s.flushIfDue(ctx)
		return nil
	case errors.As(err, &rerr):
		return err
	}
	s.failures.Add(1)
	s.down.Store(true)
	s.downUntil.Store(s.opt.Now().Add(s.opt.RetryAfter).UnixNano())
	return fmt.Errorf("redisstore: %w", err)
}

func (s *Store) entryKey(k cascade.Key) string { return s.opt.Prefix + "e:" + k.String() }

// Get implements cascade.Store with one MGET.
func (s *Store) Get(ctx context.Context, keys []cascade.Key) ([]guard.Estimate, []bool, error) {
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = s.entryKey(k)
	}
	var vals []any
	err := s.do(ctx, func(ctx context.Context) error {
		var err error
		vals, err = s.rdb.MGet(ctx, names...).Result()
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	if len(vals) != len(keys) {
		return nil, nil, fmt.Errorf("redisstore: MGET returned %d values for %d keys", len(vals), len(keys))
	}
	ests, found := make([]guard.Estimate, len(keys)), make([]bool, len(keys))
	for i, v := range vals {
		str, ok := v.(string)
		if !ok {
			continue
		}
		if err := json.Unmarshal([]byte(str), &ests[i]); err != nil {
			s.corrupt.Add(1)
			ests[i] = guard.Estimate{}
			continue
		}
		found[i] = true
	}
	return ests, found, nil
}

// putScript writes entries with the TTL, indexes them by time of writing,
// drops index members whose TTL has passed, and deletes the oldest entries
// past MaxEntries. KEYS[1] is the index, KEYS[2..] the entries; ARGV[1] the
// TTL in ms, ARGV[2] MaxEntries, ARGV[3..] the values of KEYS[2..].
var putScript = redis.NewScript(`
local idx = KEYS[1]
local ttl = tonumber(ARGV[1])
local max = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', idx, '-inf', now - ttl)
for i = 2, #KEYS do
  redis.call('SET', KEYS[i], ARGV[i + 1], 'PX', ttl)
  redis.call('ZADD', idx, now, KEYS[i])
end
local n = redis.call('ZCARD', idx)
if n > max then
  local old = redis.call('ZPOPMIN', idx, n - max)
  for j = 1, #old, 2 do
    redis.call('DEL', old[j])
  end
end
redis.call('PEXPIRE', idx, ttl)
return n
`)

// Put implements cascade.Store: one script writes every entry and keeps
// the cache within MaxEntries.
func (s *Store) Put(ctx context.Context, entries []cascade.Entry) error {
	keys := []string{s.opt.Prefix + "index"}
	args := []any{s.opt.TTL.Milliseconds(), s.opt.MaxEntries}
	for _, e := range entries {
		b, err := json.Marshal(e.Estimate)
		if err != nil {
			return fmt.Errorf("redisstore: encoding an estimate: %w", err)
		}
		if len(b) > s.opt.MaxEntryBytes {
			s.oversize.Add(1)
			continue
		}
		keys = append(keys, s.entryKey(e.Key))
		args = append(args, b)
	}
	if len(keys) == 1 {
		return nil
	}
	return s.do(ctx, func(ctx context.Context) error {
		return putScript.Run(ctx, s.rdb, keys, args...).Err()
	})
}

// budgetScript keeps one budget account in a hash: field "c<n>" counts
// the calls and "t<n>" the tokens of window slice n (slices of ARGV[1]
// microseconds, ARGV[2] of them in a window). It drops slices that left
// the window, sums the rest, and then, by ARGV[6]:
//
//	reserve  counts one call in the current slice if the window has fewer
//	         than ARGV[3] calls (0: no cap) and ARGV[4] tokens (0: no cap)
//	spend    adds ARGV[7] tokens to the current slice
//	refund   takes one call back from slice ARGV[7] if it is still in the
//	         window and holds one
//	usage    changes nothing
//
// ARGV[5] is the time in microseconds, or -1 for the server's clock. It
// returns {allowed (1/0), calls, tokens, current slice}; the sums are
// before the change. The whole script runs atomically, so concurrent
// replicas never see a stale sum.
var budgetScript = redis.NewScript(`
local h = KEYS[1]
local width = tonumber(ARGV[1])
local nb = tonumber(ARGV[2])
local maxc = tonumber(ARGV[3])
local maxt = tonumber(ARGV[4])
local now = tonumber(ARGV[5])
local mode = ARGV[6]
if now < 0 then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000000 + tonumber(t[2])
end
local n = math.floor(now / width)
local all = redis.call('HGETALL', h)
local calls, tokens = 0, 0
for i = 1, #all, 2 do
  local f = all[i]
  local b = tonumber(string.sub(f, 2))
  local v = tonumber(all[i + 1])
  if b <= n - nb then
    redis.call('HDEL', h, f)
  elseif b <= n then
    if string.sub(f, 1, 1) == 'c' then calls = calls + v else tokens = tokens + v end
  end
end
local cur = string.format('%d', n)
local ok = 1
if mode == 'reserve' then
  if (maxc > 0 and calls >= maxc) or (maxt > 0 and tokens >= maxt) then
    ok = 0
  else
    redis.call('HINCRBY', h, 'c' .. cur, 1)
  end
elseif mode == 'spend' then
  redis.call('HINCRBY', h, 't' .. cur, tonumber(ARGV[7]))
elseif mode == 'refund' then
  local b = tonumber(ARGV[7])
  local f = 'c' .. string.format('%d', b)
  if b > n - nb and b <= n and tonumber(redis.call('HGET', h, f) or '0') > 0 then
    redis.call('HINCRBY', h, f, -1)
  else
    ok = 0
  end
end
if mode ~= 'usage' then
  redis.call('PEXPIRE', h, math.ceil(width * (nb + 1) / 1000) + 1000)
end
return {ok, calls, tokens, cur}
`)

// budgetResult is what budgetScript returns.
type budgetResult struct {
	ok            bool
	calls, tokens int64
	slice         int64
}

func (s *Store) budget(ctx context.Context, b cascade.Budget, mode string, arg int64) (budgetResult, error) {
	if b.Window <= 0 {
		return budgetResult{}, fmt.Errorf("redisstore: budget %+v has no window", b)
	}
	nb := b.Buckets
	if nb == 0 {
		nb = cascade.DefaultBudgetBuckets
	}
	width := max((b.Window / time.Duration(nb)).Microseconds(), 1)
	now := int64(-1)
	if s.opt.Clock != nil {
		now = s.opt.Clock().UnixMicro()
	}
	key := s.opt.Prefix + "budget:" + strconv.FormatInt(width, 10) + ":" + strconv.Itoa(nb)
	var res []any
	err := s.do(ctx, func(ctx context.Context) error {
		var err error
		res, err = budgetScript.Run(ctx, s.rdb, []string{key}, width, nb, b.MaxCalls, b.MaxTokens, now, mode, arg).Slice()
		return err
	})
	if err != nil {
		return budgetResult{}, err
	}
	if len(res) != 4 {
		return budgetResult{}, fmt.Errorf("redisstore: budget script returned %d values", len(res))
	}
	var r budgetResult
	ok, _ := res[0].(int64)
	r.ok = ok == 1
	r.calls, _ = res[1].(int64)
	r.tokens, _ = res[2].(int64)
	cur, _ := res[3].(string)
	if r.slice, err = strconv.ParseInt(cur, 10, 64); err != nil {
		return budgetResult{}, fmt.Errorf("redisstore: budget script returned slice %q", cur)
	}
	return r, nil
}

// Reserve implements cascade.Store: the check and the count are one
// script, atomic across every replica.
func (s *Store) Reserve(ctx context.Context, b cascade.Budget) (cascade.Charge, error) {
	r, err := s.budget(ctx, b, "reserve", 0)
	if err != nil {
		return cascade.Charge{}, err
	}
	if !r.ok {
		if b.MaxCalls > 0 && r.calls >= int64(b.MaxCalls) {
			return cascade.Charge{}, fmt.Errorf("%w: %d fallback calls in the last %v across the fleet (limit %d)", guard.ErrFallbackBudget, r.calls, b.Window, b.MaxCalls)
		}
		return cascade.Charge{}, fmt.Errorf("%w: %d tokens in the last %v across the fleet (limit %d)", guard.ErrFallbackBudget, r.tokens, b.Window, b.MaxTokens)
	}
	return cascade.Charge{Bucket: r.slice}, nil
}

// Spend implements cascade.Store.
func (s *Store) Spend(ctx context.Context, b cascade.Budget, tokens int) error {
	if tokens <= 0 {
		return nil
	}
	_, err := s.budget(ctx, b, "spend", int64(tokens))
	return err
}

// Refund implements cascade.Store.
func (s *Store) Refund(ctx context.Context, b cascade.Budget, c cascade.Charge) error {
	_, err := s.budget(ctx, b, "refund", c.Bucket)
	return err
}

// Usage returns the calls and tokens the fleet has spent in b's window now.
func (s *Store) Usage(ctx context.Context, b cascade.Budget) (calls, tokens int, err error) {
	r, err := s.budget(ctx, b, "usage", 0)
	return int(r.calls), int(r.tokens), err
}

// Count implements cascade.Store: it adds c to counters held in memory,
// which go to Redis with the first operation after FlushInterval, or with
// Flush. It never blocks on Redis.
func (s *Store) Count(c cascade.Counts) {
	s.mu.Lock()
	s.pending = s.pending.Add(c)
	s.mu.Unlock()
}

func (s *Store) flushIfDue(ctx context.Context) {
	s.mu.Lock()
	due := !s.pending.IsZero() && s.opt.Now().Sub(s.lastFlush) >= s.opt.FlushInterval
	s.mu.Unlock()
	if due {
		_ = s.flush(ctx)
	}
}

// counterFields names the fleet counters' hash fields.
var counterFields = [...]string{"escalations", "requested", "cacheHits", "sharedHits", "settled", "abstained", "fallbackCalls", "refusedBudget", "tokens", "storeFallbacks"}

func countsSlice(c *cascade.Counts) [len(counterFields)]*uint64 {
	return [...]*uint64{&c.Escalations, &c.Requested, &c.CacheHits, &c.SharedHits, &c.Settled, &c.Abstained, &c.FallbackCalls, &c.RefusedBudget, &c.Tokens, &c.StoreFallbacks}
}

// flush sends the pending counters in one transaction. Counters that could
// not be sent stay pending (a reply lost after Redis applied them would
// count them twice: the counters are for dashboards, not for billing).
func (s *Store) flush(ctx context.Context) error {
	s.mu.Lock()
	c := s.pending
	s.pending = cascade.Counts{}
	s.lastFlush = s.opt.Now()
	s.mu.Unlock()
	if c.IsZero() {
		return nil
	}
	key := s.opt.Prefix + "counts"
	vals := countsSlice(&c)
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		for i, v := range vals {
			if *v != 0 {
				p.HIncrBy(ctx, key, counterFields[i], int64(*v))
			}
		}
		return nil
	})
	if err != nil {
		s.Count(c)
		return fmt.Errorf("redisstore: flushing counters: %w", err)
	}
	return nil
}

// Flush sends the counters gathered so far to Redis now (asking Redis even
// within RetryAfter of a failure). Counters it could not send stay pending.
func (s *Store) Flush(ctx context.Context) error { return s.flush(ctx) }

// Counts returns the fleet's counters: what every replica on this Redis and
// prefix has flushed.
func (s *Store) Counts(ctx context.Context) (cascade.Counts, error) {
	m, err := s.rdb.HGetAll(ctx, s.opt.Prefix+"counts").Result()
	if err != nil {
		return cascade.Counts{}, fmt.Errorf("redisstore: reading counters: %w", err)
	}
	var c cascade.Counts
	vals := countsSlice(&c)
	for i, f := range counterFields {
		if v, ok := m[f]; ok {
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return cascade.Counts{}, fmt.Errorf("redisstore: counter %s = %q", f, v)
			}
			*vals[i] = n
		}
	}
	return c, nil
}

// Entries returns how many estimates the shared cache indexes now (entries
// whose TTL has passed may still be counted until the next write).
func (s *Store) Entries(ctx context.Context) (int64, error) {
	return s.rdb.ZCard(ctx, s.opt.Prefix+"index").Result()
}

// shareScript keeps one risk window of cascade.Limits.Share for a fleet:
// a sorted set of the risks (KEYS[1]; members "<seq>:<top>", scored by the
// risk), a list of the members in arrival order (KEYS[2]), a sequence
// (KEYS[3]) and the count of members admitted by rank (KEYS[4]). ARGV: the
// window size, its top fraction, the risk, the warm-up size, the keys'
// time to live in ms. Like
// cascade.MemoryStore.AdmitRisk, it ranks the risk against the window as it
// stands (admitted by rank when the window is warm, the risk is above the
// value at rank ⌊(1 − top) × n⌋ of the n risks, and fewer than
// ⌈top × min(n + 1, size)⌉ were admitted so), then adds it and drops the oldest beyond the size. It
// returns {warm, top}. Atomic across replicas.
var shareScript = redis.NewScript(`
local z, l, sq, tk = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local size = tonumber(ARGV[1])
local top = tonumber(ARGV[2])
local risk = tonumber(ARGV[3])
local warmup = tonumber(ARGV[4])
local ttl = tonumber(ARGV[5])
local n = redis.call('ZCARD', z)
local warm, istop = 0, 0
if n >= warmup then
  warm = 1
  local r = math.floor((1 - top) * n)
  if r > n - 1 then r = n - 1 end
  local th = tonumber(redis.call('ZRANGE', z, r, r, 'WITHSCORES')[2])
  local tops = tonumber(redis.call('GET', tk) or '0')
  local m = n + 1
  if m > size then m = size end
  if risk >= th and tops < math.ceil(top * m - 1e-9) then istop = 1 end
end
local m = redis.call('INCR', sq) .. ':' .. istop
redis.call('ZADD', z, ARGV[3], m)
redis.call('RPUSH', l, m)
if istop == 1 then redis.call('INCR', tk) end
while redis.call('LLEN', l) > size do
  local old = redis.call('LPOP', l)
  redis.call('ZREM', z, old)
  if string.sub(old, -2) == ':1' then redis.call('DECR', tk) end
end
for _, k in ipairs(KEYS) do redis.call('PEXPIRE', k, ttl) end
return {warm, istop}
`)

// AdmitRisk implements cascade.ShareStore: one risk window for every
// replica with the same prefix, ranked and updated in one script. The
// window's keys live TTL after their last use.
func (s *Store) AdmitRisk(ctx context.Context, w cascade.RiskWindow, risk float64) (cascade.Admission, error) {
	if w.Size <= 0 || !(w.Top >= 0 && w.Top <= 1) {
		return cascade.Admission{}, fmt.Errorf("redisstore: risk window %+v: want a positive size and a top fraction in [0, 1]", w)
	}
	if math.IsNaN(risk) {
		risk = 1
	}
	base := s.opt.Prefix + "share:" + strconv.Itoa(w.Size) + ":" + strconv.FormatFloat(w.Top, 'g', -1, 64) + ":"
	keys := []string{base + "z", base + "l", base + "seq", base + "tops"}
	var res []any
	err := s.do(ctx, func(ctx context.Context) error {
		var err error
		res, err = shareScript.Run(ctx, s.rdb, keys, w.Size, strconv.FormatFloat(w.Top, 'g', 17, 64), strconv.FormatFloat(risk, 'g', 17, 64),
			min(cascade.ShareWarmup, w.Size), s.opt.TTL.Milliseconds()).Slice()
		return err
	})
	if err != nil {
		return cascade.Admission{}, err
	}
	if len(res) != 2 {
		return cascade.Admission{}, fmt.Errorf("redisstore: share script returned %d values", len(res))
	}
	warm, _ := res[0].(int64)
	top, _ := res[1].(int64)
	return cascade.Admission{Warm: warm == 1, Top: top == 1}, nil
}

var _ cascade.ShareStore = (*Store)(nil)
