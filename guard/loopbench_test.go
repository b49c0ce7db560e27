package guard_test

import (
	"context"
	"fmt"
	"strings"
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

// BenchmarkDrawUniform is the draw's hash alone, of a 16-character ID (the
// middleware's random IDs) and of the texts of a sample without one.
func BenchmarkDrawUniform(b *testing.B) {
	s := newSample(false, "c1", "c2", "c3", "c4", "c5")
	s.ID = "0123456789abcdef"
	b.Run("id", func(b *testing.B) {
		for b.Loop() {
			guard.DrawUniform(1, &s)
		}
	})
	t := s
	t.ID = ""
	b.Run("texts", func(b *testing.B) {
		for b.Loop() {
			guard.DrawUniform(1, &t)
		}
	})
	long := t
	long.Contexts = nil
	for i := range 5 {
		long.Contexts = append(long.Contexts, guard.Context{ID: fmt.Sprint("c", i), Text: strings.Repeat("Refunds take five business days. ", 25)})
	}
	b.Run("texts-4KB", func(b *testing.B) {
		b.SetBytes(int64(len(long.Contexts) * len(long.Contexts[0].Text)))
		for b.Loop() {
			guard.DrawUniform(1, &long)
		}
	})
}
