package guard_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func newMonitor(t testing.TB, cfg guard.PromiseConfig) *guard.PromiseMonitor {
	t.Helper()
	if cfg.Logger == nil {
		cfg.Logger = quiet
	}
	m, err := guard.NewPromiseMonitor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var groundedPass = guard.Side{Decision: guard.Groundedness, Verdict: guard.Pass}

// outcome is the audit of the automatic verdict auto on (d, id), with the
// teacher disagreeing or not.
func outcome(d guard.Decision, id string, auto guard.Verdict, disagree bool) guard.AuditOutcome {
	teacher := auto
	if disagree {
		teacher = guard.Pass + guard.Fail - auto
	}
	return guard.AuditOutcome{Decision: d, ContextID: id, Auto: auto, Teacher: teacher, Disagree: disagree}
}

// auditsToTrip streams audits of groundedness's pass side, each a
// disagreement with probability q, into a fresh monitor until it trips; it
// returns the number of audits then, or 0 when it did not trip within max.
func auditsToTrip(t testing.TB, cfg guard.PromiseConfig, q float64, max int, rng *rand.Rand) int {
	m := newMonitor(t, cfg)
	p := &guard.Promise{Key: "sim"}
	for n := 1; n <= max; n++ {
		a := outcome(guard.Groundedness, "", guard.Pass, rng.Float64() < q)
		if err := m.Observe(context.Background(), p, []guard.AuditOutcome{a}); err != nil {
			t.Fatal(err)
		}
		if m.Broken(p).Has(guard.Groundedness, guard.Pass) {
			return n
		}
	}
	return 0
}

// TestPromiseInDistribution: a side whose disagreement rate keeps the
// promise (= α, and below it) trips in at most about δ of long runs. The
// bound is Ville's: it holds for every run length, so a test checked after
// every audit stays within it. (A fixed-sample test at level δ, checked
// after every audit instead, trips in far more than δ of these runs.)
func TestPromiseInDistribution(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	const (
		alpha, delta = 0.10, 0.01
		runs, length = 1000, 4000
	)
	for _, q := range []float64{alpha, alpha / 2} {
		rng := rand.New(rand.NewPCG(20, uint64(q*1000)))
		trips := 0
		for range runs {
			if auditsToTrip(t, guard.PromiseConfig{Alpha: alpha, Delta: delta}, q, length, rng) > 0 {
				trips++
			}
		}
		// Binomial(runs, δ) is about 10 ± 3: allow three standard errors
		// above the bound. (10,000 runs of 4,000 audits at q = α tripped
		// 0.58%, 2,000 runs of 20,000 audits 0.65%.)
		limit := int(runs*delta + 3*math.Sqrt(runs*delta*(1-delta)))
		t.Logf("disagreement %.2f (α %.2f, δ %.2f): %d of %d runs of %d audits tripped (%.2f%%; bound %.0f%%)",
			q, alpha, delta, trips, runs, length, 100*float64(trips)/runs, 100*delta)
		if trips > limit {
			t.Errorf("disagreement %.2f ≤ α: %d of %d runs tripped; want at most about δ·runs = %.0f (≤ %d)", q, trips, runs, runs*delta, limit)
		}
	}
	// The control: a fixed-sample one-sided z-test at level δ, checked
	// after every audit of the same streams, trips far more often than δ.
	// The simulation can tell a test that is valid only once from one that
	// is valid at every audit.
	rng := rand.New(rand.NewPCG(20, 100))
	naive := 0
	for range runs / 4 {
		k := 0
		for n := 1; n <= length; n++ {
			if rng.Float64() < alpha {
				k++
			}
			if float64(k) > float64(n)*alpha+2.326*math.Sqrt(float64(n)*alpha*(1-alpha)) {
				naive++
				break
			}
		}
	}
	t.Logf("control: a z-test at level %.2f checked after every audit tripped in %d of %d runs", delta, naive, runs/4)
	if float64(naive) < 5*runs/4*delta {
		t.Errorf("control: the repeated z-test tripped in %d of %d runs; want far more than δ", naive, runs/4)
	}
}

// TestPromiseDrift: a side that disagrees 40% of the time against a promise
// of 10% trips in every run, after a median of about 15 audits; one at
// 20% trips too, later.
func TestPromiseDrift(t *testing.T) {
	const runs = 500
	for _, c := range []struct {
		q         float64
		max       int
		medianMax int
	}{
		{0.40, 200, 20},
		{0.20, 2000, 200},
	} {
		rng := rand.New(rand.NewPCG(40, uint64(c.q*1000)))
		var ns []int
		for range runs {
			n := auditsToTrip(t, guard.PromiseConfig{Alpha: 0.10}, c.q, c.max, rng)
			if n == 0 {
				t.Fatalf("disagreement %.2f vs α 0.10: a run did not trip within %d audits", c.q, c.max)
			}
			ns = append(ns, n)
		}
		slices.Sort(ns)
		med := ns[len(ns)/2]
		t.Logf("disagreement %.2f vs α 0.10 (δ 0.01, prior Beta(2,3)): %d runs all tripped; audits to trip: median %d, 10%% %d, 90%% %d, max %d",
			c.q, runs, med, ns[runs/10], ns[runs*9/10], ns[runs-1])
		if med > c.medianMax {
			t.Errorf("disagreement %.2f: median audits to trip %d; want ≤ %d", c.q, med, c.medianMax)
		}
	}
}

// TestPromiseMonitorSides: the sides are tested apart; a trip is recorded
// once, logged, and passed to OnTrip; State and Trips say when.
func TestPromiseMonitorSides(t *testing.T) {
	var buf strings.Builder
	var mu sync.Mutex
	var seen []guard.Trip
	m := newMonitor(t, guard.PromiseConfig{Alpha: 0.1,
		Logger: slog.New(slog.NewTextHandler(&buf, nil)),
		OnTrip: func(tr guard.Trip) { mu.Lock(); seen = append(seen, tr); mu.Unlock() }})
	p := &guard.Promise{Key: "k"}
	ctx := context.Background()
	// Groundedness pass: every audit a disagreement; its fail side and
	// answer relevance always agree.
	for range 3 {
		err := m.Observe(ctx, p, []guard.AuditOutcome{
			outcome(guard.Groundedness, "", guard.Pass, true),
			outcome(guard.Groundedness, "", guard.Fail, false),
			outcome(guard.AnswerRelevance, "", guard.Pass, false),
			{Decision: guard.ChunkRelevance, ContextID: "c1", Auto: guard.Uncertain, Teacher: guard.Pass, Disagree: true}, // no side: ignored
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := m.Broken(p); got != guard.SidesOf(groundedPass) {
		t.Fatalf("Broken = %v; want {groundedness/pass}", got)
	}
	trips := m.Trips()
	if len(trips) != 1 || trips[0].Side != groundedPass || trips[0].Audits != 3 || trips[0].Disagreements != 3 ||
		trips[0].EValue < 100 || trips[0].Promise != "k" || trips[0].Remote {
		t.Errorf("Trips = %+v; want groundedness/pass at 3 audits, 3 disagreements, e-value ≥ 1/δ", trips)
	}
	if len(seen) != 1 || seen[0] != trips[0] {
		t.Errorf("OnTrip saw %+v; want the trip once", seen)
	}
	if s := buf.String(); !strings.Contains(s, "promise broken") || !strings.Contains(s, "decision=groundedness") ||
		!strings.Contains(s, "side=pass") || !strings.Contains(s, "cause=promise_broken") {
		t.Errorf("log = %q; want a warning naming the side and the cause", s)
	}
	// More audits keep it tripped, and trip nothing twice.
	for range 50 {
		_ = m.Observe(ctx, p, []guard.AuditOutcome{outcome(guard.Groundedness, "", guard.Pass, false)})
	}
	if len(m.Trips()) != 1 || !m.Broken(p).Has(guard.Groundedness, guard.Pass) {
		t.Errorf("after agreeing audits: trips %+v, broken %v; want the one trip, still broken", m.Trips(), m.Broken(p))
	}
	st := m.State(p)
	want := []guard.SideState{
		{Side: guard.Side{Decision: guard.AnswerRelevance, Verdict: guard.Pass}, Audits: 3},
		{Side: groundedPass, Audits: 53, Disagreements: 3, Tripped: true},
		{Side: guard.Side{Decision: guard.Groundedness, Verdict: guard.Fail}, Audits: 3},
	}
	if len(st) != len(want) {
		t.Fatalf("State = %+v; want %+v", st, want)
	}
	for i := range st {
		e := st[i].EValue
		st[i].EValue = 0
		if st[i] != want[i] || !(e > 0) {
			t.Errorf("State[%d] = %+v (e-value %v); want %+v", i, st[i], e, want[i])
		}
	}
	// Another promise (a new profile) is watched apart.
	if other := (&guard.Promise{Key: "k2"}); m.Broken(other) != 0 {
		t.Errorf("a new promise is broken: %v", m.Broken(other))
	}
	// Reset clears it.
	if err := m.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if m.Broken(p) != 0 || len(m.Trips()) != 0 || len(m.State(p)) != 0 {
		t.Errorf("after Reset: broken %v, trips %v, state %v; want none", m.Broken(p), m.Trips(), m.State(p))
	}
}

func TestNewPromiseMonitorErrors(t *testing.T) {
	for _, c := range []struct {
		cfg  guard.PromiseConfig
		want string
	}{
		{guard.PromiseConfig{}, "Alpha 0"},
		{guard.PromiseConfig{Alpha: 1}, "Alpha 1"},
		{guard.PromiseConfig{Alpha: math.NaN()}, "Alpha NaN"},
		{guard.PromiseConfig{Alpha: 0.1, Delta: 2}, "Delta 2"},
		{guard.PromiseConfig{Alpha: 0.1, PriorA: -1}, "prior Beta(-1, 3)"},
		{guard.PromiseConfig{Alpha: 0.1, PriorB: math.Inf(1)}, "prior Beta(2, +Inf)"},
		{guard.PromiseConfig{Alpha: 0.1, StoreTimeout: -1}, "StoreTimeout"},
		{guard.PromiseConfig{Alpha: 0.1, Store: (*failingStore)(nil)}, "nil *guard_test.failingStore"},
	} {
		_, err := guard.NewPromiseMonitor(c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewPromiseMonitor(%+v) error = %v; want one containing %q", c.cfg, err, c.want)
		}
	}
	if err := guard.WithMonitor(nil)(nil); err == nil {
		t.Error("WithMonitor(nil) accepted")
	}
}

func TestSides(t *testing.T) {
	s := guard.SidesOf(groundedPass, guard.Side{Decision: guard.ContextConflict, Verdict: guard.Fail},
		guard.Side{Decision: guard.Groundedness, Verdict: guard.Uncertain}) // invalid: left out
	if got := s.String(); got != "{context_conflict/fail groundedness/pass}" {
		t.Errorf("Sides = %s", got)
	}
	for _, d := range guard.Decisions {
		for _, v := range []guard.Verdict{guard.Pass, guard.Fail} {
			one := guard.SidesOf(guard.Side{Decision: d, Verdict: v})
			if l := one.List(); len(l) != 1 || l[0] != (guard.Side{Decision: d, Verdict: v}) {
				t.Errorf("SidesOf(%v/%v).List() = %v", d, v, l)
			}
			back, err := guard.ParseSide(guard.Side{Decision: d, Verdict: v}.String())
			if err != nil || back != (guard.Side{Decision: d, Verdict: v}) {
				t.Errorf("ParseSide(%v/%v) = %v, %v", d, v, back, err)
			}
		}
	}
	for _, bad := range []string{"groundedness", "groundedness/uncertain", "nope/pass"} {
		if _, err := guard.ParseSide(bad); err == nil {
			t.Errorf("ParseSide(%q) accepted", bad)
		}
	}
	b, _ := json.Marshal(groundedPass)
	if string(b) != `{"decision":"groundedness","side":"pass"}` {
		t.Errorf("Side JSON = %s", b)
	}
}

// failingStore is a PromiseStore whose every operation fails.
type failingStore struct{}

var errStoreDown = errors.New("store down")

func (*failingStore) AddTallies(context.Context, string, []guard.Tally) (guard.Tallies, error) {
	return guard.Tallies{}, errStoreDown
}
func (*failingStore) MarkTripped(context.Context, string, int64, []guard.Tally) error {
	return errStoreDown
}
func (*failingStore) ResetTallies(context.Context, string) (int64, error) { return 0, errStoreDown }

// flakyStore is a PromiseStore in memory that fails while down is set.
type flakyStore struct {
	mu      sync.Mutex
	down    bool
	epoch   int64
	sides   map[guard.Side]guard.Tally
	tripped map[guard.Side]guard.Tally
}

func (s *flakyStore) AddTallies(_ context.Context, _ string, add []guard.Tally) (guard.Tallies, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down {
		return guard.Tallies{}, errStoreDown
	}
	if s.sides == nil {
		s.sides, s.tripped = map[guard.Side]guard.Tally{}, map[guard.Side]guard.Tally{}
	}
	for _, a := range add {
		t := s.sides[a.Side]
		t.Side, t.Audits, t.Disagreements = a.Side, t.Audits+a.Audits, t.Disagreements+a.Disagreements
		s.sides[a.Side] = t
	}
	out := guard.Tallies{Epoch: s.epoch}
	for _, t := range s.sides {
		out.Sides = append(out.Sides, t)
	}
	for _, t := range s.tripped {
		out.Tripped = append(out.Tripped, t)
	}
	return out, nil
}

func (s *flakyStore) MarkTripped(_ context.Context, _ string, epoch int64, trips []guard.Tally) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down {
		return errStoreDown
	}
	for _, t := range trips {
		if _, ok := s.tripped[t.Side]; !ok && epoch == s.epoch {
			s.tripped[t.Side] = t
		}
	}
	return nil
}

func (s *flakyStore) ResetTallies(context.Context, string) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down {
		return 0, errStoreDown
	}
	s.epoch++
	clear(s.sides)
	clear(s.tripped)
	return s.epoch, nil
}

func (s *flakyStore) setDown(v bool) { s.mu.Lock(); s.down = v; s.mu.Unlock() }

// TestPromiseStoreDown: while the store is down, the monitor counts its own
// audits, tests them and trips on them; once the store is back, the audits
// it kept and its trip reach the store.
func TestPromiseStoreDown(t *testing.T) {
	ctx := context.Background()
	s := &flakyStore{}
	m := newMonitor(t, guard.PromiseConfig{Alpha: 0.1, Store: s})
	p := &guard.Promise{Key: "k"}
	if err := m.Observe(ctx, p, []guard.AuditOutcome{outcome(guard.Groundedness, "", guard.Pass, false)}); err != nil {
		t.Fatal(err)
	}
	s.setDown(true)
	for range 4 {
		err := m.Observe(ctx, p, []guard.AuditOutcome{outcome(guard.Groundedness, "", guard.Pass, true)})
		if !errors.Is(err, errStoreDown) {
			t.Fatalf("Observe with the store down: %v; want the store's error", err)
		}
	}
	if st := m.State(p); len(st) != 1 || st[0].Audits != 5 || st[0].Disagreements != 4 || !st[0].Tripped || !m.Broken(p).Has(guard.Groundedness, guard.Pass) {
		t.Errorf("store down: state %+v; want 5 audits, 4 disagreements, tripped on its own tallies", st)
	}
	if m.StoreErrors() != 4 {
		t.Errorf("StoreErrors = %d; want 4", m.StoreErrors())
	}
	s.setDown(false)
	if err := m.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	got, _ := s.AddTallies(ctx, "k", nil)
	if len(got.Sides) != 1 || got.Sides[0].Audits != 5 || got.Sides[0].Disagreements != 4 || len(got.Tripped) != 1 {
		t.Errorf("store after it came back: %+v; want the 5 audits and the trip", got)
	}
	if st := m.State(p); st[0].Audits != 5 {
		t.Errorf("after the Sync: %+v; want 5 audits (none counted twice)", st)
	}
	// A Reset that cannot reach the store clears this monitor and says so.
	s.setDown(true)
	if err := m.Reset(ctx); !errors.Is(err, errStoreDown) || m.Broken(p) != 0 {
		t.Errorf("Reset with the store down: %v, broken %v; want the store's error, cleared here", err, m.Broken(p))
	}
}
