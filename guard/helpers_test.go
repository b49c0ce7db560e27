package guard_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/guardtest"
)

// tol is the tolerance for confidences computed as 1-P.
const tol = 1e-12

// testThresholds is the rule used for every decision in these tests.
var testThresholds = guard.Thresholds{Fail: 0.2, Pass: 0.8}

func policyAll(t guard.Thresholds) guard.Policy {
	var p guard.Policy
	for _, d := range guard.Decisions {
		p.Set(d, t)
	}
	return p
}

var testPolicy = policyAll(testThresholds)

// healthy are probabilities that pass every decision (conflict and
// contradiction confidently false).
func healthy() map[guard.Decision]float64 {
	return map[guard.Decision]float64{
		guard.ChunkRelevance:     0.9,
		guard.ContextSufficiency: 0.9,
		guard.ContextConflict:    0.1,
		guard.AnswerRelevance:    0.9,
		guard.Groundedness:       0.9,
		guard.Contradiction:      0.1,
		guard.Correctness:        0.9,
	}
}

// healthyJudge answers healthy probabilities.
func healthyJudge() guardtest.Fixed {
	return guardtest.Fixed{Name: "healthy", P: healthy()}
}

// newSample returns a sample with one context per ID, and a reference when
// ref is set.
func newSample(ref bool, ids ...string) guard.Sample {
	s := guard.Sample{ID: "s1", Question: "How long do refunds take?", Answer: "Five business days."}
	for _, id := range ids {
		s.Contexts = append(s.Contexts, guard.Context{ID: id, Text: "Refunds take five business days (" + id + ")."})
	}
	if ref {
		s.Reference = guard.Ref("Five business days.")
	}
	return s
}

func mustNew(t testing.TB, opts ...guard.Option) *guard.Guard {
	t.Helper()
	g, err := guard.New(opts...)
	if err != nil {
		t.Fatalf("guard.New: %v", err)
	}
	return g
}

// recording wraps a judge, remembering the decisions of every request.
type recording struct {
	judge guard.Judge
	name  string

	mu    sync.Mutex
	asked [][]guard.Decision
}

func (r *recording) Judge(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
	r.mu.Lock()
	r.asked = append(r.asked, append([]guard.Decision(nil), req.Decisions...))
	r.mu.Unlock()
	return r.judge.Judge(ctx, req)
}

// Inline forwards the wrapped judge's answer.
func (r *recording) Inline() bool {
	in, ok := r.judge.(guard.Inline)
	return ok && in.Inline()
}

func (r *recording) Describe() guard.JudgeInfo { return guard.JudgeInfo{Name: r.name, Version: "test"} }

func (r *recording) calls() [][]guard.Decision {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.asked
}

// fmtProbs prints a probability map in decision order.
func fmtProbs(m map[guard.Decision]float64) string {
	ds := make([]guard.Decision, 0, len(m))
	for d := range m {
		ds = append(ds, d)
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = fmt.Sprintf("%v=%v", d, m[d])
	}
	return strings.Join(parts, " ")
}

func decisionSet(ds []guard.Decision) string {
	names := make([]string, len(ds))
	for i, d := range ds {
		names[i] = d.String()
	}
	return "[" + strings.Join(names, " ") + "]"
}
