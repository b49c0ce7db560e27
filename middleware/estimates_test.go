package middleware

import (
	"context"
	"math"
	"testing"

	"github.com/tmc/langchaingo/chains"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/otelkeys"
)

// fsum returns the value of a float64 counter for one decision.
func (k *telemetryKit) fsum(t testing.TB, name, decision string) float64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := k.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != name {
				continue
			}
			for _, dp := range m.Data.(metricdata.Sum[float64]).DataPoints {
				if v, ok := dp.Attributes.Value(attributeKey(otelkeys.EstimateDecision)); ok && v.AsString() == decision {
					total += dp.Value
				}
			}
		}
	}
	return total
}

// The shadow middleware exports the traffic-estimate counters: an answer
// decided by the embedded judges counts with inclusion 1, an escalated one
// the share admitted with its inclusion probability, a refused one not at
// all, and an escalated one without an inclusion probability as unusable.
func TestShadowExportsEstimates(t *testing.T) {
	k := newTelemetry(t)
	results := []guard.Result{
		{Diagnosis: guard.GeneratorUngrounded}, // the embedded judges' fail, π = 1
		{Diagnosis: guard.GeneratorUngrounded, Fallback: &guard.FallbackInfo{Decisions: []guard.Decision{guard.Groundedness}, Inclusion: 0.25}},
		{Diagnosis: guard.JudgeUncertain, Fallback: &guard.FallbackInfo{Decisions: []guard.Decision{guard.Groundedness}, Inclusion: 0.25,
			Causes: map[guard.Cause]int{guard.CauseShare: 1}}},
		{Diagnosis: guard.GeneratorUngrounded, Fallback: &guard.FallbackInfo{Decisions: []guard.Decision{guard.Groundedness}}},
	}
	results[0].Verdicts.Generation.Groundedness = guard.Fail
	results[1].Verdicts.Generation.Groundedness = guard.Fail
	results[3].Verdicts.Generation.Groundedness = guard.Fail
	i := 0
	ev := evaluatorFunc(func(context.Context, guard.Sample) (guard.Result, error) {
		r := results[i%len(results)]
		i++
		return r, nil
	})
	sh, err := NewShadow(ev, ShadowConfig{Workers: 1, QueueSize: 8}, WithMeterProvider(k.mp))
	if err != nil {
		t.Fatal(err)
	}
	chain := Wrap(chains.NewRetrievalQAFromLLM(&scriptedLLM{}, kbRetriever{}), append(k.opts(), WithShadow(sh))...)
	for range results {
		if _, err := chains.Run(context.Background(), chain, qFail); err != nil {
			t.Fatal(err)
		}
	}
	if err := sh.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := k.sum(t, otelkeys.MetricEstimateRows, map[string]string{otelkeys.EstimateDecision: "groundedness"}); n != 4 {
		t.Errorf("rows = %d; want 4", n)
	}
	if n := k.sum(t, otelkeys.MetricEstimateUnusable, map[string]string{otelkeys.EstimateDecision: "groundedness", otelkeys.EstimateReason: "no_inclusion"}); n != 1 {
		t.Errorf("unusable (no inclusion) = %d; want 1", n)
	}
	if w := k.fsum(t, otelkeys.MetricEstimateFailWeight, "groundedness"); math.Abs(w-5) > 1e-9 {
		t.Errorf("fail weight = %v; want 1 + 1/0.25 = 5", w)
	}
	if v := k.fsum(t, otelkeys.MetricEstimateFailVariance, "groundedness"); math.Abs(v-12) > 1e-9 {
		t.Errorf("fail variance = %v; want (1-0.25)/0.25² = 12", v)
	}
}

// drawnEvaluator returns a result whose groundedness was escalated and
// refused by the share (inclusion 0.1), drawn for the teacher (inclusion
// 0.5); its Teach gives the teacher's fail verdict.
type drawnEvaluator struct{}

func (drawnEvaluator) Evaluate(context.Context, guard.Sample) (guard.Result, error) {
	r := guard.Result{Diagnosis: guard.JudgeUncertain, Route: guard.Fallback, Action: guard.Review,
		Fallback: &guard.FallbackInfo{Decisions: []guard.Decision{guard.Groundedness}, Inclusion: 0.1,
			Causes: map[guard.Cause]int{guard.CauseShare: 1}},
		Draw: &guard.Draw{Kind: guard.DrawExplore, Rate: 0.5, Drawn: true, Inclusion: 0.5}}
	return r, nil
}

func (drawnEvaluator) Teach(_ context.Context, _ *guard.Sample, res *guard.Result) error {
	res.Teacher = &guard.Teacher{Judge: "teacher"}
	res.Teacher.Verdicts.Generation.Groundedness = guard.Fail
	return nil
}

// The estimate counters count a drawn answer once it was taught, with the
// teacher's verdict, in shadow mode and inline (where the teaching runs in
// the background after the answer is returned). Counted before Teach, the
// draw's fail was lost while its inclusion probability (1 − 0.9 × 0.5)
// still shrank the weight of the rest.
func TestEstimatesCountTheTeacher(t *testing.T) {
	pi := 1 - 0.9*0.5
	for _, mode := range []string{"shadow", "inline"} {
		t.Run(mode, func(t *testing.T) {
			k := newTelemetry(t)
			var opts []Option
			var sh *Shadow
			if mode == "shadow" {
				var err error
				sh, err = NewShadow(drawnEvaluator{}, ShadowConfig{Workers: 1, QueueSize: 8}, WithMeterProvider(k.mp))
				if err != nil {
					t.Fatal(err)
				}
				opts = append(k.opts(), WithShadow(sh))
			} else {
				opts = append(k.opts(), WithGuard(drawnEvaluator{}, Gate{}))
			}
			chain, err := New(chains.NewRetrievalQAFromLLM(&scriptedLLM{}, kbRetriever{}), opts...)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				chains.Run(context.Background(), chain, qFail) // inline: review is an error
			}
			if sh != nil {
				if err := sh.Shutdown(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			if err := chain.Shutdown(context.Background()); err != nil {
				t.Fatal(err)
			}
			if n := k.sum(t, otelkeys.MetricEstimateRows, map[string]string{otelkeys.EstimateDecision: "groundedness"}); n != 2 {
				t.Errorf("rows = %d; want 2", n)
			}
			if n := k.sum(t, otelkeys.MetricEstimateUnusable, map[string]string{otelkeys.EstimateDecision: "groundedness"}); n != 0 {
				t.Errorf("unusable = %d; want 0", n)
			}
			if w := k.fsum(t, otelkeys.MetricEstimateFailWeight, "groundedness"); math.Abs(w-2/pi) > 1e-9 {
				t.Errorf("fail weight = %v; want 2/%v", w, pi)
			}
		})
	}
}
