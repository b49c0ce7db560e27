package lexical_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/lexical"
)

// lateContext is a context whose deadline passes after its first n calls of
// Err: a request that ends while the judge works.
type lateContext struct {
	context.Context
	n int
}

func (c *lateContext) Err() error {
	if c.n <= 0 {
		return context.DeadlineExceeded
	}
	c.n--
	return nil
}

func (c *lateContext) Deadline() (time.Time, bool) { return time.Time{}, false }

// TestDeadlineWhileJudging ends the request's deadline after the judge has
// started: every decision is an abstention with cause deadline, kept as
// such by the guard, and the answer is not allowed.
func TestDeadlineWhileJudging(t *testing.T) {
	j, err := lexical.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	s := guard.Sample{Question: "What number is it?", Answer: strings.Repeat("7 ", 10000),
		Contexts: []guard.Context{{ID: "c1", Text: strings.Repeat("8 ", 10000)}}}
	out, err := j.Judge(&lateContext{Context: context.Background(), n: 1}, guard.Request{Sample: &s, Decisions: guard.Decisions})
	if err != nil {
		t.Fatalf("Judge = %v; want abstentions with cause deadline", err)
	}
	for _, e := range out {
		if !e.Abstained || e.Cause != guard.CauseDeadline {
			t.Errorf("%v: %+v; want an abstention with cause deadline", e.Decision, e)
		}
	}
	g, err := lexical.NewGuard()
	if err != nil {
		t.Fatal(err)
	}
	// The guard reads ctx once before the judge starts.
	res, err := g.Evaluate(&lateContext{Context: context.Background(), n: 2}, s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Action == guard.Allow {
		t.Errorf("action allow after the deadline")
	}
	if len(res.Abstentions) == 0 {
		t.Fatal("no abstentions after the deadline")
	}
	for _, a := range res.Abstentions {
		if a.Cause != guard.CauseDeadline {
			t.Errorf("%v: cause %q (%s); want deadline", a.Decision, a.Cause, a.Reason)
		}
	}
}
