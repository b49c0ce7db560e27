package lexical_test

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

// BenchmarkEvaluateHaluEvalMonitor is BenchmarkEvaluateHaluEval with the
// embedded judges under a promise monitor that has seen audits and tripped
// nothing: the monitor's cost on a real row. Compare it with
// BenchmarkEvaluateHaluEval in the same binary.
func BenchmarkEvaluateHaluEvalMonitor(b *testing.B) {
	m, err := guard.NewPromiseMonitor(guard.PromiseConfig{Alpha: 0.1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	g, err := lexical.NewGuard(guard.WithMonitor(m))
	if err != nil {
		b.Fatal(err)
	}
	_, p := g.Monitor()
	for range 100 {
		_ = m.Observe(context.Background(), p, []guard.AuditOutcome{{Decision: guard.Groundedness, Auto: guard.Pass, Teacher: guard.Pass}})
	}
	s := haluSample()
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Evaluate(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
}
