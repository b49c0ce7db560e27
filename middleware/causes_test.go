package middleware

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"

	"github.com/tmc/langchaingo/chains"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/guardtest"
	"github.com/ragtriage/ragtriage/otelkeys"
	"github.com/ragtriage/ragtriage/record"
)

// budgetEscalator abstains on everything it is asked with the cause a
// cascade gives when its budget is spent.
var budgetEscalator = guard.EscalatorFunc(func(_ context.Context, esc guard.Escalation) ([]guard.Estimate, error) {
	var out []guard.Estimate
	for _, d := range esc.Decisions {
		e := guard.Abstain(d, "", "budget spent: 10 calls in 1m0s")
		e.Cause = guard.CauseBudget
		out = append(out, e)
	}
	return out, nil
})

// TestCausesOnSpansAndRecords checks that a result's causes reach the
// evaluation span (fallback cause and causes, judge error causes, the cause
// of a decision without a score) and the record, and that a failed judge
// still gives an evaluated outcome: no Outcome.Err, the failure sent to the
// error handler.
func TestCausesOnSpansAndRecords(t *testing.T) {
	k := newTelemetry(t)
	g, err := guard.New(guard.WithJudge(scriptedJudge{}),
		guard.WithJudge(guardtest.Failing{Err: errors.New("HTTP 503")}, guard.Contradiction),
		guard.WithPolicy(testPolicy()), guard.WithEscalator(budgetEscalator, testPolicy(), guard.FailClosed))
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu      sync.Mutex
		handled []error
	)
	var buf bytes.Buffer
	chain := Wrap(chains.NewRetrievalQAFromLLM(&scriptedLLM{}, kbRetriever{}), append(k.opts(),
		WithGuard(g, Gate{Block: AnnotateOnly, Review: AnnotateOnly}), WithSink(record.NewWriter(&buf)),
		WithErrorHandler(func(err error) { mu.Lock(); handled = append(handled, err); mu.Unlock() }))...)
	ctx, out := WithOutcome(context.Background())
	if _, err := chains.Run(ctx, chain, qEscalate); err != nil {
		t.Fatal(err)
	}
	if !out.Evaluated || out.Err != nil || out.Action != guard.Block {
		t.Fatalf("outcome: evaluated %v, err %v, action %v; want an evaluated result, no error, block (fail-closed)", out.Evaluated, out.Err, out.Action)
	}
	if len(handled) != 1 || !errors.Is(handled[0], guard.ErrJudge) {
		t.Errorf("error handler got %v; want the failed judge", handled)
	}
	f := out.Result.Fallback
	if f == nil || f.Cause != guard.CauseBudget || f.Causes[guard.CauseBudget] != 2 || !errors.Is(f.Err(), guard.ErrFallbackBudget) {
		t.Fatalf("fallback = %+v; want two decisions unsettled by the budget", f)
	}

	ev := spanByName(t, k.spans.Ended(), otelkeys.SpanEvaluation)[0]
	if v, _ := attrOf(ev.Attributes(), otelkeys.FallbackCause); v.AsString() != "budget" {
		t.Errorf("%s = %q; want budget", otelkeys.FallbackCause, v.AsString())
	}
	if v, _ := attrOf(ev.Attributes(), otelkeys.FallbackCauses); !slices.Equal(v.AsStringSlice(), []string{"budget", "budget"}) {
		t.Errorf("%s = %v; want [budget budget]", otelkeys.FallbackCauses, v.AsStringSlice())
	}
	if v, _ := attrOf(ev.Attributes(), otelkeys.JudgeErrorCauses); !slices.Equal(v.AsStringSlice(), []string{"judge_failed"}) {
		t.Errorf("%s = %v; want [judge_failed]", otelkeys.JudgeErrorCauses, v.AsStringSlice())
	}
	// Contradiction: the primary failed, the fallback's budget was spent;
	// the result keeps the fallback's abstention.
	found := false
	for _, e := range ev.Events() {
		name, _ := attrOf(e.Attributes, otelkeys.GenAIEvaluationName)
		cause, ok := attrOf(e.Attributes, otelkeys.EventCause)
		switch name.AsString() {
		case "contradiction":
			found = true
			if cause.AsString() != "budget" {
				t.Errorf("contradiction event cause = %q; want budget", cause.AsString())
			}
		default:
			if ok {
				t.Errorf("%s event (with a score) has cause %q", name.AsString(), cause.AsString())
			}
		}
	}
	if !found {
		t.Error("no contradiction event")
	}

	shutdownChain(t, chain) // the record queue writes the record
	rec, err := recordLine(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	r := rec.Result
	if r.Fallback == nil || !errors.Is(r.Fallback.Err(), guard.ErrFallbackBudget) || r.Fallback.Causes[guard.CauseBudget] != 2 {
		t.Errorf("record fallback = %+v; want the budget cause", r.Fallback)
	}
	if len(r.Errors) != 1 || !errors.Is(r.Err(), guard.ErrJudge) || r.Errors[0].Cause != guard.CauseJudgeFailed {
		t.Errorf("record errors = %+v; want the failed judge with its cause", r.Errors)
	}
	if len(r.Abstentions) != 1 || !errors.Is(r.Abstentions[0].Err(), guard.ErrFallbackBudget) {
		t.Errorf("record abstentions = %+v; want contradiction, cause budget", r.Abstentions)
	}
}

