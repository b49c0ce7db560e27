package record_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/record"
)

func ExampleCheck() {
	r := record.Record{ID: "a"}
	r.Result.Diagnosis = guard.PassDiagnosis
	r.Result.Set(guard.Groundedness, guard.KnownProb(1.2), guard.Pass)
	fmt.Println(record.Check(&r))
	// Output: result.generation.groundedness: 1.2 is not a probability (want a number from 0 to 1)
}

func TestCheck(t *testing.T) {
	ok := func() *record.Record {
		r := &record.Record{ID: "a"}
		r.Result.Diagnosis = guard.PassDiagnosis
		r.Result.Set(guard.Groundedness, guard.KnownProb(0.9), guard.Pass)
		return r
	}
	for _, tc := range []struct {
		name string
		edit func(r *record.Record)
		want string
	}{
		{"sound", func(*record.Record) {}, ""},
		{"NaN", func(r *record.Record) { r.Result.Set(guard.AnswerRelevance, guard.KnownProb(math.NaN()), guard.Pass) }, "answerRelevance: NaN is not a probability"},
		{"confidence NaN", func(r *record.Record) { r.Result.Confidence = math.NaN() }, "result.confidence: NaN"},
		{"verdict", func(r *record.Record) { r.Result.Verdicts.Generation.Groundedness = 7 }, "result.verdicts.generation.groundedness: unknown verdict 7"},
		{"latency Inf", func(r *record.Record) { r.Result.LatencyMs = math.Inf(1) }, "result.latencyMs: +Inf is not a latency"},
		{"claim verdict", func(r *record.Record) { r.Result.Claims = []guard.Claim{{Verdict: 9}} }, "result.claims[0].verdict: unknown verdict 9"},
		{"claim cause", func(r *record.Record) { r.Result.Claims = []guard.Claim{{Cause: "x"}} }, `result.claims[0].cause: unknown cause "x"`},
		{"leg retries", func(r *record.Record) { r.Legs = []record.Leg{{Name: "primary", Retries: -1}} }, "legs[0].retries: -1 is negative"},
		{"fallback usage", func(r *record.Record) {
			r.Result.Fallback = &guard.FallbackInfo{Usage: guard.Usage{Retries: -2}}
		}, "result.fallback.usage.retries: -2 is negative"},
		{"fallback causes count", func(r *record.Record) {
			r.Result.Fallback = &guard.FallbackInfo{Causes: map[guard.Cause]int{guard.CauseBudget: -1}}
		}, `result.fallback.causes["budget"]: -1 is negative`},
	} {
		r := ok()
		tc.edit(r)
		err := record.Check(r)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: Check = %v; want nil", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: Check = %v; want an error containing %q", tc.name, err, tc.want)
		}
	}
}
