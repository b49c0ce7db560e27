package cascade

import (
	"context"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
)

// BenchmarkAdmit is the share's admission alone, as Escalate runs it for
// every escalation: the risk, the window's quantile with its sorted insert
// and delete (a full window of 1,000), the uniform draw.
func BenchmarkAdmit(b *testing.B) {
	c, err := New(guard.JudgeFunc(func(context.Context, guard.Request) ([]guard.Estimate, error) { return nil, nil }),
		WithLimits(Limits{Share: 0.2, ShareWindow: 1000, ShareSeed: 1}))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close(context.Background())
	escs := make([]guard.Escalation, 1000)
	for i := range escs {
		escs[i] = guard.Escalation{Request: guard.Request{Decisions: []guard.Decision{guard.Groundedness}},
			Primary: []guard.Estimate{{Decision: guard.Groundedness, P: float64((i*7919)%1000) / 1000}}}
	}
	ctx := context.Background()
	for i := range 2000 {
		c.admit(ctx, &escs[i%len(escs)])
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.admit(ctx, &escs[i%len(escs)])
	}
}
