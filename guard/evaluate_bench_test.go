package guard_test

import (
	"context"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
)

// rowJudge is a cheap scripted FeatureJudge shaped like the lexical judge
// on a one-context HaluEval row: seven estimates (one chunk, six others),
// some evidence, citations on groundedness, a feature vector on each. Its
// own cost is one copy of the estimates, so that a benchmark of Evaluate
// with it measures the guard's bookkeeping.
type rowJudge struct{ tmpl []guard.Estimate }

func (j *rowJudge) Judge(_ context.Context, req guard.Request) ([]guard.Estimate, error) {
	// A new slice per call, as the Judge contract asks.
	return append([]guard.Estimate(nil), j.tmpl...), nil
}

func (j *rowJudge) Inline() bool            { return true }
func (j *rowJudge) FeaturesVersion() string { return "bench-features/1" }
func (j *rowJudge) Describe() guard.JudgeInfo {
	return guard.JudgeInfo{Name: "bench/row", Version: "1.0.0"}
}

func newRowJudge() *rowJudge {
	ans := guard.Quote{Source: guard.SourceAnswer, Start: 0, End: 20, Text: "Five business days."}
	ctxq := guard.Quote{Source: guard.SourceContext, ContextID: "c1", Start: 0, End: 33, Text: "Refunds take five business days."}
	return &rowJudge{tmpl: []guard.Estimate{
		{Decision: guard.ChunkRelevance, ContextID: "c1", P: 0.56, Features: []float64{0.33, 1, 1, 0.33, 0.14, 0.33, 0},
			Evidence: []guard.Evidence{{Decision: guard.ChunkRelevance, Kind: guard.EvidenceOffTopic, Detail: "holds 40% of the question's weight", Quote: ctxq}}},
		{Decision: guard.ContextSufficiency, P: 0.59, Features: []float64{0.33, 0.33, 0, 0.74, 1, 0, 0, 0, 0, 1}},
		{Decision: guard.ContextConflict, P: 0, Features: []float64{0, 0, 0, 0}},
		{Decision: guard.AnswerRelevance, P: 0.85, Features: []float64{0.33, 0.33, 0, 0, 0, 0, 0.85, 1}},
		{Decision: guard.Groundedness, P: 0.79, Features: []float64{1, 1, 1, 1, 0.94, 0.67, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
			Citations: []guard.Citation{{Sentence: ans, Support: 1, Supported: true, Context: ctxq}},
			Evidence:  []guard.Evidence{{Decision: guard.Groundedness, Kind: guard.EvidenceSupport, Quote: ans, Counterpart: ctxq}}},
		{Decision: guard.Contradiction, P: 0.11, Features: []float64{0, 0, 0, 0, 0, 0}},
	}}
}

func benchmarkRow(b *testing.B, p guard.Policy) {
	g := mustNew(b, guard.WithJudge(newRowJudge()), guard.WithPolicy(p))
	s := newSample(false, "c1")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Evaluate(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEvaluateRow is Evaluate on a one-context row under a policy that
// decides nothing (as the lexical profile ships): every decision uncertain,
// JUDGE_UNCERTAIN routed to review.
func BenchmarkEvaluateRow(b *testing.B) { benchmarkRow(b, policyAll(guard.Undecided())) }

// BenchmarkEvaluateRowDecided is the same row under thresholds that decide
// some decisions and leave others uncertain.
func BenchmarkEvaluateRowDecided(b *testing.B) {
	benchmarkRow(b, policyAll(guard.Thresholds{Fail: 0.05, Pass: 0.8}))
}
