package guard

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of PromiseConfig.
const (
	DefaultPromiseDelta  = 0.01
	DefaultPromisePriorA = 2.0
	DefaultPromisePriorB = 3.0
)

// PromiseConfig configures a PromiseMonitor. A zero field means its
// default; Alpha has none.
type PromiseConfig struct {
	// Alpha is the promise: the largest share of a side's automatic
	// verdicts that may disagree with the teacher. Give the alpha the
	// profile was calibrated with (`ragtriage calibrate -alpha`). It must
	// be in (0, 1).
	Alpha float64
	// Delta bounds, for each promise and side, the probability that a side
	// whose disagreement rate stays ≤ Alpha ever trips, however long the
	// monitor runs. In (0, 1); default 0.01.
	Delta float64
	// PriorA and PriorB shape the test's Beta(PriorA, PriorB) prior over a
	// broken side's disagreement rate, truncated to [Alpha, 1]. The default
	// Beta(2, 3) (mean 0.4) puts its weight on large drifts, which it
	// catches in the fewest audits: at Alpha 0.10 and Delta 0.01, a side
	// that disagrees 40% of the time trips after a median of 15 audits (90%
	// of runs within 36), one at 20% after a median of about 120 (see
	// TestPromiseDrift). Both must be positive.
	PriorA, PriorB float64
	// Store shares the tallies with the other replicas of a fleet, so that
	// one replica's audits count for all and a trip reaches all (package
	// cascade's MemoryStore within a process, cascade/redisstore's Store
	// across processes). Nil: each monitor counts its own.
	Store PromiseStore
	// StoreTimeout bounds each store operation (within the context given
	// to Observe, Sync or Reset). Default 1s.
	StoreTimeout time.Duration
	// OnTrip, when set, is called once for each side that trips, after the
	// monitor has marked it broken, on the goroutine of the Observe or Sync
	// that saw it, outside the monitor's locks.
	OnTrip func(Trip)
	// Logger receives a Warn record for each trip. Nil: slog.Default().
	Logger *slog.Logger
	// Now stamps trips. Default time.Now.
	Now func() time.Time
}

// DefaultPromiseStoreTimeout is the default of PromiseConfig.StoreTimeout.
const DefaultPromiseStoreTimeout = time.Second

// A PromiseStore shares the tallies of PromiseMonitors among the replicas
// of a fleet. A promise's tallies live under its Promise.Key; an epoch
// counts its resets. Package cascade's MemoryStore and
// cascade/redisstore's Store implement it. Implementations must be safe for
// concurrent use and honour ctx.
type PromiseStore interface {
	// AddTallies adds the audits and disagreements of add to the shared
	// tallies of key, atomically, and returns the tallies of every side of
	// key after the addition, the sides marked tripped and the epoch. An
	// empty add only reads them.
	AddTallies(ctx context.Context, key string, add []Tally) (Tallies, error)
	// MarkTripped records that the sides of trips tripped, with the
	// tallies they tripped at, in the given epoch. A side's first record
	// stays; a record for another epoch than the store's is ignored.
	MarkTripped(ctx context.Context, key string, epoch int64, trips []Tally) error
	// ResetTallies clears the tallies and trips of key, starts its next
	// epoch and returns it.
	ResetTallies(ctx context.Context, key string) (epoch int64, err error)
}

// Tally counts one side's audits and the disagreements among them.
type Tally struct {
	Side
	Audits        int64 `json:"audits"`
	Disagreements int64 `json:"disagreements"`
}

// Tallies is what a PromiseStore holds for one promise.
type Tallies struct {
	// Epoch counts the resets of the promise (0 before the first).
	Epoch int64 `json:"epoch"`
	// Sides holds the shared tallies of the sides with audits.
	Sides []Tally `json:"sides"`
	// Tripped holds the sides marked tripped, with the tallies they
	// tripped at.
	Tripped []Tally `json:"tripped,omitempty"`
}

// Trip records that a side's promise was found broken.
type Trip struct {
	// Promise is the Promise.Key.
	Promise string `json:"promise"`
	Side
	// Audits and Disagreements are the side's tallies when it tripped
	// (the fleet's, with a store).
	Audits        int64 `json:"audits"`
	Disagreements int64 `json:"disagreements"`
	// EValue is the test's statistic at the trip, at least 1/Delta (0 for
	// a trip read from the store).
	EValue float64   `json:"eValue"`
	Alpha  float64   `json:"alpha"`
	Delta  float64   `json:"delta"`
	At     time.Time `json:"at"`
	// Remote says that another replica tripped it: this monitor read the
	// trip from the store.
	Remote bool `json:"remote,omitempty"`
}

