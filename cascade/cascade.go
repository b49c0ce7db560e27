package cascade

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sony/gobreaker/v2"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"

	"github.com/ragtriage/ragtriage/guard"
)

// The texts an abstention's Reason starts with, before ": " and details.
// They are for people: code matches the estimate's Cause.
const (
	reasonBreakerOpen = "circuit breaker open"
	reasonDeadline    = "deadline too near"
	reasonBudget      = "budget spent"
	reasonConcurrency = "concurrency limit reached"
	reasonShare       = "share spent"
	reasonFailed      = "fallback failed"
	reasonCancelled   = "request ended before the fallback answered"
	reasonClosed      = "cascade closed"
	reasonNoEstimate  = "fallback gave no estimate"
)

// ErrCallerGone is wrapped by the error a fallback call ends with when the
// caller's context ended first (cancelled, or its deadline passed). Such a
// call says nothing about the fallback's health: the cascade's breaker counts
// it neither as a success nor as a failure. A breaker passed with WithBreaker
// should do the same by setting gobreaker.Settings.IsExcluded to IsExcluded.
var ErrCallerGone = errors.New("cascade: the request ended before the fallback answered")

// IsExcluded reports whether err is one the breaker must not count: it wraps
// ErrCallerGone. Use it as gobreaker.Settings.IsExcluded.
func IsExcluded(err error) bool { return errors.Is(err, ErrCallerGone) }

// Breaker is the circuit breaker the fallback runs behind;
// *gobreaker.CircuitBreaker[[]guard.Estimate] implements it.
type Breaker interface {
	Name() string
	State() gobreaker.State
	Execute(req func() ([]guard.Estimate, error)) ([]guard.Estimate, error)
}

// Limits bound how the fallback is called. A zero field means its default
// (DefaultLimits); negative fields are invalid except MaxWaiting, where
// NoLimit means no bound.
type Limits struct {
	// MaxConcurrent is the most fallback calls under way at once. Default 8.
	MaxConcurrent int
	// MaxWaiting is how many calls may wait for a free slot when
	// MaxConcurrent are under way. A waiting call gives up once the slot
	// could no longer be used in time: when the time left before its
	// deadline falls below the fallback's p95 latency. It then abstains
	// with guard.CauseDeadline. Calls beyond MaxWaiting abstain at once
	// with guard.CauseConcurrency. Zero is the default: nobody waits.
	// NoLimit (any negative value) means no bound: every call waits for a
	// slot, until its deadline makes the slot useless.
	MaxWaiting int
	// CallTimeout caps one fallback call, whatever the caller's context.
	// A fallback that ignores its context holds the caller at most
	// CallTimeout plus a grace: a tenth of CallTimeout or
	// half the Reserve, whichever is longer, and never more than a second.
	// A call stopped by this cap, or an answer given after it, abstains
	// with guard.CauseDeadline and counts as a failure of the fallback.
	// One stopped by the caller's own deadline does not count. Default 30s.
	CallTimeout time.Duration
	// Reserve is kept back from the caller's deadline. The fallback call
	// must end that long before it, and the caller stops waiting half that
	// long before it. So the guard can still assemble and return its result
	// in time. Default 10ms.
	Reserve time.Duration
	// LatencyWindow is how many recent fallback latencies the p95 is taken
	// over. Default 128.
	LatencyWindow int
	// MinLatencySamples is how many latencies must be seen before the p95
	// is used to skip calls that could not finish in time. Default 5.
	MinLatencySamples int
	// LatencyMaxAge is how long the p95 is trusted without a new
	// observation. A p95 that makes every caller skip the fallback is never
	// refreshed; once it is this old, calls go through again and measure.
	// Default 30s.
	LatencyMaxAge time.Duration
	// ProbeInterval is how long the p95 may go without a new observation
	// before one call goes through anyway, although the p95 says it could
	// not finish in time. Then one goes per interval. So a fallback that
	// has recovered, or only looked slow while the machine was busy, is
	// measured again. A probe that answers faster than the p95 starts a new
	// window. A probe needs more than twice Reserve left. Default 500ms.
	ProbeInterval time.Duration
	// StoreTimeout caps each operation on a shared store (WithStore), and
	// each ends half the Reserve before the caller's deadline at the
	// latest. An operation that runs out of time is served by the
	// in-process store and counted. Default 50ms.
	StoreTimeout time.Duration

	// Share bounds the fraction of escalations sent to the fallback, in
	// (0, 1]; 0 (the default) is no bound. It works beside Budget, which
	// stays a hard cap: an escalation must be admitted by the share, then
	// find budget, and the last BudgetRiskReserve of a call budget is kept
	// for the escalations admitted by rank. It is counted over the last ShareWindow escalations,
	// and the riskiest get it. Each escalation's risk (see Risk) is
	// ranked against the window's recent risks:
	//
	//   - Top = Share × (1 − ShareUniform) of the window is admitted by
	//     rank: an escalation whose risk is above the window's (1 − Top)
	//     quantile, while fewer than ⌈Top × n⌉ of the window's n
	//     escalations (n + 1 while it fills) were admitted so, goes to the
	//     fallback. Its inclusion probability is 1.
	//   - Every other escalation is drawn uniformly, with probability
	//     u = (Share − Top) / (1 − Top) (from ShareSeed), and that is its
	//     inclusion probability. So every uncertain answer has a known
	//     probability > 0 of being seen, and what the fallback says about
	//     the sample estimates the whole traffic without bias
	//     (Horvitz–Thompson; docs/estimates.md).
	//   - Until the window holds 32 risks (or ShareWindow, when fewer),
	//     every escalation is drawn with probability Share.
	//
	// On average a fraction Share of escalations is admitted; the part by
	// rank never exceeds ⌈Top × ShareWindow⌉ in a window (nor Top of the
	// escalations seen while the first window fills), the drawn part
	// varies as a binomial. The least risky escalations are refused first:
	// those below the quantile that the draw did not pick. They abstain
	// with guard.CauseShare and take the degrade rule; every estimate the
	// cascade returns for a share-governed escalation carries its
	// inclusion probability (guard.Estimate.Inclusion, which the guard
	// copies to guard.FallbackInfo.Inclusion). Admission comes before the
	// cache: a refused escalation is not looked up. With a ShareStore
	// (WithStore), a fleet ranks against one window. Deterministic for a
	// given order of escalations (one worker) and seed; replicas should
	// use distinct seeds. A teacher draw (guard.Escalation.Teacher, from
	// guard.Teach) is no escalation of an uncertain answer: it is not
	// ranked, takes no place in the window and is never refused by the
	// share (its own draw is the sample it records); it may not spend the
	// budget's reserve for the riskiest.
	Share float64
	// ShareWindow is the number of recent escalations Share is counted
	// over. Required with Share (there is no default: a share over a
	// window of no answers is a configuration error).
	ShareWindow int
	// ShareUniform is the part of Share drawn uniformly among the
	// escalations below the quantile, in [0, 1); 0 is
	// DefaultShareUniform (0.1). A larger part gives tighter estimates
	// of the whole traffic and catches fewer risky answers.
	ShareUniform float64
	// ShareSeed seeds the uniform draw.
	ShareSeed uint64
}

