package guardtest

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
)

// TestPromiseStore checks that a guard.PromiseStore keeps the contract the
// promise monitor relies on, and that monitors sharing it act as one: the
// tallies add up (also when replicas add at once), a trip's first record
// stays, a record for another epoch is ignored, a reset starts a new epoch
// with nothing in it, and a trip or a reset on one replica reaches another
// at its next Sync. newFleet returns n stores that share one empty state,
// as the replicas of a fleet do (for a networked store: n clients on a
// fresh prefix or database), and share nothing with the stores of other
// calls.
func TestPromiseStore(t *testing.T, newFleet func(t *testing.T, n int) []guard.PromiseStore) {
	t.Helper()
	newStore := func(t *testing.T) guard.PromiseStore { return newFleet(t, 1)[0] }
	ctx := context.Background()
	gp := guard.Side{Decision: guard.Groundedness, Verdict: guard.Pass}
	cf := guard.Side{Decision: guard.ChunkRelevance, Verdict: guard.Fail}

	t.Run("tallies", func(t *testing.T) {
		s := newStore(t)
		got, err := s.AddTallies(ctx, "p1", nil)
		if err != nil || got.Epoch != 0 || len(got.Sides) != 0 || len(got.Tripped) != 0 {
			t.Fatalf("AddTallies(empty store, nothing) = %+v, %v; want epoch 0, no sides", got, err)
		}
		if _, err := s.AddTallies(ctx, "p1", []guard.Tally{{Side: gp, Audits: 3, Disagreements: 1}, {Side: cf, Audits: 2}}); err != nil {
			t.Fatal(err)
		}
		got, err = s.AddTallies(ctx, "p1", []guard.Tally{{Side: gp, Audits: 1, Disagreements: 1}})
		if err != nil {
			t.Fatal(err)
		}
		want := map[guard.Side]guard.Tally{gp: {Side: gp, Audits: 4, Disagreements: 2}, cf: {Side: cf, Audits: 2}}
		if m := tallyMap(t, got.Sides); len(m) != 2 || m[gp] != want[gp] || m[cf] != want[cf] {
			t.Errorf("tallies = %+v; want %+v", got.Sides, want)
		}
		if other, _ := s.AddTallies(ctx, "p2", nil); len(other.Sides) != 0 {
			t.Errorf("another key sees %+v; want nothing", other.Sides)
		}
	})

	t.Run("trips and epochs", func(t *testing.T) {
		s := newStore(t)
		if _, err := s.AddTallies(ctx, "p", []guard.Tally{{Side: gp, Audits: 5, Disagreements: 4}}); err != nil {
			t.Fatal(err)
		}
		first := guard.Tally{Side: gp, Audits: 5, Disagreements: 4}
		if err := s.MarkTripped(ctx, "p", 0, []guard.Tally{first}); err != nil {
			t.Fatal(err)
		}
		if err := s.MarkTripped(ctx, "p", 0, []guard.Tally{{Side: gp, Audits: 9, Disagreements: 9}}); err != nil {
			t.Fatal(err)
		}
		if err := s.MarkTripped(ctx, "p", 7, []guard.Tally{{Side: cf, Audits: 1, Disagreements: 1}}); err != nil {
			t.Fatal(err)
		}
		got, _ := s.AddTallies(ctx, "p", nil)
		if len(got.Tripped) != 1 || got.Tripped[0] != first {
			t.Errorf("tripped = %+v; want only the first record %+v (a record for epoch 7 is ignored)", got.Tripped, first)
		}
		e, err := s.ResetTallies(ctx, "p")
		if err != nil || e != 1 {
			t.Fatalf("ResetTallies = %d, %v; want epoch 1", e, err)
		}
		got, _ = s.AddTallies(ctx, "p", nil)
		if got.Epoch != 1 || len(got.Sides) != 0 || len(got.Tripped) != 0 {
			t.Errorf("after the reset: %+v; want epoch 1 and nothing else", got)
		}
		if err := s.MarkTripped(ctx, "p", 0, []guard.Tally{first}); err != nil {
			t.Fatal(err)
		}
		if got, _ = s.AddTallies(ctx, "p", nil); len(got.Tripped) != 0 {
			t.Errorf("a trip of the old epoch was recorded after the reset: %+v", got.Tripped)
		}
	})

	t.Run("concurrent adds", func(t *testing.T) {
		const workers, each = 8, 25
		fleet := newFleet(t, workers)
		s := fleet[0]
		var wg sync.WaitGroup
		errs := make(chan error, workers*each)
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					_, err := fleet[w].AddTallies(ctx, "p", []guard.Tally{{Side: gp, Audits: 1, Disagreements: int64((w + i) % 2)}})
					if err != nil {
						errs <- err
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		got, _ := s.AddTallies(ctx, "p", nil)
		if m := tallyMap(t, got.Sides); m[gp].Audits != workers*each || m[gp].Disagreements != workers*each/2 {
			t.Errorf("after %d concurrent adds: %+v; want %d audits, %d disagreements", workers*each, m[gp], workers*each, workers*each/2)
		}
	})

	t.Run("fleet", func(t *testing.T) {
		fleet := newFleet(t, 3)
		quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
		replicas := 0
		newMon := func() *guard.PromiseMonitor {
			m, err := guard.NewPromiseMonitor(guard.PromiseConfig{Alpha: 0.1, Store: fleet[replicas], Logger: quiet})
			replicas++
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		a, b := newMon(), newMon()
		p := &guard.Promise{Key: "fleet"}
		bad := guard.AuditOutcome{Decision: guard.Groundedness, Auto: guard.Pass, Teacher: guard.Fail, Disagree: true}
		// a, b, a: a alone has two disagreements, which would not trip
		// it (at α 0.1 a side needs three in a row); the fleet's three do.
		for _, m := range []*guard.PromiseMonitor{a, b, a} {
			if err := m.Observe(ctx, p, []guard.AuditOutcome{bad}); err != nil {
				t.Fatal(err)
			}
		}
		if tr := a.Trips(); !a.Broken(p).Has(guard.Groundedness, guard.Pass) || len(tr) != 1 || tr[0].Audits != 3 || tr[0].Remote {
			t.Fatalf("replica a after the fleet's 3 disagreements: broken %v, trips %+v; want its own trip at the fleet's 3 audits", a.Broken(p), tr)
		}
		// b learns of it at its next Sync.
		if b.Broken(p) != 0 {
			t.Fatal("b is broken before it read the store")
		}
		if err := b.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		if tb := b.Trips(); !b.Broken(p).Has(guard.Groundedness, guard.Pass) || len(tb) != 1 || !tb[0].Remote || tb[0].Audits != 3 {
			t.Errorf("b after Sync: broken %v, trips %+v; want a's trip, read from the store", b.Broken(p), tb)
		}
		// A reset on a reaches b at its next Sync.
		if err := a.Reset(ctx); err != nil {
			t.Fatal(err)
		}
		if a.Broken(p) != 0 {
			t.Errorf("a after Reset: broken %v", a.Broken(p))
		}
		if err := b.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		if b.Broken(p) != 0 || len(b.Trips()) != 0 || len(b.State(p)) != 0 {
			t.Errorf("b after a's Reset and a Sync: broken %v, trips %+v, state %+v; want clear", b.Broken(p), b.Trips(), b.State(p))
		}
		// A replica that joins after the trip learns it without audits.
		for _, m := range []*guard.PromiseMonitor{a, a, a} {
			if err := m.Observe(ctx, p, []guard.AuditOutcome{bad}); err != nil {
				t.Fatal(err)
			}
		}
		c := newMon()
		if c.Broken(p) != 0 {
			t.Fatal("a new replica is broken before it read the store")
		}
		if err := c.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		if !c.Broken(p).Has(guard.Groundedness, guard.Pass) {
			t.Errorf("a new replica after Sync: broken %v; want groundedness/pass", c.Broken(p))
		}
	})
}

// tallyMap indexes ts by side; a side listed twice is an error.
func tallyMap(t *testing.T, ts []guard.Tally) map[guard.Side]guard.Tally {
	t.Helper()
	m := make(map[guard.Side]guard.Tally, len(ts))
	for _, x := range ts {
		if _, dup := m[x.Side]; dup {
			t.Errorf("side %v listed twice in %+v", x.Side, ts)
		}
		m[x.Side] = x
	}
	return m
}