// SideState is what a monitor knows of one side of a promise.
type SideState struct {
	Side
	// Audits and Disagreements are the tallies the test reads: the fleet's
	// as last read from the store, plus this monitor's audits not yet in it.
	Audits        int64 `json:"audits"`
	Disagreements int64 `json:"disagreements"`
	// EValue is the test's statistic on those tallies (trips at 1/Delta).
	EValue  float64 `json:"eValue"`
	Tripped bool    `json:"tripped"`
}

// PromiseMonitor is the Monitor this package ships: for each promise and
// each decision side, an anytime-valid sequential test of H0 "the side's
// automatic verdicts disagree with the teacher at a rate ≤ Alpha", checked
// after every audit. A side trips the first time the test rejects H0, and
// stays tripped until Reset or until the guard's promise changes (a new
// profile, a new policy: a new Promise.Key).
//
// The test is the beta-binomial mixture martingale
//
//	M_n = ∫_α^1 (p/α)^k ((1−p)/(1−α))^(n−k) dπ(p)
//
// over n audits with k disagreements, π the Beta(PriorA, PriorB) prior
// truncated to [α, 1]. Every component, and so M_n, is a nonnegative
// supermartingale starting at 1 under every disagreement rate ≤ α, and
// Ville's inequality bounds the chance it ever reaches 1/Delta by Delta. So
// a side that keeps its promise trips with probability at most Delta, per
// promise and side, however often it is checked and however long it runs.
// That bound assumes that a side's audits are uniform random draws from
// its automatic verdicts (Draws.Audit samples answers the guard decided on
// its own with one probability, independently of their content), that the
// teacher's verdict on a drawn answer is independent of the draw, and that
// disagreements are independent across audits given the rate (the chunk
// relevance verdicts of one answer are counted as separate audits, though
// they share a question). A verdict the teacher does not give (it abstains,
// or is uncertain) is no audit. With several sides, the chance that some
// side keeping its promise trips is at most Delta times their number.
//
// M_n depends on (n, k) only, so a fleet shares one test by sharing two
// counters per side (Store): each replica adds its audits and tests the
// fleet's totals. It is safe for concurrent use. It starts no goroutine:
// Observe and Sync do the store's I/O on their caller's goroutine.
type PromiseMonitor struct {
	cfg   PromiseConfig
	logZ  float64 // ln normalizer of the truncated prior
	limit float64 // ln(1/Delta)

	states sync.Map // Promise.Key → *promiseState

	mu    sync.Mutex // guards trips
	trips []Trip

	storeErrors atomic.Uint64
	storeDown   atomic.Bool // the last store operation failed (logged once)
}

var _ Monitor = (*PromiseMonitor)(nil)

