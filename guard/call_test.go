package guard_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
)

// TestCallRefuses checks the edges of the fallback contract that Call
// enforces (issue 18 item 2): an answer given after its context ended, a
// second estimate of one decision or chunk, and negative usage are errors,
// with the answer returned beside the error.
func TestCallRefuses(t *testing.T) {
	s := newSample(false, "c1", "c2")
	many := newSample(false)
	for i := range 70 { // past the sizes that switch to a map and to a wider bitset
		many.Contexts = append(many.Contexts, guard.Context{ID: fmt.Sprintf("k%d", i), Text: "Refunds."})
	}
	est := func(d guard.Decision, id string) guard.Estimate {
		return guard.Estimate{Decision: d, ContextID: id, P: 0.9}
	}
	withUsage := func(u guard.Usage) guard.Estimate { e := est(guard.Groundedness, ""); e.Usage = u; return e }
	asked := []guard.Decision{guard.ChunkRelevance, guard.Groundedness, guard.AnswerRelevance}
	tests := []struct {
		name   string
		sample guard.Sample
		out    []guard.Estimate
		cancel bool   // the judge cancels its context, then answers
		wantIn string // "" for an accepted answer
		wantIs error
	}{
		{"healthy", s, []guard.Estimate{est(guard.ChunkRelevance, "c1"), est(guard.ChunkRelevance, "c2"), est(guard.Groundedness, "")}, false, "", nil},
		{"answered after its context ended", s, []guard.Estimate{est(guard.Groundedness, "")}, true, "after its context ended", context.Canceled},
		{"duplicate decision", s, []guard.Estimate{est(guard.Groundedness, ""), est(guard.AnswerRelevance, ""), est(guard.Groundedness, "")},
			false, "estimate 2 repeats the groundedness estimate 0", nil},
		{"duplicate abstention", s, []guard.Estimate{est(guard.Groundedness, ""), guard.Abstain(guard.Groundedness, "", "unsure")},
			false, "repeats the groundedness estimate", nil},
		{"duplicate chunk", s, []guard.Estimate{est(guard.ChunkRelevance, "c2"), est(guard.ChunkRelevance, "c1"), est(guard.ChunkRelevance, "c2")},
			false, `repeats the chunk_relevance estimate for context "c2"`, nil},
		{"duplicate chunk, many contexts", many, []guard.Estimate{est(guard.ChunkRelevance, "k69"), est(guard.ChunkRelevance, "k3"), est(guard.ChunkRelevance, "k69")},
			false, `context "k69"`, nil},
		{"distinct chunks, many contexts", many, []guard.Estimate{est(guard.ChunkRelevance, "k0"), est(guard.ChunkRelevance, "k64"), est(guard.ChunkRelevance, "k69")}, false, "", nil},
		{"negative input tokens", s, []guard.Estimate{withUsage(guard.Usage{InputTokens: -1})}, false, "-1 input tokens", nil},
		{"negative output tokens", s, []guard.Estimate{withUsage(guard.Usage{InputTokens: 900, OutputTokens: -900})}, false, "-900 output tokens", nil},
		{"negative calls", s, []guard.Estimate{withUsage(guard.Usage{Calls: -2})}, false, "-2 calls", nil},
		{"negative retries", s, []guard.Estimate{withUsage(guard.Usage{Retries: -3})}, false, "-3 retries", nil},
		{"negative usage on an abstention", s, []guard.Estimate{{Decision: guard.Groundedness, Abstained: true, Usage: guard.Usage{OutputTokens: math.MinInt}}},
			false, "output tokens", nil},
		{"huge usage is valid", s, []guard.Estimate{withUsage(guard.Usage{InputTokens: math.MaxInt, OutputTokens: math.MaxInt})}, false, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			j := guard.JudgeFunc(func(context.Context, guard.Request) ([]guard.Estimate, error) {
				if tt.cancel {
					cancel()
				}
				return tt.out, nil
			})
			out, err := guard.Call(ctx, j, guard.Request{Sample: &tt.sample, Decisions: asked})
			if tt.wantIn == "" {
				if err != nil {
					t.Errorf("Call = %v; want the answer accepted", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantIn) {
				t.Errorf("Call error = %v; want it to mention %q", err, tt.wantIn)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("Call error = %v; want it to wrap %v", err, tt.wantIs)
			}
			if len(out) != len(tt.out) {
				t.Errorf("Call returned %d estimates beside its error; want the %d of the answer", len(out), len(tt.out))
			}
		})
	}
}

// TestUsageSaturates: sums of usage never wrap, and a negative count adds
// nothing, so a total never falls below what was spent.
func TestUsageSaturates(t *testing.T) {
	tests := []struct {
		a, b guard.Usage
		want guard.Usage
	}{
		{guard.Usage{1, 2, 3, 4}, guard.Usage{10, 20, 30, 40}, guard.Usage{11, 22, 33, 44}},
		{guard.Usage{InputTokens: math.MaxInt}, guard.Usage{InputTokens: 1}, guard.Usage{InputTokens: math.MaxInt}},
		{guard.Usage{OutputTokens: math.MaxInt - 1}, guard.Usage{OutputTokens: math.MaxInt}, guard.Usage{OutputTokens: math.MaxInt}},
		{guard.Usage{InputTokens: 500}, guard.Usage{InputTokens: -500, Calls: -1}, guard.Usage{InputTokens: 500}},
		{guard.Usage{Retries: -7}, guard.Usage{}, guard.Usage{}},
	}
	for _, tt := range tests {
		if got := tt.a.Add(tt.b); got != tt.want {
			t.Errorf("%+v.Add(%+v) = %+v; want %+v", tt.a, tt.b, got, tt.want)
		}
	}
	for _, tt := range []struct {
		u    guard.Usage
		want int
	}{
		{guard.Usage{InputTokens: 3, OutputTokens: 4}, 7},
		{guard.Usage{InputTokens: math.MaxInt, OutputTokens: math.MaxInt}, math.MaxInt},
		{guard.Usage{InputTokens: 1000, OutputTokens: -1000}, 1000},
	} {
		if got := tt.u.Tokens(); got != tt.want {
			t.Errorf("%+v.Tokens() = %d; want %d", tt.u, got, tt.want)
		}
	}
}

// TestNoFallbackRoutesToReview: without a fallback, an undecided answer is
// routed to review and its reason says why (issue 19 item 5). With one, it
// is routed to the fallback.
func TestNoFallbackRoutesToReview(t *testing.T) {
	unsure := guard.WithJudge(healthyJudge(), guard.Groundedness) // the other decisions stay uncertain
	answered := guard.EscalatorFunc(func(context.Context, guard.Escalation) ([]guard.Estimate, error) { return nil, nil })
	for _, tt := range []struct {
		name   string
		opts   []guard.Option
		route  guard.Route
		suffix string
	}{
		{"no fallback", []guard.Option{unsure, guard.WithPolicy(testPolicy)}, guard.RouteReview, "; no fallback configured"},
		{"with a fallback", []guard.Option{unsure, guard.WithPolicy(testPolicy), guard.WithEscalator(answered, testPolicy, guard.FailClosed)}, guard.Fallback, ""},
		{"no fallback, a diagnoser of one's own", []guard.Option{unsure, guard.WithPolicy(testPolicy), guard.WithDiagnoser(ownDiagnoser{})},
			guard.RouteReview, "uncertain, by my rules; no fallback configured"},
	} {
		r, err := mustNew(t, tt.opts...).Evaluate(context.Background(), newSample(false, "c1"))
		if err != nil {
			t.Fatal(err)
		}
		if r.Diagnosis != guard.JudgeUncertain || r.Route != tt.route || r.Action == guard.Allow {
			t.Errorf("%s: %v, route %v, action %v; want JUDGE_UNCERTAIN, route %v, not allowed", tt.name, r.Diagnosis, r.Route, r.Action, tt.route)
		}
		if tt.suffix != "" && !strings.HasSuffix(r.Reason, tt.suffix) {
			t.Errorf("%s: reason %q; want it to end with %q", tt.name, r.Reason, tt.suffix)
		}
		if tt.suffix == "" && strings.Contains(r.Reason, "no fallback") {
			t.Errorf("%s: reason %q mentions no fallback", tt.name, r.Reason)
		}
	}
	var back guard.Route
	if err := back.UnmarshalJSON([]byte(`"review"`)); err != nil || back != guard.RouteReview || guard.RouteReview.String() != "review" {
		t.Errorf(`Route "review" reads as %v (%v)`, back, err)
	}
}

// ownDiagnoser routes everything to the fallback.
type ownDiagnoser struct{}

func (ownDiagnoser) Version() string { return "own/1" }

func (ownDiagnoser) Diagnose(*guard.Result) guard.Outcome {
	return guard.Outcome{Diagnosis: guard.JudgeUncertain, Route: guard.Fallback, Reason: "uncertain, by my rules"}
}