// DefaultLimits are the limits used when none are set.
var DefaultLimits = Limits{MaxConcurrent: 8, CallTimeout: 30 * time.Second, Reserve: 10 * time.Millisecond, LatencyWindow: 128, MinLatencySamples: 5, LatencyMaxAge: 30 * time.Second, ProbeInterval: 500 * time.Millisecond, StoreTimeout: 50 * time.Millisecond}

// NoLimit, as Limits.MaxWaiting, means no bound on the calls waiting for a
// slot.
const NoLimit = -1

func (l Limits) withDefaults() (Limits, error) {
	if err := l.validateShare(); err != nil {
		return l, err
	}
	if l.MaxConcurrent < 0 || l.CallTimeout < 0 || l.Reserve < 0 || l.LatencyWindow < 0 || l.MinLatencySamples < 0 || l.LatencyMaxAge < 0 || l.ProbeInterval < 0 || l.StoreTimeout < 0 {
		return l, fmt.Errorf("cascade: limits %+v: negative field", l)
	}
	d := DefaultLimits
	if l.MaxConcurrent == 0 {
		l.MaxConcurrent = d.MaxConcurrent
	}
	if l.CallTimeout == 0 {
		l.CallTimeout = d.CallTimeout
	}
	if l.Reserve == 0 {
		l.Reserve = d.Reserve
	}
	if l.LatencyWindow == 0 {
		l.LatencyWindow = d.LatencyWindow
	}
	if l.MinLatencySamples == 0 {
		l.MinLatencySamples = d.MinLatencySamples
	}
	if l.LatencyMaxAge == 0 {
		l.LatencyMaxAge = d.LatencyMaxAge
	}
	if l.ProbeInterval == 0 {
		l.ProbeInterval = d.ProbeInterval
	}
	if l.StoreTimeout == 0 {
		l.StoreTimeout = d.StoreTimeout
	}
	if l.MaxWaiting < 0 {
		l.MaxWaiting = math.MaxInt32
	}
	if l.MinLatencySamples > l.LatencyWindow {
		return l, fmt.Errorf("cascade: limits: MinLatencySamples %d > LatencyWindow %d", l.MinLatencySamples, l.LatencyWindow)
	}
	return l, nil
}

// DefaultCacheSize is the number of estimates the cache holds by default.
const DefaultCacheSize = 4096

// CacheOff, as a cache size (WithCacheSize, Config.CacheSize), turns the
// in-process cache off; any negative size does.
const CacheOff = -1

// DefaultBreakerSettings are the breaker settings used when none are given:
// open after 5 consecutive failures, try one call again after 30s, close
// after it succeeds.
var DefaultBreakerSettings = gobreaker.Settings{
	Name:        "ragtriage-fallback",
	MaxRequests: 1,
	Timeout:     30 * time.Second,
	ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= 5 },
}

type config struct {
	limits    Limits
	budget    Budget
	settings  *gobreaker.Settings
	breaker   Breaker
	cacheSize int
	shared    Store
	mp        metric.MeterProvider
	now       func() time.Time
	risk      func(*guard.Escalation) float64
}

// Option configures a Cascade.
type Option func(*config) error

// WithLimits sets the concurrency limit, timeouts and latency window.
func WithLimits(l Limits) Option {
	return func(c *config) error { c.limits = l; return nil }
}

// WithBudget caps the fallback's call rate and token spend.
func WithBudget(b Budget) Option {
	return func(c *config) error {
		if err := b.validate(); err != nil {
			return err
		}
		c.budget = b
		return nil
	}
}

// WithBreakerSettings builds the breaker from s. Zero fields keep
// gobreaker's defaults, except Name (DefaultBreakerSettings.Name when
// empty). IsExcluded is extended so that calls the caller ended are never
// counted; OnStateChange is wrapped so that trips are counted (the wrapped
// function runs with the breaker's lock held and must not call the breaker).
// For tests, a short Timeout moves the breaker from open to half-open soon:
// gobreaker reads time.Now itself and takes no clock.
func WithBreakerSettings(s gobreaker.Settings) Option {
	return func(c *config) error {
		if c.breaker != nil {
			return errors.New("cascade: WithBreakerSettings and WithBreaker are exclusive")
		}
		c.settings = &s
		return nil
	}
}

// WithBreaker runs the fallback behind b, a breaker the caller made (and may
// share or watch). Its settings should use IsExcluded. Trips are then
// counted when the cascade sees the state change, which may miss an open
// period no call observed.
func WithBreaker(b Breaker) Option {
	return func(c *config) error {
		if b == nil {
			return errors.New("cascade: WithBreaker: nil breaker")
		}
		if c.settings != nil {
			return errors.New("cascade: WithBreakerSettings and WithBreaker are exclusive")
		}
		c.breaker = b
		return nil
	}
}

// WithCacheSize sets how many estimates the in-process LRU cache holds: 0
// is the default, DefaultCacheSize; CacheOff (any negative size) turns it
// off (a shared store given with WithStore is still asked).
func WithCacheSize(n int) Option {
	return func(c *config) error { c.cacheSize = n; return nil }
}

