package cascade_test

import (
	"context"
	"testing"
	"time"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/guard"
)

// BenchmarkShareOverhead is BenchmarkOverhead/cascade's escalation (cache
// off, a budget, a fallback that answers at once) with the share's
// admission on ("on": Share 0.999 over a window of 1,000, so nearly every
// escalation is admitted and goes on to the fallback, and the window slides
// on every one) and off. The primary probabilities cycle over 1,000 values,
// so the window's sorted insert and delete do real work. Compare "on" with
// BenchmarkOverhead/cascade of the code before Limits.Share.
func BenchmarkShareOverhead(b *testing.B) {
	f := guard.JudgeFunc(func(_ context.Context, req guard.Request) ([]guard.Estimate, error) {
		return []guard.Estimate{{Decision: req.Decisions[0], P: 0.9}}, nil
	})
	ctx := context.Background()
	for _, mode := range []struct {
		name string
		l    cascade.Limits
	}{{"off", cascade.Limits{}}, {"on", cascade.Limits{Share: 0.999, ShareWindow: 1000, ShareSeed: 1}}} {
		b.Run(mode.name, func(b *testing.B) {
			c, err := cascade.New(f, cascade.WithCacheSize(-1), cascade.WithLimits(mode.l), cascade.WithBudget(cascade.Budget{Window: time.Minute, MaxCalls: 1 << 30}))
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close(context.Background())
			escs := make([]guard.Escalation, 1000)
			for i := range escs {
				escs[i] = escalation(benchSample(600), guard.Groundedness)
				escs[i].Primary = []guard.Estimate{{Decision: guard.Groundedness, P: float64((i*7919)%1000) / 1000}}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c.Escalate(ctx, escs[i%len(escs)])
			}
		})
	}
}
