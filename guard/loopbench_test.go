package guard_test

import (
	"context"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
)

// BenchmarkLoopEscalatorNoDraws is BenchmarkEvaluateFixed with an
// escalator configured (not called: every decision passes), no draws: the
// baseline of the draw bookkeeping's cost.
func BenchmarkLoopEscalatorNoDraws(b *testing.B) {
	g := mustNew(b, guard.WithJudge(healthyJudge()), guard.WithPolicy(testPolicy),
		guard.WithEscalator(&escalator{judge: healthyJudge()}, testPolicy, guard.FailClosed))
	s := newSample(false, "c1", "c2", "c3", "c4", "c5")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Evaluate(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoopDrawsNotDrawn is BenchmarkLoopEscalatorNoDraws with audit
// draws configured, on a sample that is not drawn: what the draw
// bookkeeping adds to an inline Evaluate when no draw happens (issue 20's
// cost target: < 1 µs).
func BenchmarkLoopDrawsNotDrawn(b *testing.B) {
	s := newSample(false, "c1", "c2", "c3", "c4", "c5")
	seed := uint64(0)
	for guard.DrawUniform(seed, &s) < 0.2 {
		seed++
	}
	g := mustNew(b, guard.WithJudge(healthyJudge()), guard.WithPolicy(testPolicy),
		guard.WithEscalator(&escalator{judge: healthyJudge()}, testPolicy, guard.FailClosed),
		guard.WithDraws(guard.Draws{Audit: 0.2, Seed: seed}))
	ctx := context.Background()
	if res, _ := g.Evaluate(ctx, s); res.Draw == nil || res.Draw.Drawn || res.Route != guard.Auto {
		b.Fatalf("draw %+v, route %v; want an undrawn audit", res.Draw, res.Route)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Evaluate(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoopDrawsNoID is BenchmarkLoopDrawsNotDrawn for a sample
// without an ID: the draw hashes its texts.
func BenchmarkLoopDrawsNoID(b *testing.B) {
	s := newSample(false, "c1", "c2", "c3", "c4", "c5")
	s.ID = ""
	seed := uint64(0)
	for guard.DrawUniform(seed, &s) < 0.2 {
		seed++
	}
	g := mustNew(b, guard.WithJudge(healthyJudge()), guard.WithPolicy(testPolicy),
		guard.WithEscalator(&escalator{judge: healthyJudge()}, testPolicy, guard.FailClosed),
		guard.WithDraws(guard.Draws{Audit: 0.2, Seed: seed}))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Evaluate(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
}