// WithStore shares the cache, the budget and counters through s, for a
// fleet of replicas (package cascade/redisstore). Lookups try the
// in-process cache first, then s. A call needs both the in-process budget
// and s's budget to allow it. So N replicas spend one budget, and each is
// still held to what it would spend alone. Settled estimates, spend and
// refunds go to both. An operation on s that fails or takes longer than
// Limits.StoreTimeout is served by the in-process store alone, and counted
// (Stats.StoreFallbacks). The replica then goes on as if it were alone, and
// uses s again as soon as s answers.
func WithStore(s Store) Option {
	return func(c *config) error {
		if s == nil {
			return errors.New("cascade: WithStore: nil store")
		}
		c.shared = s
		return nil
	}
}

// WithRisk replaces Risk as the risk Limits.Share ranks escalations by
// (higher is riskier). f must be cheap, safe for concurrent use, and leave
// the escalation unchanged.
func WithRisk(f func(*guard.Escalation) float64) Option {
	return func(c *config) error {
		if f == nil {
			return errors.New("cascade: WithRisk: nil function")
		}
		c.risk = f
		return nil
	}
}

// WithMeterProvider records metrics with mp instead of the global
// MeterProvider.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(c *config) error {
		if mp == nil {
			return errors.New("cascade: WithMeterProvider: nil provider")
		}
		c.mp = mp
		return nil
	}
}

// WithClock sets the cascade's clock (time.Now by default). It times
// fallback calls for the p95 and slides the in-process budget window. It
// also says how much time is left before a context's deadline, and sets the
// deadlines of the fallback call and of shared-store operations. So it must
// read wall time, as context deadlines do. A test's manual clock may differ
// only when every deadline the cascade sees is built from it. A shared store
// keeps its own clock.
func WithClock(now func() time.Time) Option {
	return func(c *config) error {
		if now == nil {
			return errors.New("cascade: WithClock: nil clock")
		}
		c.now = now
		return nil
	}
}

// Cascade settles escalated decisions with a slower fallback judge. The
// judge sits behind a circuit breaker, a cache, a concurrency limit, a
// deadline check and a budget. A Cascade implements guard.Escalator,
// guard.Describer and guard.ContextHonourer. It is safe for concurrent use;
// Close ends the calls it has under way.
type Cascade struct {
	fallback guard.Judge
	info     guard.JudgeInfo
	limits   Limits
	breaker  Breaker
	own      bool         // the breaker was built here (trips counted exactly)
	local    *MemoryStore // the in-process cache and budget
	budget   *budget      // local's account for bcfg (nil: unlimited)
	bcfg     Budget
	shared   Store // nil unless WithStore
	lat      *latencyWindow
	share    *shareGate   // nil without Limits.Share
	probed   atomic.Int64 // clock time (Unix ns) of the last latency probe
	sem      chan struct{}
	waiting  atomic.Int64
	flights  flights
	now      func() time.Time
	m        *metrics
	closed   atomic.Bool
	unreg    sync.Once
	last     atomic.Int32 // last breaker state seen (for a caller's breaker)
	st       counters
}

// New returns a Cascade around the fallback judge. It refuses a nil
// fallback, including a nil pointer in a Judge (what a failed constructor
// returns beside its error). Close the Cascade when done with it.
func New(fallback guard.Judge, opts ...Option) (*Cascade, error) {
	if err := checkFallback(fallback); err != nil {
		return nil, err
	}
	cfg := config{now: time.Now}
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	lim, err := cfg.limits.withDefaults()
	if err != nil {
		return nil, err
	}
	c := &Cascade{fallback: fallback, limits: lim, now: cfg.now}
	if d, ok := fallback.(guard.Describer); ok {
		c.info = d.Describe()
	}
	if c.info.Name == "" {
		c.info.Name = fmt.Sprintf("%T", fallback)
	}
	if c.local, err = NewMemoryStore(cfg.cacheSize, cfg.now); err != nil {
		return nil, err
	}
	c.bcfg, c.shared = cfg.budget, cfg.shared
	c.budget = c.local.account(cfg.budget)
	c.share = newShareGate(lim)
	if c.share != nil {
		c.share.risk = cfg.risk
	}
	c.lat = newLatencyWindow(lim.LatencyWindow, lim.MinLatencySamples, lim.LatencyMaxAge, cfg.now)
	c.sem = make(chan struct{}, lim.MaxConcurrent)
	c.flights.joined = func() { c.st.collapsed.Add(1) }
	c.flights.now = cfg.now
	if cfg.breaker != nil {
		c.breaker = cfg.breaker
		c.last.Store(int32(c.breaker.State()))
	} else {
		s := DefaultBreakerSettings
		if cfg.settings != nil {
			s = *cfg.settings
			if s.Name == "" {
				s.Name = DefaultBreakerSettings.Name
			}
		}
		userExcluded, userChange := s.IsExcluded, s.OnStateChange
		s.IsExcluded = func(err error) bool {
			return IsExcluded(err) || (userExcluded != nil && userExcluded(err))
		}
		s.OnStateChange = func(name string, from, to gobreaker.State) {
			// Runs under the breaker's lock: count, never call the breaker.
			if to == gobreaker.StateOpen {
				c.st.trips.Add(1)
				if c.m != nil {
					c.m.trips.Add(context.Background(), 1, c.m.breakerAttr)
				}
			}
			if userChange != nil {
				userChange(name, from, to)
			}
		}
		c.breaker = gobreaker.NewCircuitBreaker[[]guard.Estimate](s)
		c.own = true
	}
	mp := cfg.mp
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	if c.m, err = newMetrics(mp, c); err != nil {
		return nil, fmt.Errorf("cascade: metrics: %w", err)
	}
	return c, nil
}

// Describe names the cascade after its fallback judge.
func (c *Cascade) Describe() guard.JudgeInfo {
	return guard.JudgeInfo{Name: "cascade(" + c.info.Name + ")", Version: c.info.Version}
}

// Fallback returns the name and version of the fallback judge.
func (c *Cascade) Fallback() guard.JudgeInfo { return c.info }