// NewPromiseMonitor returns a monitor configured by cfg, or an error that
// names the field to change.
func NewPromiseMonitor(cfg PromiseConfig) (*PromiseMonitor, error) {
	if cfg.Delta == 0 {
		cfg.Delta = DefaultPromiseDelta
	}
	if cfg.PriorA == 0 {
		cfg.PriorA = DefaultPromisePriorA
	}
	if cfg.PriorB == 0 {
		cfg.PriorB = DefaultPromisePriorB
	}
	if cfg.StoreTimeout == 0 {
		cfg.StoreTimeout = DefaultPromiseStoreTimeout
	}
	switch {
	case !(cfg.Alpha > 0 && cfg.Alpha < 1):
		return nil, fmt.Errorf("guard: promise monitor: Alpha %v: want the promise's alpha, in (0, 1) (the -alpha the profile was calibrated with)", cfg.Alpha)
	case !(cfg.Delta > 0 && cfg.Delta < 1):
		return nil, fmt.Errorf("guard: promise monitor: Delta %v: want a false-trip bound in (0, 1)", cfg.Delta)
	case !(cfg.PriorA > 0) || !(cfg.PriorB > 0) || math.IsInf(cfg.PriorA, 0) || math.IsInf(cfg.PriorB, 0):
		return nil, fmt.Errorf("guard: promise monitor: prior Beta(%v, %v): want both parameters positive and finite", cfg.PriorA, cfg.PriorB)
	case cfg.StoreTimeout < 0:
		return nil, fmt.Errorf("guard: promise monitor: StoreTimeout %v: want a positive duration", cfg.StoreTimeout)
	case isNil(cfg.Store) && cfg.Store != nil:
		return nil, nilError("promise monitor", "store", cfg.Store)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	m := &PromiseMonitor{cfg: cfg, limit: math.Log(1 / cfg.Delta)}
	m.logZ = promiseLogZ(cfg.Alpha, cfg.PriorA, cfg.PriorB)
	return m, nil
}

// promiseState is a monitor's state of one promise.
type promiseState struct {
	key    string
	broken atomic.Uint32 // Sides; written under mu, read without it

	sync sync.Mutex // serializes store operations on this promise

	mu    sync.Mutex
	epoch int64
	sides [numDecisions + 1][2]sideTally // by decision, Pass/Fail
}

// sideTally is one side's state. n and k are the view the test reads:
// the fleet's tallies as last read, plus pn and pk, this monitor's audits
// not yet added to the store.
type sideTally struct {
	n, k   int64
	pn, pk int64
	trip   *Trip
	marked bool // the trip is recorded in the store
}

func (st *promiseState) side(s Side) *sideTally { return &st.sides[s.Decision][s.Verdict-1] }

// eachSide calls f for every valid side.
func eachSide(f func(Side)) {
	for _, d := range Decisions {
		f(Side{d, Pass})
		f(Side{d, Fail})
	}
}

// state returns the state of key, made on first use.
func (m *PromiseMonitor) state(key string) *promiseState {
	if v, ok := m.states.Load(key); ok {
		return v.(*promiseState)
	}
	v, _ := m.states.LoadOrStore(key, &promiseState{key: key})
	return v.(*promiseState)
}

// Broken implements Monitor: one map lookup and one atomic load. A promise
// it has not seen yet is registered, so that Sync reads the fleet's state
// of it and Reset clears it (guard.New registers its guard's promise: call
// Sync once after New, before serving, so that a new replica starts with
// the fleet's trips).
func (m *PromiseMonitor) Broken(p *Promise) Sides {
	if p == nil {
		return 0
	}
	return Sides(m.state(p.Key).broken.Load())
}

// Observe implements Monitor: it counts the audits, tests each side they
// touch, and with a Store adds them to the fleet's tallies and tests
// those. A side that trips is broken from then on. An error says the store
// could not be used: the audits are kept and sent with the next Observe or
// Sync, and the test reads this monitor's own tallies meanwhile.
func (m *PromiseMonitor) Observe(ctx context.Context, p *Promise, audits []AuditOutcome) error {
	if p == nil {
		return errors.New("guard: promise monitor: Observe: nil promise")
	}
	st := m.state(p.Key)
	var trips []Trip
	st.mu.Lock()
	for _, a := range audits {
		s := Side{a.Decision, a.Auto}
		if !s.Valid() {
			continue
		}
		t := st.side(s)
		t.n++
		t.pn++
		if a.Disagree {
			t.k++
			t.pk++
		}
	}
	trips = m.testAll(st, trips)
	st.mu.Unlock()
	var err error
	if m.cfg.Store != nil {
		var more []Trip
		more, err = m.sync(ctx, st)
		trips = append(trips, more...)
	}
	m.announce(trips)
	return err
}

// Sync sends the audits not yet in the store and reads the fleet's tallies,
// trips and resets of every promise this monitor has seen, testing them as
// Observe does. Without a Store it does nothing. Observe syncs the promise
// it is given; call Sync now and then (say every few seconds) so that a
// trip or a Reset on another replica reaches this one even while it gets
// no audits, such as when every side it decides on is tripped.
func (m *PromiseMonitor) Sync(ctx context.Context) error {
	if m.cfg.Store == nil {
		return nil
	}
	var errs []error
	var trips []Trip
	m.states.Range(func(_, v any) bool {
		more, err := m.sync(ctx, v.(*promiseState))
		trips = append(trips, more...)
		if err != nil {
			errs = append(errs, err)
		}
		return true
	})
	m.announce(trips)
	return errors.Join(errs...)
}

// sync does the store's work for st: it adds the pending audits, reads the
// fleet's tallies, adopts a newer epoch, takes over trips from the store,
// tests the fleet's tallies, and records this monitor's trips in the store.
// It returns the new trips.
func (m *PromiseMonitor) sync(ctx context.Context, st *promiseState) ([]Trip, error) {
	st.sync.Lock()
	defer st.sync.Unlock()

	// Take the pending audits.
	st.mu.Lock()
	var add []Tally
	eachSide(func(s Side) {
		if t := st.side(s); t.pn > 0 {
			add = append(add, Tally{Side: s, Audits: t.pn, Disagreements: t.pk})
			t.pn, t.pk = 0, 0
		}
	})
	st.mu.Unlock()

	sctx, cancel := context.WithTimeout(ctx, m.cfg.StoreTimeout)
	got, err := m.cfg.Store.AddTallies(sctx, st.key, add)
	cancel()
	if err != nil {
		m.storeFailed(err)
		st.mu.Lock()
		for _, a := range add { // still pending; the view already counts them
			t := st.side(a.Side)
			t.pn += a.Audits
			t.pk += a.Disagreements
		}
		st.mu.Unlock()
		return nil, fmt.Errorf("guard: promise monitor: store: %w", err)
	}

	m.storeWorked()
	var trips []Trip
	st.mu.Lock()
	if got.Epoch > st.epoch {
		// Another replica reset the promise: start over from the store.
		st.epoch = got.Epoch
		eachSide(func(s Side) {
			t := st.side(s)
			*t = sideTally{pn: t.pn, pk: t.pk}
		})
		st.broken.Store(0)
		m.dropTrips(st.key)
	}
	fleet := map[Side]Tally{}
	for _, t := range got.Sides {
		if t.Valid() {
			fleet[t.Side] = t
		}
	}
	eachSide(func(s Side) {
		t := st.side(s)
		f := fleet[s]
		// The fleet's tallies, and what arrived here during the call.
		t.n, t.k = f.Audits+t.pn, f.Disagreements+t.pk
	})
	for _, tr := range got.Tripped {
		if !tr.Valid() {
			continue
		}
		if t := st.side(tr.Side); t.trip == nil {
			trips = append(trips, m.trip(st, tr.Side, tr.Audits, tr.Disagreements, 0, true))
		} else {
			t.marked = true
		}
	}
	trips = m.testAll(st, trips)
	var mark []Tally
	eachSide(func(s Side) {
		if t := st.side(s); t.trip != nil && !t.marked {
			mark = append(mark, Tally{Side: s, Audits: t.trip.Audits, Disagreements: t.trip.Disagreements})
		}
	})
	epoch := st.epoch
	st.mu.Unlock()

	if len(mark) > 0 {
		sctx, cancel := context.WithTimeout(ctx, m.cfg.StoreTimeout)
		err = m.cfg.Store.MarkTripped(sctx, st.key, epoch, mark)
		cancel()
		if err != nil {
			m.storeFailed(err)
			return trips, fmt.Errorf("guard: promise monitor: store: %w", err)
		}
		st.mu.Lock()
		if st.epoch == epoch {
			for _, t := range mark {
				st.side(t.Side).marked = true
			}
		}
		st.mu.Unlock()
	}
	return trips, nil
}

// testAll tests every side of st not tripped yet, and trips those whose
// test rejects. st.mu is held.
func (m *PromiseMonitor) testAll(st *promiseState, trips []Trip) []Trip {
	eachSide(func(s Side) {
		t := st.side(s)
		if t.trip != nil || t.n == 0 {
			return
		}
		// M_n is at most its largest component: below the level, it
		// need not be computed.
		if logMaxRatio(t.n, t.k, m.cfg.Alpha) < m.limit {
			return
		}
		if e := m.logE(t.n, t.k); e >= m.limit {
			trips = append(trips, m.trip(st, s, t.n, t.k, math.Exp(e), false))
		}
	})
	return trips
}

// logE is ln M_n.
func (m *PromiseMonitor) logE(n, k int64) float64 {
	return logMixture(n, k, m.cfg.Alpha, m.cfg.PriorA, m.cfg.PriorB, m.logZ)
}

// trip marks side s of st broken and records the trip. st.mu is held.
func (m *PromiseMonitor) trip(st *promiseState, s Side, n, k int64, e float64, remote bool) Trip {
	tr := Trip{Promise: st.key, Side: s, Audits: n, Disagreements: k, EValue: e,
		Alpha: m.cfg.Alpha, Delta: m.cfg.Delta, At: m.cfg.Now(), Remote: remote}
	t := st.side(s)
	t.trip, t.marked = &tr, remote
	st.broken.Store(st.broken.Load() | uint32(sideBit(s.Decision, s.Verdict)))
	m.mu.Lock()
	m.trips = append(m.trips, tr)
	m.mu.Unlock()
	return tr
}

// announce logs the trips and calls OnTrip, outside every lock.
func (m *PromiseMonitor) announce(trips []Trip) {
	for _, tr := range trips {
		m.cfg.Logger.Warn("ragtriage: promise broken: the side's automatic verdicts are withheld until Reset or a new profile",
			"promise", tr.Promise, "decision", tr.Decision.String(), "side", tr.Verdict.String(),
			"audits", tr.Audits, "disagreements", tr.Disagreements, "alpha", tr.Alpha, "delta", tr.Delta,
			"eValue", tr.EValue, "remote", tr.Remote, "cause", string(CausePromiseBroken))
		if m.cfg.OnTrip != nil {
			m.cfg.OnTrip(tr)
		}
	}
}

// dropTrips forgets the trips of key (after a reset).
func (m *PromiseMonitor) dropTrips(key string) {
	m.mu.Lock()
	m.trips = slices.DeleteFunc(m.trips, func(t Trip) bool { return t.Promise == key })
	m.mu.Unlock()
}

// Trips returns the sides tripped since the last reset of their promise,
// in the order they tripped.
func (m *PromiseMonitor) Trips() []Trip {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.trips)
}

