package cascade_test

import (
	"context"
	"fmt"
	"time"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/guard"
)

// A cascade around a fallback judge (here a stand-in that always answers
// 0.9; in production an llmjudge.Judge), with a budget of two calls a
// minute. The second identical escalation comes from the cache; the third
// sample finds the budget spent after another call and abstains with the
// reason, which the guard's degrade rule then handles.
func Example() {
	fallback := guard.JudgeFunc(func(_ context.Context, req guard.Request) ([]guard.Estimate, error) {
		var out []guard.Estimate
		for _, d := range req.Decisions {
			out = append(out, guard.Estimate{Decision: d, P: 0.9})
		}
		return out, nil
	})
	c, err := cascade.New(fallback, cascade.WithBudget(cascade.Budget{Window: time.Minute, MaxCalls: 2}))
	if err != nil {
		panic(err)
	}
	defer c.Close(context.Background())

	ask := func(q string) guard.Estimate {
		s := &guard.Sample{Question: q, Contexts: []guard.Context{{ID: "c1", Text: "Refunds within 30 days."}}, Answer: "30 days."}
		out, err := c.Escalate(context.Background(), guard.Escalation{Request: guard.Request{
			Sample: s, Decisions: []guard.Decision{guard.Groundedness}}})
		if err != nil {
			panic(err)
		}
		return out[0]
	}
	for _, q := range []string{"Refund window?", "Refund window?", "Return window?", "Exchange window?"} {
		e := ask(q)
		if e.Abstained {
			fmt.Printf("%s abstained: %.12s\n", q, e.Reason)
		} else {
			fmt.Printf("%s P=%.1f\n", q, e.P)
		}
	}
	st := c.Stats()
	fmt.Printf("calls=%d cache hits=%d budget refusals=%d\n", st.Calls, st.CacheHits, st.RefusedBudget)
	// Output:
	// Refund window? P=0.9
	// Refund window? P=0.9
	// Return window? P=0.9
	// Exchange window? abstained: budget spent
	// calls=2 cache hits=1 budget refusals=1
}

// Two cascades in one process share a MemoryStore: an estimate one of them
// settled answers the other, and both spend one budget. A fleet of
// processes does the same with the Redis store of cascade/redisstore.
func ExampleWithStore() {
	calls := 0
	fallback := guard.JudgeFunc(func(_ context.Context, req guard.Request) ([]guard.Estimate, error) {
		calls++
		return []guard.Estimate{{Decision: req.Decisions[0], P: 0.9}}, nil
	})
	shared, err := cascade.NewMemoryStore(0, nil)
	if err != nil {
		panic(err)
	}
	budget := cascade.WithBudget(cascade.Budget{Window: time.Minute, MaxCalls: 10})
	a, _ := cascade.New(fallback, cascade.WithStore(shared), budget)
	b, _ := cascade.New(fallback, cascade.WithStore(shared), budget)
	esc := guard.Escalation{Request: guard.Request{Decisions: []guard.Decision{guard.Groundedness},
		Sample: &guard.Sample{Question: "Refund window?", Contexts: []guard.Context{{ID: "c1", Text: "Refunds within 30 days."}}, Answer: "30 days."}}}
	a.Escalate(context.Background(), esc)
	a.Close(context.Background()) // waits for the shared write
	out, _ := b.Escalate(context.Background(), esc)
	b.Close(context.Background())
	spent, _ := shared.Usage(cascade.Budget{Window: time.Minute, MaxCalls: 10})
	fmt.Printf("P=%.1f calls=%d shared hits=%d budget spent=%d\n", out[0].P, calls, b.Stats().SharedHits, spent)
	// Output:
	// P=0.9 calls=1 shared hits=1 budget spent=1
}

// The whole configuration as one cascade.Config: zero fields are the
// defaults; the cache is turned off with the named value CacheOff (0 would
// be the default size), so the same sample asked twice is two fallback calls.
func ExampleNewFromConfig() {
	calls := 0
	fallback := guard.JudgeFunc(func(_ context.Context, req guard.Request) ([]guard.Estimate, error) {
		calls++
		return []guard.Estimate{{Decision: req.Decisions[0], P: 0.9}}, nil
	})
	c, err := cascade.NewFromConfig(fallback, cascade.Config{
		Limits:    cascade.Limits{MaxConcurrent: 2, MaxWaiting: cascade.NoLimit},
		CacheSize: cascade.CacheOff,
		Budget:    cascade.Budget{Window: time.Minute, MaxCalls: 100},
	})
	if err != nil {
		panic(err)
	}
	defer c.Close(context.Background())
	s := &guard.Sample{Question: "Refund window?", Contexts: []guard.Context{{ID: "c1", Text: "Refunds within 30 days."}}, Answer: "30 days."}
	for range 2 {
		if _, err := c.Escalate(context.Background(), guard.Escalation{Request: guard.Request{
			Sample: s, Decisions: []guard.Decision{guard.Groundedness}}}); err != nil {
			panic(err)
		}
	}
	eff, _ := cascade.Config{}.Effective()
	fmt.Printf("fallback calls=%d; defaults: %d at once, cache %d, breaker after %d failures\n",
		calls, eff.Limits.MaxConcurrent, eff.CacheSize, eff.BreakerFailures)
	// Output:
	// fallback calls=2; defaults: 8 at once, cache 4096, breaker after 5 failures
}