// Close stops new escalations: they abstain with guard.CauseClosed. It
// waits until the fallback calls under way have ended, or ctx is done.
// Calls end by themselves at their deadline, or as soon as nobody waits for
// them.
func (c *Cascade) Close(ctx context.Context) error {
	c.closed.Store(true)
	c.flights.close()
	done := make(chan struct{})
	go func() { c.flights.wg.Wait(); close(done) }()
	select {
	case <-done:
		var err error
		c.unreg.Do(func() { err = c.m.reg.Unregister() })
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// item is one estimate an escalation asks for.
type item struct {
	d   guard.Decision
	ctx string
	ci  int // index of ctx in the sample's contexts; -1 when ctx is empty
}

// items lists the estimates esc asks for, in request order, chunk relevance
// once per listed context (every context when ContextIDs is empty). It
// trusts esc to be as a guard makes it: valid decisions, contexts of the
// sample, correctness only with a reference.
func items(esc *guard.Escalation) []item {
	s := esc.Sample
	out := make([]item, 0, len(esc.Decisions)+len(esc.ContextIDs))
	seen := uint16(0)
	for _, d := range esc.Decisions {
		if seen&(1<<d) != 0 {
			continue
		}
		seen |= 1 << d
		if d != guard.ChunkRelevance {
			out = append(out, item{d, "", -1})
			continue
		}
		if len(esc.ContextIDs) == 0 {
			for i := range s.Contexts {
				out = append(out, item{d, s.Contexts[i].ID, i})
			}
			continue
		}
		for _, id := range esc.ContextIDs {
			if !slices.ContainsFunc(out, func(it item) bool { return it.d == d && it.ctx == id }) {
				out = append(out, item{d, id, contextIndex(s, id)})
			}
		}
	}
	return out
}

// contextIndex returns the index of the first context with the ID, or -1.
func contextIndex(s *guard.Sample, id string) int {
	for i := range s.Contexts {
		if s.Contexts[i].ID == id {
			return i
		}
	}
	return -1
}

// Escalate implements guard.Escalator. It returns one estimate per escalated
// decision (per listed context for chunk relevance), from the cache or the
// fallback. An estimate the fallback could not give is abstained, with a
// Cause and a Reason for people. That happens when the breaker is open, the
// deadline too near, the budget spent, no slot free, or the fallback failed.
// Escalate trusts esc to be as a guard makes it: valid decisions, contexts
// of the sample, and correctness only with a reference. It returns no
// error.
func (c *Cascade) Escalate(ctx context.Context, esc guard.Escalation) ([]guard.Estimate, error) {
	its := items(&esc)
	c.st.escalations.Add(1)
	c.st.requested.Add(uint64(len(its)))
	out := make([]guard.Estimate, len(its))
	if len(its) == 0 {
		return out, nil
	}
	low := false
	switch {
	case c.share != nil && esc.Teacher:
		// A teacher draw is its own uniform sample (guard.Draw): not
		// ranked, not in the risk window, never refused by the share. Like
		// an escalation the share drew, it may not spend the budget's
		// reserve for the riskiest.
		low = true
	case c.share != nil:
		pi, ok := c.admit(ctx, &esc)
		low = pi < 1
		if !ok {
			c.refuseShare(ctx, its, out, pi)
			return out, nil
		}
		defer func() {
			for i := range out {
				out[i].Inclusion = pi
			}
		}()
	}
	s := esc.Sample
	keys := make([]Key, len(its)) // small: on the stack
	misses, cnt := c.lookup(ctx, its, keys, out, s)
	if len(misses) == 0 {
		c.report(cnt)
		return out, nil
	}
	if c.local.cache != nil || c.shared != nil {
		c.m.cache.Add(ctx, int64(len(misses)), c.m.miss)
	}
	whole, chunks := split(its, keys, misses, s)
	whole.low, chunks.low = low, low
	resWhole, resChunks := c.runBoth(ctx, &whole, &chunks)
	c.place(ctx, out, &whole, resWhole, &cnt)
	c.place(ctx, out, &chunks, resChunks, &cnt)
	c.report(cnt)
	return out, nil
}

// HonoursContext implements guard.ContextHonourer. Escalate returns half the
// reserve before its context's deadline, or soon after it is cancelled, so
// the guard calls it on the caller's goroutine.
func (c *Cascade) HonoursContext() bool { return true }

// lookup answers what the caches hold into out: the in-process cache, then
// the shared store. It fills in the items' keys, and returns the slots still
// missing and the escalation's counts so far.
func (c *Cascade) lookup(ctx context.Context, its []item, keys []Key, out []guard.Estimate, s *guard.Sample) ([]int, Counts) {
	kr := newKeyer(c.info, s)
	var misses []int
	for i, it := range its {
		keys[i] = kr.key(it.d, it.ctx, it.ci)
		if e, ok := c.local.get(keys[i]); ok {
			out[i] = fromCache(e, s)
			continue
		}
		misses = append(misses, i)
	}
	cnt := Counts{Escalations: 1, Requested: uint64(len(its))}
	sharedHits := 0
	if c.shared != nil && len(misses) > 0 {
		misses, sharedHits = c.lookupShared(ctx, its, keys, misses, out, s)
	}
	hits := len(its) - len(misses)
	c.st.hits.Add(uint64(hits))
	c.st.misses.Add(uint64(len(misses)))
	cnt.CacheHits, cnt.SharedHits = uint64(hits), uint64(sharedHits)
	if hits > 0 {
		c.m.cache.Add(ctx, int64(hits), c.m.hit)
	}
	if sharedHits > 0 {
		c.st.sharedHits.Add(uint64(sharedHits))
		c.m.sharedHits.Add(ctx, int64(sharedHits))
	}
	return misses, cnt
}

// split divides the misses into at most two calls. The set-level decisions
// go on the whole sample. Chunk relevance goes on a sample holding only the
// chunks asked about: a chunk's relevance depends on the question and that
// chunk alone. When every chunk is asked, one call does both.
func split(its []item, keys []Key, misses []int, s *guard.Sample) (whole, chunks group) {
	for _, i := range misses {
		if its[i].d == guard.ChunkRelevance {
			chunks.ctxIDs = append(chunks.ctxIDs, its[i].ctx)
			chunks.slots = append(chunks.slots, i)
		} else {
			whole.decisions = append(whole.decisions, its[i].d)
			whole.slots = append(whole.slots, i)
		}
	}
	if len(chunks.ctxIDs) == len(s.Contexts) && len(chunks.ctxIDs) > 0 {
		whole.decisions = append(whole.decisions, guard.ChunkRelevance)
		whole.ctxIDs = chunks.ctxIDs
		whole.slots = append(whole.slots, chunks.slots...)
		chunks = group{}
	}
	if len(chunks.ctxIDs) > 0 {
		chunks.decisions = []guard.Decision{guard.ChunkRelevance}
		sub := *s
		sub.Contexts = make([]guard.Context, 0, len(chunks.ctxIDs))
		for _, id := range chunks.ctxIDs {
			if k := contextIndex(s, id); k >= 0 {
				sub.Contexts = append(sub.Contexts, s.Contexts[k])
			}
		}
		chunks.req = guard.Request{Sample: &sub, Decisions: chunks.decisions}
	}
	whole.req = guard.Request{Sample: s, Decisions: whole.decisions}
	for _, g := range []*group{&whole, &chunks} {
		for _, slot := range g.slots {
			g.items = append(g.items, its[slot])
			g.keys = append(g.keys, keys[slot])
		}
	}
	return whole, chunks
}

// runBoth runs the calls of whole and chunks, concurrently when there are
// two.
func (c *Cascade) runBoth(ctx context.Context, whole, chunks *group) (resWhole, resChunks outcome) {
	switch {
	case len(chunks.decisions) == 0:
		return c.run(ctx, whole), outcome{}
	case len(whole.decisions) == 0:
		return outcome{}, c.run(ctx, chunks)
	}
	return c.runTwo(ctx, whole, chunks)
}

// runTwo runs the calls of whole and chunks concurrently.
func (c *Cascade) runTwo(ctx context.Context, whole, chunks *group) (resWhole, resChunks outcome) {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); resChunks = c.run(ctx, chunks) }()
	resWhole = c.run(ctx, whole)
	wg.Wait()
	return resWhole, resChunks
}