// State returns what the monitor knows of each side of p that has audits
// or is tripped, in the order of Decisions, pass side first.
func (m *PromiseMonitor) State(p *Promise) []SideState {
	if p == nil {
		return nil
	}
	v, ok := m.states.Load(p.Key)
	if !ok {
		return nil
	}
	st := v.(*promiseState)
	st.mu.Lock()
	defer st.mu.Unlock()
	var out []SideState
	eachSide(func(s Side) {
		t := st.side(s)
		if t.n == 0 && t.trip == nil {
			return
		}
		out = append(out, SideState{Side: s, Audits: t.n, Disagreements: t.k,
			EValue: math.Exp(m.logE(t.n, t.k)), Tripped: t.trip != nil})
	})
	return out
}

// storeFailed counts a failed store operation; the first after one that
// worked is logged.
func (m *PromiseMonitor) storeFailed(err error) {
	m.storeErrors.Add(1)
	if !m.storeDown.Swap(true) {
		m.cfg.Logger.Warn("ragtriage: promise monitor: the store failed; counting this replica's audits alone until it is back",
			"error", err.Error())
	}
}

// storeWorked notes a store operation that worked, logging the store's
// return after a failure.
func (m *PromiseMonitor) storeWorked() {
	if m.storeDown.Swap(false) {
		m.cfg.Logger.Info("ragtriage: promise monitor: the store is back; the audits kept meanwhile were added")
	}
}

