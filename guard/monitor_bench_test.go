package guard_test

import (
	"context"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
)

// benchMonitored returns a guard with a cheap inline judge and, unless off,
// a promise monitor that has seen audits but tripped nothing: what
// Evaluate's bookkeeping for the monitor costs (one map lookup and one
// atomic load) beside a judge that costs almost nothing.
func benchMonitored(b *testing.B, off bool) *guard.Guard {
	opts := []guard.Option{guard.WithJudge(healthyJudge()), guard.WithPolicy(testPolicy)}
	if !off {
		m, err := guard.NewPromiseMonitor(guard.PromiseConfig{Alpha: 0.1, Logger: quiet})
		if err != nil {
			b.Fatal(err)
		}
		opts = append(opts, guard.WithMonitor(m))
		g := mustNew(b, opts...)
		_, p := g.Monitor()
		for range 100 {
			_ = m.Observe(context.Background(), p, []guard.AuditOutcome{outcome(guard.Groundedness, "", guard.Pass, false)})
		}
		return g
	}
	return mustNew(b, opts...)
}

// BenchmarkEvaluateMonitor: Evaluate with a monitor configured and nothing
// tripped (Monitor), and the same guard without one (NoMonitor). Compare
// them, and NoMonitor with the same benchmark built from the code before
// the monitor (a file giving only NoMonitor's guard).
func BenchmarkEvaluateMonitor(b *testing.B) {
	for _, c := range []struct {
		name string
		off  bool
	}{{"NoMonitor", true}, {"Monitor", false}} {
		b.Run(c.name, func(b *testing.B) {
			g := benchMonitored(b, c.off)
			s := newSample(false, "c1", "c2")
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := g.Evaluate(ctx, s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPromiseBroken is what Evaluate adds with a monitor: the lookup
// of its promise's broken sides.
func BenchmarkPromiseBroken(b *testing.B) {
	m, err := guard.NewPromiseMonitor(guard.PromiseConfig{Alpha: 0.1, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	p := &guard.Promise{Key: "c341d01054e4d9f5"}
	var s guard.Sides
	for b.Loop() {
		s |= m.Broken(p)
	}
	if s != 0 {
		b.Fatal("broken")
	}
}

// BenchmarkPromiseObserve is the cost of one audited answer (six sides) in
// Teach, off the request path, without a store.
func BenchmarkPromiseObserve(b *testing.B) {
	m, err := guard.NewPromiseMonitor(guard.PromiseConfig{Alpha: 0.1, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	p := &guard.Promise{Key: "k"}
	audits := []guard.AuditOutcome{
		outcome(guard.ChunkRelevance, "c1", guard.Pass, false), outcome(guard.ContextSufficiency, "", guard.Pass, false),
		outcome(guard.ContextConflict, "", guard.Pass, false), outcome(guard.AnswerRelevance, "", guard.Pass, false),
		outcome(guard.Groundedness, "", guard.Pass, false), outcome(guard.Contradiction, "", guard.Pass, false),
	}
	ctx := context.Background()
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		// One disagreement in eleven: under α, so nothing trips, but the
		// exact statistic is computed now and then.
		i++
		audits[4].Disagree = i%11 == 0
		if err := m.Observe(ctx, p, audits); err != nil {
			b.Fatal(err)
		}
	}
	if m.Broken(p) != 0 {
		b.Fatal("tripped")
	}
}