// report hands an escalation's counts to the shared store, if any.
func (c *Cascade) report(cnt Counts) {
	if c.shared != nil {
		c.shared.Count(cnt)
	}
}

// storeCtx bounds one shared-store operation: Limits.StoreTimeout, and half
// the reserve before the caller's deadline.
func (c *Cascade) storeCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	d := c.limits.StoreTimeout
	if dl, ok := ctx.Deadline(); ok {
		d = min(d, dl.Sub(c.now())-c.limits.Reserve/2)
	}
	return context.WithTimeout(ctx, d)
}

// storeFailed counts a shared-store operation that failed or ran out of
// time and was served by the in-process store.
func (c *Cascade) storeFailed(ctx context.Context, op storeOp) {
	c.st.storeFallbacks.Add(1)
	c.m.storeFallbacks.Add(context.WithoutCancel(ctx), 1, c.m.storeOp[op])
	c.shared.Count(Counts{StoreFallbacks: 1})
}

// lookupShared asks the shared store for the keys the in-process cache
// missed, fills out with what it finds (warming the in-process cache), and
// returns the slots still missing and how many the shared store answered.
// An entry that does not fit its item (another decision, context, an
// abstention or a probability outside [0, 1]) is a miss.
func (c *Cascade) lookupShared(ctx context.Context, its []item, keys []Key, misses []int, out []guard.Estimate, s *guard.Sample) ([]int, int) {
	mk := make([]Key, len(misses))
	for j, i := range misses {
		mk[j] = keys[i]
	}
	sctx, cancel := c.storeCtx(ctx)
	ests, found, err := c.shared.Get(sctx, mk)
	cancel()
	if err == nil && (len(ests) != len(mk) || len(found) != len(mk)) {
		err = fmt.Errorf("store returned %d estimates and %d flags for %d keys", len(ests), len(found), len(mk))
	}
	if err != nil {
		c.storeFailed(ctx, opGet)
		return misses, 0
	}
	left, n := misses[:0], 0
	for j, i := range misses {
		e := ests[j]
		if found[j] && e.Decision == its[i].d && e.ContextID == its[i].ctx && !e.Abstained && e.P >= 0 && e.P <= 1 {
			e.Usage, e.Latency = guard.Usage{}, 0
			c.local.put(keys[i], e)
			out[i] = fromCache(e, s)
			n++
			continue
		}
		left = append(left, i)
	}
	return left, n
}

// group is one fallback call an escalation makes.
type group struct {
	decisions []guard.Decision
	ctxIDs    []string // chunk relevance contexts; nil when not asked
	slots     []int    // indexes into the escalation's items
	items     []item   // the items of slots, in order
	keys      []Key    // their cache keys
	req       guard.Request
	// low: the escalation was admitted by Limits.Share's uniform draw,
	// not by rank; it may not spend the budget's last BudgetRiskReserve.
	low bool
}

// place puts a call's outcome into the escalation's result slots, caching
// what the fallback settled and abstaining what it did not.
func (c *Cascade) place(ctx context.Context, out []guard.Estimate, g *group, res outcome, cnt *Counts) {
	if len(g.slots) == 0 {
		return
	}
	if res.fresh && res.called {
		cnt.FallbackCalls++
		if t := cnt.Tokens + uint64(max(res.tokens, 0)); t >= cnt.Tokens {
			cnt.Tokens = t
		} else {
			cnt.Tokens = math.MaxUint64
		}
	}
	for k, slot := range g.slots {
		it := g.items[k]
		if res.reason != "" {
			out[slot] = guard.Abstain(it.d, it.ctx, res.reason)
			out[slot].Cause = res.cause
			out[slot].Judge, out[slot].JudgeVersion = c.info.Name, c.info.Version
			c.count(ctx, res.counted())
			cnt.Abstained++
			if res.cause == guard.CauseBudget {
				cnt.RefusedBudget++
			}
			continue
		}
		e := findEstimate(res.ests, it)
		switch {
		case e == nil:
			out[slot] = guard.Abstain(it.d, it.ctx, reasonNoEstimate)
			out[slot].Cause = guard.CauseFallbackAbstained
			out[slot].Judge, out[slot].JudgeVersion = c.info.Name, c.info.Version
			c.count(ctx, guard.CauseFallbackAbstained)
			cnt.Abstained++
		case e.Abstained:
			out[slot] = *e
			if out[slot].Cause == "" {
				out[slot].Cause = guard.CauseFallbackAbstained
			}
			c.count(ctx, guard.CauseFallbackAbstained)
			cnt.Abstained++
		default:
			out[slot] = *e
			c.st.settled.Add(1)
			cnt.Settled++
			v := *e
			v.Usage, v.Latency = guard.Usage{}, 0
			c.local.put(g.keys[k], v)
		}
		if !res.fresh {
			// Another caller's call: its cost is counted there, and its
			// quotes were placed in that caller's texts, which may differ
			// in whitespace from this one's.
			out[slot].Usage = guard.Usage{}
			out[slot] = fromCache(out[slot], g.req.Sample)
		}
	}
}