// TestEvaluatorErrorMeansNoResult checks the Evaluator contract: an error
// means no result, even when the evaluator also returned a filled one.
func TestEvaluatorErrorMeansNoResult(t *testing.T) {
	boom := errors.New("evaluator closed")
	ev := evaluatorFunc(func(ctx context.Context, s guard.Sample) (guard.Result, error) {
		res, _ := testGuard(t).Evaluate(ctx, s)
		return res, boom
	})
	chain := Wrap(chains.NewRetrievalQAFromLLM(&scriptedLLM{}, kbRetriever{}),
		WithGuard(ev, Gate{Block: AnnotateOnly, Review: AnnotateOnly}), WithErrorHandler(func(error) {}))
	ctx, out := WithOutcome(context.Background())
	if _, err := chains.Run(ctx, chain, qPass); err != nil {
		t.Fatal(err)
	}
	if out.Evaluated || !errors.Is(out.Err, boom) || out.Action != guard.Review || out.Result.DecisionID != "" {
		t.Errorf("outcome: evaluated %v, err %v, action %v, result %q; want no result, the error, review", out.Evaluated, out.Err, out.Action, out.Result.DecisionID)
	}
}

type evaluatorFunc func(ctx context.Context, s guard.Sample) (guard.Result, error)

func (f evaluatorFunc) Evaluate(ctx context.Context, s guard.Sample) (guard.Result, error) {
	return f(ctx, s)
}

// recordLine decodes the one record line in b.
func recordLine(b []byte) (record.Record, error) {
	var rec record.Record
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	if len(lines) != 1 {
		return rec, errors.New("want one record line")
	}
	return rec, json.Unmarshal(lines[0], &rec)
}

// TestPromiseBrokenOnSpansAndMetrics: a result whose groundedness pass
// verdict the promise monitor withheld says so on the evaluation span (an
// attribute and a ragtriage.promise.broken event with the cause), in the
// withheld-verdicts metric and in the record.
func TestPromiseBrokenOnSpansAndMetrics(t *testing.T) {
	k := newTelemetry(t)
	m, err := guard.NewPromiseMonitor(guard.PromiseConfig{Alpha: 0.1, Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	g, err := guard.New(guard.WithJudge(scriptedJudge{}), guard.WithPolicy(testPolicy()), guard.WithMonitor(m))
	if err != nil {
		t.Fatal(err)
	}
	_, p := g.Monitor()
	bad := guard.AuditOutcome{Decision: guard.Groundedness, Auto: guard.Pass, Teacher: guard.Fail, Disagree: true}
	for range 3 {
		if err := m.Observe(context.Background(), p, []guard.AuditOutcome{bad}); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	chain := Wrap(chains.NewRetrievalQAFromLLM(&scriptedLLM{}, kbRetriever{}), append(k.opts(),
		WithGuard(g, Gate{Block: AnnotateOnly, Review: AnnotateOnly}), WithSink(record.NewWriter(&buf)))...)
	ctx, out := WithOutcome(context.Background())
	if _, err := chains.Run(ctx, chain, qPass); err != nil {
		t.Fatal(err)
	}
	shutdownChain(t, chain)
	if !out.Evaluated || out.Result.Diagnosis != guard.JudgeUncertain || len(out.Result.Withheld) != 1 {
		t.Fatalf("outcome %v withheld %+v; want JUDGE_UNCERTAIN with groundedness pass withheld", out.Result.Diagnosis, out.Result.Withheld)
	}
	ev := spanByName(t, k.spans.Ended(), otelkeys.SpanEvaluation)[0]
	if v, _ := attrOf(ev.Attributes(), otelkeys.PromiseWithheld); !slices.Equal(v.AsStringSlice(), []string{"groundedness/pass"}) {
		t.Errorf("%s = %v; want [groundedness/pass]", otelkeys.PromiseWithheld, v.AsStringSlice())
	}
	var events int
	for _, e := range ev.Events() {
		if e.Name != otelkeys.EventPromiseBroken {
			continue
		}
		events++
		d, _ := attrOf(e.Attributes, otelkeys.GenAIEvaluationName)
		sd, _ := attrOf(e.Attributes, otelkeys.PromiseSide)
		c, _ := attrOf(e.Attributes, otelkeys.EventCause)
		n, _ := attrOf(e.Attributes, otelkeys.PromiseWithheldCount)
		if d.AsString() != "groundedness" || sd.AsString() != "pass" || c.AsString() != "promise_broken" || n.AsInt64() != 1 {
			t.Errorf("event %v", e.Attributes)
		}
	}
	if events != 1 {
		t.Errorf("%d %s events; want 1", events, otelkeys.EventPromiseBroken)
	}
	if n := k.sum(t, otelkeys.MetricPromiseWithheld, map[string]string{otelkeys.PromiseDecision: "groundedness", otelkeys.PromiseSide: "pass", otelkeys.Mode: "inline"}); n != 1 {
		t.Errorf("%s = %d; want 1", otelkeys.MetricPromiseWithheld, n)
	}
	var rec record.Record
	if err := json.Unmarshal(bytes.TrimSpace(buf.Bytes()), &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Result.Withheld) != 1 || rec.Result.Withheld[0].Cause != guard.CausePromiseBroken {
		t.Errorf("record withheld %+v; want the groundedness pass verdict, cause promise_broken", rec.Result.Withheld)
	}
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
