package cascade

import (
	"context"
	"sync"

	"github.com/ragtriage/ragtriage/guard"
)

// promiseBook is a MemoryStore's tallies of the promise monitors that
// share it (guard.PromiseStore).
type promiseBook struct {
	mu sync.Mutex
	m  map[string]*promiseTallies
}

type promiseTallies struct {
	epoch   int64
	sides   map[guard.Side]guard.Tally
	tripped map[guard.Side]guard.Tally
}

func (b *promiseBook) get(key string) *promiseTallies {
	if b.m == nil {
		b.m = map[string]*promiseTallies{}
	}
	p, ok := b.m[key]
	if !ok {
		p = &promiseTallies{sides: map[guard.Side]guard.Tally{}, tripped: map[guard.Side]guard.Tally{}}
		b.m[key] = p
	}
	return p
}

// snapshot lists p's tallies in guard.Decisions order, pass side first.
func (p *promiseTallies) snapshot() guard.Tallies {
	out := guard.Tallies{Epoch: p.epoch}
	for _, d := range guard.Decisions {
		for _, v := range []guard.Verdict{guard.Pass, guard.Fail} {
			s := guard.Side{Decision: d, Verdict: v}
			if t, ok := p.sides[s]; ok {
				out.Sides = append(out.Sides, t)
			}
			if t, ok := p.tripped[s]; ok {
				out.Tripped = append(out.Tripped, t)
			}
		}
	}
	return out
}

// AddTallies implements guard.PromiseStore: the promise monitors of one
// process that share this store (guard.PromiseConfig.Store) test their
// audits together.
func (m *MemoryStore) AddTallies(_ context.Context, key string, add []guard.Tally) (guard.Tallies, error) {
	m.promises.mu.Lock()
	defer m.promises.mu.Unlock()
	p := m.promises.get(key)
	for _, a := range add {
		if !a.Valid() || a.Audits < 0 || a.Disagreements < 0 {
			continue
		}
		t := p.sides[a.Side]
		t.Side = a.Side
		t.Audits += a.Audits
		t.Disagreements += a.Disagreements
		p.sides[a.Side] = t
	}
	return p.snapshot(), nil
}

// MarkTripped implements guard.PromiseStore.
func (m *MemoryStore) MarkTripped(_ context.Context, key string, epoch int64, trips []guard.Tally) error {
	m.promises.mu.Lock()
	defer m.promises.mu.Unlock()
	p := m.promises.get(key)
	if epoch != p.epoch {
		return nil
	}
	for _, t := range trips {
		if _, ok := p.tripped[t.Side]; !ok && t.Valid() {
			p.tripped[t.Side] = t
		}
	}
	return nil
}

// ResetTallies implements guard.PromiseStore.
func (m *MemoryStore) ResetTallies(_ context.Context, key string) (int64, error) {
	m.promises.mu.Lock()
	defer m.promises.mu.Unlock()
	p := m.promises.get(key)
	p.epoch++
	clear(p.sides)
	clear(p.tripped)
	return p.epoch, nil
}

var _ guard.PromiseStore = (*MemoryStore)(nil)