// findEstimate returns the estimate for it among ests, or nil.
func findEstimate(ests []guard.Estimate, it item) *guard.Estimate {
	for k := range ests {
		if ests[k].Decision == it.d && ests[k].ContextID == it.ctx {
			return &ests[k]
		}
	}
	return nil
}

// run makes (or joins) one fallback call for g, unless the breaker, the
// deadline or the cascade's state rule it out.
func (c *Cascade) run(ctx context.Context, g *group) outcome {
	if c.closed.Load() {
		return refuse(guard.CauseClosed, reasonClosed)
	}
	if c.breaker.State() == gobreaker.StateOpen {
		return refuse(guard.CauseBreakerOpen, reasonBreakerOpen+": "+c.breaker.Name())
	}
	p95 := c.lat.P95()
	probe := false
	if dl, ok := ctx.Deadline(); ok {
		if left := dl.Sub(c.now()); left < p95+c.limits.Reserve {
			// Too little time by the p95; once per ProbeInterval a caller
			// with more than the reserve left tries anyway, so that the
			// p95 cannot lock out a fallback that has become fast again.
			if left <= 2*c.limits.Reserve || !c.takeProbe() {
				return refuse(guard.CauseDeadline, fmt.Sprintf("%s: %v left, fallback p95 %v + reserve %v", reasonDeadline, left.Round(time.Microsecond), p95, c.limits.Reserve))
			}
			probe = true
		}
	}
	if err := ctx.Err(); err != nil {
		return refuseEnded(ctx, reasonCancelled+": "+err.Error())
	}
	// The call runs until the latest deadline among the callers waiting
	// for it (less the reserve), and never longer than CallTimeout.
	hard := c.now().Add(c.limits.CallTimeout)
	want := hard
	if dl, ok := ctx.Deadline(); ok {
		if d := dl.Add(-c.limits.Reserve); d.Before(want) {
			want = d
		}
	}
	// The caller stops waiting half the reserve before its deadline, even
	// if the call has not ended by then (a fallback that is slow to notice
	// its deadline, or ignores it, cannot hold the caller past its own).
	wctx := ctx
	if dl, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		wctx, cancel = context.WithDeadline(ctx, dl.Add(-c.limits.Reserve/2))
		defer cancel()
	}
	// Nor does a call that ignores its context hold the caller long past
	// CallTimeout, whatever the caller's context. The grace lets a call
	// that honours it end, and be counted, before its caller leaves.
	giveUp := hard.Add(c.limits.giveUpGrace())
	res, shared, ok := c.flights.do(wctx, callKey(g.keys), want, hard, giveUp, func(fctx *flightCtx) outcome {
		return c.call(fctx, g, probe, p95)
	})
	if !ok {
		// The wait ends half the reserve before the caller's deadline; on a
		// loaded machine that deadline may have passed too by now, which is
		// still the deadline, not a cancellation.
		switch err := ctx.Err(); {
		case err == nil && wctx.Err() == nil:
			// The caller gave up on a call that went out and outlived
			// CallTimeout: it was made, and counts as made.
			r := made(refuse(guard.CauseDeadline, fmt.Sprintf("%s: the fallback did not answer within the call timeout %v", reasonDeadline, c.limits.CallTimeout)))
			r.fresh = !shared
			return r
		case err == nil || errors.Is(err, context.DeadlineExceeded):
			return refuse(guard.CauseDeadline, reasonDeadline+": the fallback did not answer before the request's deadline")
		}
		return refuseEnded(ctx, reasonCancelled+": "+ctx.Err().Error())
	}
	res.fresh = !shared
	if res.reason == "" && ctx.Err() != nil {
		// The answer came as the caller's context ended: too late for
		// this caller, although the call was made (and is counted).
		late := refuseEnded(ctx, reasonCancelled+": "+ctx.Err().Error())
		late.fresh, late.called, late.tokens = res.fresh, res.called, res.tokens
		return late
	}
	return res
}

// takeProbe reports whether this caller may make the latency probe due now:
// one per ProbeInterval without a new latency observation or probe.
func (c *Cascade) takeProbe() bool {
	now := c.now().UnixNano()
	last := c.probed.Load()
	if now-max(last, c.lat.last.Load()) < int64(c.limits.ProbeInterval) {
		return false
	}
	if !c.probed.CompareAndSwap(last, now) {
		return false
	}
	c.st.probes.Add(1)
	return true
}

// call runs the fallback once: concurrency slot, budget, breaker. probe says
// that the call was let through by takeProbe although the p95 (p95) said it
// could not finish in time.
func (c *Cascade) call(ctx *flightCtx, g *group, probe bool, p95 time.Duration) outcome {
	if r := c.acquire(ctx); r.reason != "" {
		return r
	}
	defer func() { <-c.sem }()
	charged, sc, r := c.reserve(ctx, g.low)
	if r.reason != "" {
		return r
	}
	start := c.now()
	ran := false
	var ended error // how ctx ended, by the cascade's clock, when it did
	ests, err := c.breaker.Execute(func() ([]guard.Estimate, error) {
		ran = true
		c.st.calls.Add(1)
		ests, err := guard.Call(ctx, c.fallback, g.req)
		if ended = c.ended(ctx); ended != nil && err == nil {
			// A late answer is a deadline, not a result.
			err = fmt.Errorf("the fallback answered after its call ended: %w", ended)
		}
		if err != nil && ended != nil && (ctx.bound() || errors.Is(ended, context.Canceled)) {
			err = fmt.Errorf("%w: %w", ErrCallerGone, err)
		}
		return ests, err
	})
	elapsed := c.now().Sub(start)
	c.observeState()
	if !ran {
		return c.notRun(g, charged, sc, err)
	}
	bg := context.WithoutCancel(ctx)
	c.m.duration.Record(bg, elapsed.Seconds())
	if err == nil {
		return c.answered(bg, g, ests, sc, probe, p95, elapsed)
	}
	// What a refused answer spent still counts against the budget.
	tokens := c.spend(bg, ests)
	if IsExcluded(err) {
		r = c.excluded(ctx, ended, err, probe, elapsed)
	} else {
		r = c.failed(bg, ended, err, probe, elapsed)
	}
	r.tokens = tokens
	if c.shared != nil {
		r.after = func() { c.afterCall(g, nil, sc, true, tokens) }
	}
	return r
}