// StoreErrors counts the store operations that failed.
func (m *PromiseMonitor) StoreErrors() uint64 { return m.storeErrors.Load() }

// Reset clears every promise this monitor has seen: tallies and trips,
// here and, with a Store, in the store (which starts a new epoch, so that
// the other replicas clear theirs at their next Observe or Sync). The
// local state is cleared even when the store fails; the error says so,
// and the store's trips would come back with the next Sync.
func (m *PromiseMonitor) Reset(ctx context.Context) error {
	var errs []error
	m.states.Range(func(_, v any) bool {
		st := v.(*promiseState)
		st.sync.Lock()
		defer st.sync.Unlock()
		epoch := int64(-1)
		if m.cfg.Store != nil {
			sctx, cancel := context.WithTimeout(ctx, m.cfg.StoreTimeout)
			e, err := m.cfg.Store.ResetTallies(sctx, st.key)
			cancel()
			if err != nil {
				m.storeFailed(err)
				errs = append(errs, fmt.Errorf("guard: promise monitor: reset %s: store: %w", st.key, err))
			} else {
				epoch = e
			}
		}
		st.mu.Lock()
		if epoch >= 0 {
			st.epoch = epoch
		}
		eachSide(func(s Side) { *st.side(s) = sideTally{} })
		st.broken.Store(0)
		st.mu.Unlock()
		m.dropTrips(st.key)
		return true
	})
	return errors.Join(errs...)
}

// String (Tally, Trip, SideState) writes every field: the embedded Side's
// String would otherwise stand for the whole value.
func (t Tally) String() string {
	return fmt.Sprintf("%v: %d audits, %d disagreements", t.Side, t.Audits, t.Disagreements)
}

func (t Trip) String() string {
	return fmt.Sprintf("%v tripped at %d audits, %d disagreements (e-value %.4g, α %v, δ %v, promise %s, at %s, remote %v)",
		t.Side, t.Audits, t.Disagreements, t.EValue, t.Alpha, t.Delta, t.Promise, t.At.Format(time.RFC3339Nano), t.Remote)
}

func (s SideState) String() string {
	return fmt.Sprintf("%v: %d audits, %d disagreements, e-value %.4g, tripped %v", s.Side, s.Audits, s.Disagreements, s.EValue, s.Tripped)
}

// Config returns the monitor's configuration, defaults filled in.
func (m *PromiseMonitor) Config() PromiseConfig { return m.cfg }
