package guardtest_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/guardtest"
)

func policy() guard.Policy {
	var p guard.Policy
	for _, d := range guard.Decisions {
		p.Set(d, guard.Thresholds{Fail: 0.2, Pass: 0.8})
	}
	return p
}

var sample = guard.Sample{
	Question: "How long do refunds take?",
	Contexts: []guard.Context{{ID: "policy#1", Text: "Refunds are processed within 5 business days."}},
	Answer:   "Five business days.",
}

// A Fixed judge makes a guard's outcome predictable: here every decision is
// confidently healthy except groundedness.
func ExampleFixed() {
	judge := guardtest.Fixed{
		Default: 0.95,
		P: map[guard.Decision]float64{
			guard.ContextConflict: 0.05, // true is the bad outcome
			guard.Contradiction:   0.05,
			guard.Groundedness:    0.1,
		},
	}
	g, err := guard.New(guard.WithJudge(judge), guard.WithPolicy(policy()))
	if err != nil {
		panic(err)
	}
	res, err := g.Evaluate(context.Background(), sample)
	fmt.Println(res.Diagnosis, res.Route, err)
	// Output:
	// GENERATOR_UNGROUNDED auto <nil>
}

// A judge that ignores cancellation cannot hold the caller past its deadline:
// its decisions come out uncertain and the result says why.
func ExampleSlow() {
	release := make(chan struct{})
	defer close(release) // lets the abandoned call finish
	g, err := guard.New(
		guard.WithJudge(guardtest.Fixed{Default: 0.95, P: map[guard.Decision]float64{guard.ContextConflict: 0, guard.Contradiction: 0}}),
		guard.WithJudge(guardtest.Slow{IgnoreContext: true, Release: release}, guard.Groundedness),
		guard.WithPolicy(policy()),
	)
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	res, err := g.Evaluate(ctx, sample)
	if err != nil {
		panic(err) // only an invalid sample gives no result
	}
	fmt.Println(res.Diagnosis, res.Route, res.Verdicts.Generation.Groundedness, res.Action)
	fmt.Println(errors.Is(res.Err(), guard.ErrJudge), errors.Is(res.Err(), context.DeadlineExceeded), res.Abstentions[0].Cause)
	// Output:
	// JUDGE_UNCERTAIN review uncertain review
	// true true deadline
}