// ended returns how the call's context ctx ended: its error, or
// context.DeadlineExceeded once the cascade's clock has reached its
// deadline (the context's timer may not have fired yet), or nil.
func (c *Cascade) ended(ctx *flightCtx) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if dl, _ := ctx.Deadline(); !c.now().Before(dl) {
		return context.DeadlineExceeded
	}
	return nil
}

// failed is the outcome of a call that failed: the fallback's error, an
// answer the guard refused, or CallTimeout reached (ended is then
// context.DeadlineExceeded). It counts against the breaker.
func (c *Cascade) failed(bg context.Context, ended, err error, probe bool, elapsed time.Duration) outcome {
	c.st.callErrors.Add(1)
	c.m.calls.Add(bg, 1, c.m.failed)
	if !errors.Is(ended, context.DeadlineExceeded) {
		return made(refuse(guard.CauseFallbackFailed, reasonFailed+": "+trim(err.Error(), 300)))
	}
	if !probe {
		c.lat.Observe(elapsed)
	}
	// Stopped by CallTimeout: a failure of the fallback, and a deadline.
	return made(refuse(guard.CauseDeadline, fmt.Sprintf("%s: the fallback did not answer within the call timeout %v: %s",
		reasonDeadline, c.limits.CallTimeout, trim(err.Error(), 300))))
}

// reserve charges the budgets for one call: the in-process one, then the
// shared one. A shared store that cannot be asked leaves the in-process
// budget to decide alone.
func (c *Cascade) reserve(ctx context.Context, low bool) (charge, sharedCharge, outcome) {
	bcfg := c.bcfg
	if low && bcfg.MaxCalls > 0 {
		bcfg.MaxCalls -= int(math.Ceil(BudgetRiskReserve * float64(bcfg.MaxCalls)))
	}
	var charged charge
	var why string
	if c.budget != nil {
		charged, why = c.budget.reserve(bcfg.MaxCalls, c.bcfg.MaxCalls)
	}
	if why != "" {
		return charged, sharedCharge{}, refuse(guard.CauseBudget, reasonBudget+": "+why)
	}
	if c.shared == nil || !c.bcfg.limited() {
		return charged, sharedCharge{}, outcome{}
	}
	sctx, cancel := c.storeCtx(ctx)
	ch, err := c.shared.Reserve(sctx, bcfg)
	cancel()
	switch {
	case err == nil:
		return charged, sharedCharge{ch, true}, outcome{}
	case errors.Is(err, guard.ErrFallbackBudget):
		c.budget.Refund(charged)
		return charged, sharedCharge{}, refuse(guard.CauseBudget, reasonBudget+": fleet: "+strings.TrimPrefix(err.Error(), guard.ErrFallbackBudget.Error()+": "))
	}
	c.storeFailed(ctx, opReserve)
	return charged, sharedCharge{}, outcome{}
}

// notRun is the outcome of a call the breaker did not let through. The
// budget charged for it is refunded.
func (c *Cascade) notRun(g *group, charged charge, sc sharedCharge, err error) outcome {
	c.budget.Refund(charged)
	r := refuse(guard.CauseBreakerOpen, reasonBreakerOpen+": "+c.breaker.Name())
	if errors.Is(err, gobreaker.ErrTooManyRequests) {
		r = refuse(guard.CauseBreakerOpen, reasonBreakerOpen+": "+c.breaker.Name()+" is half-open and its probe calls are under way")
	}
	if sc.ok {
		r.after = func() { c.afterCall(g, nil, sc, false, 0) }
	}
	return r
}

// answered records a call the fallback answered: its latency (a probe that
// beat the p95 starts a new window), its tokens and its judge's name.
func (c *Cascade) answered(bg context.Context, g *group, ests []guard.Estimate, sc sharedCharge, probe bool, p95, elapsed time.Duration) outcome {
	if probe && elapsed < p95 {
		// The window describes a fallback slower than the one that
		// answered now: measure afresh.
		c.lat.Reset()
	}
	c.lat.Observe(elapsed)
	c.m.calls.Add(bg, 1, c.m.ok)
	for i := range ests {
		e := &ests[i]
		if e.Judge == "" {
			e.Judge, e.JudgeVersion = c.info.Name, c.info.Version
		}
		if e.Latency == 0 {
			e.Latency = elapsed
		}
	}
	tokens := c.spend(bg, ests)
	r := outcome{ests: ests, called: true, tokens: tokens}
	if c.shared != nil {
		r.after = func() { c.afterCall(g, ests, sc, true, tokens) }
	}
	return r
}

// spend charges the in-process budget, the stats and the token metric with
// what the fallback reported spending on ests, and returns it. A negative
// count adds nothing and the sum saturates (guard.Usage.Tokens), so no
// answer buys budget back.
func (c *Cascade) spend(bg context.Context, ests []guard.Estimate) int {
	tokens := 0
	for i := range ests {
		u := &ests[i].Usage
		tokens = satAdd(tokens, u.Tokens())
		satAddUint64(&c.st.inTokens, u.InputTokens)
		satAddUint64(&c.st.outTokens, u.OutputTokens)
	}
	c.budget.Spend(tokens)
	if tokens > 0 {
		c.m.tokens.Add(bg, int64(tokens))
	}
	return tokens
}

// excluded is the outcome of a call the caller's context ended (how: ended).
// It is not counted against the breaker.
func (c *Cascade) excluded(ctx *flightCtx, ended, err error, probe bool, elapsed time.Duration) outcome {
	c.st.excluded.Add(1)
	c.m.calls.Add(context.WithoutCancel(ctx), 1, c.m.excluded)
	if errors.Is(ended, context.DeadlineExceeded) && !probe {
		// A lower bound on the fallback's latency: keep it, so that calls
		// with as little time left are skipped. (A probe's is below the
		// p95 it tested and would only refresh the window.)
		c.lat.Observe(elapsed)
		return made(refuse(guard.CauseDeadline, fmt.Sprintf("%s: the fallback did not answer within the %v the request left it", reasonDeadline, elapsed.Round(time.Millisecond))))
	}
	o := refuseEnded(ctx, reasonCancelled+": "+err.Error())
	if errors.Is(ended, context.DeadlineExceeded) {
		o.cause = guard.CauseDeadline // by the cascade's clock; ctx's timer may not have fired
	}
	return made(o)
}

// observeState counts a trip of a caller-supplied breaker when a call sees
// it open. A breaker built by New counts its trips in OnStateChange.
func (c *Cascade) observeState() {
	if c.own {
		return
	}
	s := c.breaker.State()
	if prev := gobreaker.State(c.last.Swap(int32(s))); s == gobreaker.StateOpen && prev != gobreaker.StateOpen {
		c.st.trips.Add(1)
		c.m.trips.Add(context.Background(), 1, c.m.breakerAttr)
	}
}

// acquire takes a concurrency slot, waiting when the limits allow it.
func (c *Cascade) acquire(ctx context.Context) outcome {
	select {
	case c.sem <- struct{}{}:
		return outcome{}
	default:
	}
	if n := c.waiting.Add(1); n > int64(c.limits.MaxWaiting) {
		c.waiting.Add(-1)
		return refuse(guard.CauseConcurrency, fmt.Sprintf("%s: %d calls under way and %d waiting", reasonConcurrency, c.limits.MaxConcurrent, c.limits.MaxWaiting))
	}
	defer c.waiting.Add(-1)
	var expire <-chan time.Time
	if dl, ok := ctx.Deadline(); ok {
		wait := dl.Sub(c.now()) - c.lat.P95()
		if wait <= 0 {
			return refuse(guard.CauseDeadline, reasonDeadline+": no fallback slot was free and no time is left to wait for one")
		}
		t := time.NewTimer(wait)
		defer t.Stop()
		expire = t.C
	}
	select {
	case c.sem <- struct{}{}:
		return outcome{}
	case <-expire:
		return refuse(guard.CauseDeadline, reasonDeadline+": no fallback slot freed in time")
	case <-ctx.Done():
		return refuseEnded(ctx, reasonCancelled+" (waiting for a fallback slot): "+ctx.Err().Error())
	}
}

// refuse abstains for cause c, with the reason text for people.
func refuse(c guard.Cause, reason string) outcome {
	return outcome{reason: reason, cause: c}
}

// refuseEnded refuses because the caller's context ended. It is counted as
// cancelled (Stats.Cancelled). Its cause says how the context ended:
// CauseDeadline when its deadline passed, CauseCancelled otherwise.
func refuseEnded(ctx context.Context, reason string) outcome {
	o := refuse(guard.CauseCancelled, reason)
	o.ended = true
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		o.cause = guard.CauseDeadline
	}
	return o
}

// made marks an outcome as that of a call the fallback received (which
// failed or was cut short): it counts as a fallback call.
func made(o outcome) outcome { o.called = true; return o }

// maxGiveUpGrace bounds giveUpGrace.
const maxGiveUpGrace = time.Second

// giveUpGrace is how long past CallTimeout a caller still waits for a
// fallback call that has not ended: max(CallTimeout/10, Reserve/2), capped
// at one second. A call that honours its context ends within it, and is
// counted before its caller leaves.
func (l Limits) giveUpGrace() time.Duration {
	return min(max(l.Reserve/2, l.CallTimeout/10), maxGiveUpGrace)
}

// satAdd returns a+b with a negative term taken as zero, capped at
// math.MaxInt instead of wrapping.
func satAdd(a, b int) int {
	a, b = max(a, 0), max(b, 0)
	if a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}

// satAddUint64 adds n (taken as zero when negative) to v, capped at
// math.MaxUint64 instead of wrapping.
func satAddUint64(v *atomic.Uint64, n int) {
	if n <= 0 {
		return
	}
	for {
		old := v.Load()
		sum := old + uint64(n)
		if sum < old {
			sum = math.MaxUint64
		}
		if v.CompareAndSwap(old, sum) {
			return
		}
	}
}

func trim(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// fromCache returns an estimate made for another sample with the same key,
// every quote re-anchored on s's texts (the key ignores spacing, so offsets
// may differ); a quote that cannot be found is dropped. Usage and latency
// are left to the caller (cached estimates are stored without them).
func fromCache(e guard.Estimate, s *guard.Sample) guard.Estimate {
	if len(e.Evidence) > 0 {
		ev := e.Evidence
		for i := range ev {
			q, cp := ev[i].Quote, ev[i].Counterpart
			okQ, okC := anchor(&q, s), anchor(&cp, s)
			if !okQ || !okC || q != ev[i].Quote || cp != ev[i].Counterpart {
				if &ev[0] == &e.Evidence[0] {
					ev = append([]guard.Evidence(nil), e.Evidence...)
				}
				ev[i].Quote, ev[i].Counterpart = q, cp
			}
		}
		e.Evidence = ev
	}
	if len(e.Citations) > 0 {
		cs := e.Citations
		for i := range cs {
			q, cq := cs[i].Sentence, cs[i].Context
			anchor(&q, s)
			anchor(&cq, s)
			if q != cs[i].Sentence || cq != cs[i].Context {
				if &cs[0] == &e.Citations[0] {
					cs = append([]guard.Citation(nil), e.Citations...)
				}
				cs[i].Sentence, cs[i].Context = q, cq
			}
		}
		e.Citations = cs
	}
	return e
}

// anchor checks that q selects q.Text in s, moving it to the first
// occurrence when it does not and zeroing it when the text is absent. It
// reports whether q was usable as it stood.
func anchor(q *guard.Quote, s *guard.Sample) bool {
	if q.IsZero() {
		return true
	}
	var src string
	found := true
	switch q.Source {
	case guard.SourceQuestion:
		src = s.Question
	case guard.SourceAnswer:
		src = s.Answer
	case guard.SourceReference:
		if s.Reference != nil {
			src = *s.Reference
		} else {
			found = false
		}
	case guard.SourceContext:
		found = false
		for i := range s.Contexts {
			if s.Contexts[i].ID == q.ContextID {
				src, found = s.Contexts[i].Text, true
				break
			}
		}
	}
	if found && q.Start >= 0 && q.Start <= q.End && q.End <= len(src) && src[q.Start:q.End] == q.Text {
		return true
	}
	if found {
		if i := strings.Index(src, q.Text); i >= 0 {
			q.Start, q.End = i, i+len(q.Text)
			return false
		}
	}
	*q = guard.Quote{}
	return false
}
