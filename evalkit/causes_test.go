package evalkit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"testing"
	"time"

	"github.com/sony/gobreaker/v2"
	"go.opentelemetry.io/otel/metric/noop"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/evalkit/otlp"
	"github.com/ragtriage/ragtriage/evalkit/report"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/guardtest"
	"github.com/ragtriage/ragtriage/otelkeys"
	"github.com/ragtriage/ragtriage/record"
)

// causeFallback is a fallback judge for TestCausesEndToEnd: it runs hook,
// then answers every decision with p (abstaining when abstain is set).
type causeFallback struct {
	p       float64
	abstain bool
	hook    func(ctx context.Context) error
}

func (f *causeFallback) Judge(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
	if f.hook != nil {
		if err := f.hook(ctx); err != nil {
			return nil, err
		}
	}
	var out []guard.Estimate
	for _, d := range req.Decisions {
		if f.abstain {
			out = append(out, guard.Abstain(d, "", "samples disagree"))
		} else {
			out = append(out, guard.Estimate{Decision: d, P: f.p})
		}
	}
	return out, nil
}

// causeSample returns a distinct sample (distinct cache and call keys).
func causeSample(i int) guard.Sample {
	return guard.Sample{ID: fmt.Sprintf("s%d", i), Question: fmt.Sprintf("Question %d?", i),
		Contexts: []guard.Context{{ID: "c1", Text: fmt.Sprintf("Context %d.", i)}}, Answer: fmt.Sprintf("Answer %d.", i)}
}

// TestCausesEndToEnd drives a real cascade into every fallback cause and
// follows each through the guard's Result, a record written and read back,
// and the report of a replay of those records: errors.Is works at every
// step, and the report counts each cause once.
func TestCausesEndToEnd(t *testing.T) {
	var policy guard.Policy
	for _, d := range guard.Decisions {
		policy.Set(d, guard.Thresholds{Fail: 0.2, Pass: 0.8})
	}
	// The primary decides everything but groundedness, which no judge
	// answers: it is escalated, and the fallback's outcome is what the
	// result keeps for it.
	primary := guardtest.Fixed{Default: 0.95, P: map[guard.Decision]float64{guard.ContextConflict: 0.05, guard.Contradiction: 0.05}}
	notGrounded := []guard.Decision{guard.ChunkRelevance, guard.ContextSufficiency, guard.ContextConflict, guard.AnswerRelevance, guard.Contradiction}
	newGuard := func(t *testing.T, fb guard.Judge, opts ...cascade.Option) (*guard.Guard, *cascade.Cascade) {
		t.Helper()
		c, err := cascade.New(fb, append([]cascade.Option{cascade.WithMeterProvider(noop.NewMeterProvider())}, opts...)...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		g, err := guard.New(guard.WithJudge(primary, notGrounded...), guard.WithPolicy(policy),
			guard.WithEscalator(c, policy, guard.FailClosed))
		if err != nil {
			t.Fatal(err)
		}
		return g, c
	}
	eval := func(t *testing.T, ctx context.Context, g *guard.Guard, i int) guard.Result {
		t.Helper()
		res, err := g.Evaluate(ctx, causeSample(i))
		if err != nil {
			t.Fatalf("Evaluate: %v; want a result", err)
		}
		return res
	}
	bg := context.Background()
	results := map[guard.Cause]guard.Result{}

	t.Run("budget", func(t *testing.T) {
		g, _ := newGuard(t, &causeFallback{p: 0.95}, cascade.WithBudget(cascade.Budget{Window: time.Hour, MaxCalls: 1}))
		eval(t, bg, g, 1) // spends the budget
		results[guard.CauseBudget] = eval(t, bg, g, 2)
	})
	t.Run("breaker_open and fallback_failed", func(t *testing.T) {
		g, _ := newGuard(t, &causeFallback{hook: func(context.Context) error { return errors.New("HTTP 500") }},
			cascade.WithBreakerSettings(gobreaker.Settings{Timeout: time.Hour, ReadyToTrip: func(c gobreaker.Counts) bool { return c.ConsecutiveFailures >= 1 }}))
		results[guard.CauseFallbackFailed] = eval(t, bg, g, 1) // trips the breaker
		results[guard.CauseBreakerOpen] = eval(t, bg, g, 2)
	})
	t.Run("share", func(t *testing.T) {
		// A share this small draws nobody during its warm-up.
		g, _ := newGuard(t, &causeFallback{p: 0.95}, cascade.WithLimits(cascade.Limits{Share: 1e-9, ShareWindow: 100}))
		results[guard.CauseShare] = eval(t, bg, g, 1)
	})
	t.Run("deadline", func(t *testing.T) {
		// 900ms left is less than the 1s reserve: too near to try.
		g, _ := newGuard(t, &causeFallback{p: 0.95}, cascade.WithLimits(cascade.Limits{Reserve: time.Second}))
		ctx, cancel := context.WithTimeout(bg, 900*time.Millisecond)
		defer cancel()
		results[guard.CauseDeadline] = eval(t, ctx, g, 1)
	})
	t.Run("concurrency", func(t *testing.T) {
		entered, release := make(chan struct{}), make(chan struct{})
		g, _ := newGuard(t, &causeFallback{p: 0.95, hook: func(context.Context) error {
			close(entered)
			<-release
			return nil
		}}, cascade.WithLimits(cascade.Limits{MaxConcurrent: 1}))
		done := make(chan guard.Result)
		go func() { res, _ := g.Evaluate(bg, causeSample(1)); done <- res }()
		<-entered // the one slot is taken, and nobody may wait
		results[guard.CauseConcurrency] = eval(t, bg, g, 2)
		close(release)
		if res := <-done; res.Fallback == nil || res.Fallback.Settled != 1 {
			t.Errorf("the call holding the slot: fallback %+v; want it settled", res.Fallback)
		}
	})
	t.Run("closed", func(t *testing.T) {
		g, c := newGuard(t, &causeFallback{p: 0.95})
		if err := c.Close(bg); err != nil {
			t.Fatal(err)
		}
		results[guard.CauseClosed] = eval(t, bg, g, 1)
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(bg)
		defer cancel()
		g, _ := newGuard(t, &causeFallback{hook: func(ctx context.Context) error {
			cancel() // the request ends while the fallback works
			<-ctx.Done()
			return ctx.Err()
		}})
		results[guard.CauseCancelled] = eval(t, ctx, g, 1)
	})
	t.Run("fallback_abstained", func(t *testing.T) {
		g, _ := newGuard(t, &causeFallback{abstain: true})
		results[guard.CauseFallbackAbstained] = eval(t, bg, g, 1)
	})
	t.Run("fallback_uncertain", func(t *testing.T) {
		g, _ := newGuard(t, &causeFallback{p: 0.5})
		results[guard.CauseFallbackUncertain] = eval(t, bg, g, 1)
	})

	// check verifies one result (as evaluated, or read back from a record).
	check := func(t *testing.T, where string, c guard.Cause, r *guard.Result) {
		t.Helper()
		f := r.Fallback
		if f == nil {
			t.Fatalf("%s %s: no fallback", where, c)
		}
		if f.Unsettled != 1 || f.Cause != c || !maps.Equal(f.Causes, map[guard.Cause]int{c: 1}) {
			t.Errorf("%s %s: fallback unsettled %d, cause %q, causes %v; want 1, %q once", where, c, f.Unsettled, f.Cause, f.Causes, c)
		}
		if r.Diagnosis != guard.JudgeUncertain || r.Action != guard.Block {
			t.Errorf("%s %s: %v/%v; want JUDGE_UNCERTAIN, blocked (fail-closed)", where, c, r.Diagnosis, r.Action)
		}
		sentinel := c.Err()
		if c == guard.CauseFallbackUncertain {
			if f.Err() != nil || len(r.Abstentions) != 0 {
				t.Errorf("%s %s: Err() %v, abstentions %+v; want none (the fallback answered)", where, c, f.Err(), r.Abstentions)
			}
			return
		}
		if !errors.Is(f.Err(), sentinel) {
			t.Errorf("%s %s: Fallback.Err() = %v; want it to wrap %v", where, c, f.Err(), sentinel)
		}
		for _, other := range guard.Causes {
			if s := other.Err(); other != c && s != nil && errors.Is(f.Err(), s) {
				t.Errorf("%s %s: Fallback.Err() = %v also wraps %v", where, c, f.Err(), s)
			}
		}
		if len(r.Abstentions) != 1 || r.Abstentions[0].Decision != guard.Groundedness || r.Abstentions[0].Cause != c || !errors.Is(r.Abstentions[0].Err(), sentinel) {
			t.Errorf("%s %s: abstentions %+v; want groundedness with cause %q", where, c, r.Abstentions, c)
		}
	}
	for c, r := range results {
		check(t, "result", c, &r)
	}
	if len(results) != 10 {
		t.Fatalf("%d causes produced; want 10", len(results))
	}

	// Records, as the middleware's sink writes them, plus one written
	// before causes were recorded.
	var buf bytes.Buffer
	w := record.NewWriter(&buf)
	for c, r := range results {
		if err := w.WriteRecord(bg, &record.Record{ID: string(c), Time: time.Unix(0, 0).UTC(), Result: r}); err != nil {
			t.Fatal(err)
		}
	}
	buf.WriteString(`{"recordVersion":"ragtriage.record/2","id":"old","result":{"diagnosis":"JUDGE_UNCERTAIN","route":"fallback","action":"block","decisionId":"d",` +
		`"abstentions":[{"decision":"groundedness","judge":"cascade(x)","reason":"budget spent: 10 calls"}],` +
		`"fallback":{"judge":"cascade(x)","decisions":["groundedness"],"settled":0,"unsettled":1,"reason":"budget spent: 10 calls","rule":"fail_closed","latencyMs":0}}}` + "\n")
	for _, line := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
		rec, err := parseRecord(line)
		if err != nil {
			t.Fatal(err)
		}
		if rec.ID == "old" {
			if rec.Result.Fallback.Err() != nil || rec.Result.Abstentions[0].Cause != "" {
				t.Errorf("old record: causes %v, %q; want none", rec.Result.Fallback.Err(), rec.Result.Abstentions[0].Cause)
			}
			continue
		}
		check(t, "record", guard.Cause(rec.ID), &rec.Result)
	}

	// The replay of the records counts each cause once.
	path := writeFile(t, "records.jsonl", buf.String())
	rep, err := Run(bg, NewRecordSource(nil, path), Config{Mode: report.ModeRecorded, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Input.RowsEvaluated != 11 || rep.Cascade == nil {
		t.Fatalf("evaluated %d, cascade %+v; want 11 rows with a cascade section", rep.Input.RowsEvaluated, rep.Cascade)
	}
	wantUnsettled := map[string]int{report.CauseUnrecorded: 1}
	wantAbst := map[string]int{report.CauseUnrecorded: 1, string(guard.CauseAbstained): 0, string(guard.CauseJudgeFailed): 0,
		string(guard.CauseInputTooLarge): 0}
	for _, c := range guard.Causes {
		switch c {
		case guard.CauseAbstained, guard.CauseJudgeFailed, guard.CauseInputTooLarge:
		case guard.CausePromiseBroken:
			// A withheld verdict has its probability and is never a
			// fallback's cause: the promise block counts it.
		case guard.CauseFallbackUncertain:
			wantUnsettled[string(c)] = 1
		default:
			wantUnsettled[string(c)], wantAbst[string(c)] = 1, 1
		}
	}
	if got := rep.Cascade.UnsettledByCause; !maps.Equal(got, wantUnsettled) || rep.Cascade.UnsettledDecisions != 11 {
		t.Errorf("cascade.unsettledByCause = %v (of %d unsettled); want %v (of 11)", got, rep.Cascade.UnsettledDecisions, wantUnsettled)
	}
	if got := rep.Abstentions; !maps.Equal(got.ByCause, wantAbst) || got.Total != 10 {
		t.Errorf("abstentions = %+v; want total 10, %v", got, wantAbst)
	}
}

// TestReadOTLPCauses checks that the cause attributes the middleware puts
// on an evaluation span (see middleware's TestCausesOnSpansAndRecords) are
// read back into the record: the escalate span of the round-trip fixture,
// given a fallback whose budget left two decisions unsettled, one of them
// without a score.
func TestReadOTLPCauses(t *testing.T) {
	fixture, err := os.ReadFile("otlp/testdata/otlp-roundtrip.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(fixture, &doc); err != nil {
		t.Fatal(err)
	}
	str := func(k, v string) any { return map[string]any{"key": k, "value": map[string]any{"stringValue": v}} }
	strs := func(k string, vs ...string) any {
		var arr []any
		for _, v := range vs {
			arr = append(arr, map[string]any{"stringValue": v})
		}
		return map[string]any{"key": k, "value": map[string]any{"arrayValue": map[string]any{"values": arr}}}
	}
	found := false
	for _, rs := range doc["resourceSpans"].([]any) {
		for _, ss := range rs.(map[string]any)["scopeSpans"].([]any) {
			for _, sp := range ss.(map[string]any)["spans"].([]any) {
				span := sp.(map[string]any)
				attrs, _ := span["attributes"].([]any)
				isTarget := false
				for _, a := range attrs {
					kv := a.(map[string]any)
					if kv["key"] == otelkeys.SampleID && kv["value"].(map[string]any)["stringValue"] == "escalate-bare" {
						isTarget = true
					}
				}
				if !isTarget || span["name"] != otelkeys.SpanEvaluation {
					continue
				}
				found = true
				span["attributes"] = append(attrs,
					str(otelkeys.FallbackJudge, "cascade(x)"), strs(otelkeys.FallbackDecisions, "groundedness", "contradiction"),
					str(otelkeys.FallbackRule, "fail_closed"), str(otelkeys.FallbackReason, "budget spent: 10 calls"),
					str(otelkeys.FallbackCause, "budget"), strs(otelkeys.FallbackCauses, "budget", "budget"),
					strs(otelkeys.JudgeErrors, "primary"), strs(otelkeys.JudgeErrorCauses, "judge_failed"))
				// Contradiction loses its score and gains the cause.
				for _, e := range span["events"].([]any) {
					ev := e.(map[string]any)
					var kept []any
					isContradiction := false
					for _, a := range ev["attributes"].([]any) {
						kv := a.(map[string]any)
						if kv["key"] == otelkeys.GenAIEvaluationName && kv["value"].(map[string]any)["stringValue"] == "contradiction" {
							isContradiction = true
						}
					}
					if !isContradiction {
						continue
					}
					for _, a := range ev["attributes"].([]any) {
						if a.(map[string]any)["key"] != otelkeys.GenAIEvaluationScoreValue {
							kept = append(kept, a)
						}
					}
					ev["attributes"] = append(kept, str(otelkeys.GenAIEvaluationExplanation, "budget spent"), str(otelkeys.EventCause, "budget"))
				}
			}
		}
	}
	if !found {
		t.Fatal("no escalate-bare evaluation span in the fixture")
	}
	line, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	var rec *record.Record
	if _, err := otlp.Read(bytes.NewReader(append(line, '\n')), func(_ int, r record.Record) error {
		if r.ID == "escalate-bare" {
			rec = &r
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if rec == nil {
		t.Fatal("no record for escalate-bare")
	}
	r := &rec.Result
	if f := r.Fallback; f == nil || f.Cause != guard.CauseBudget || !maps.Equal(f.Causes, map[guard.Cause]int{guard.CauseBudget: 2}) || !errors.Is(f.Err(), guard.ErrFallbackBudget) {
		t.Errorf("fallback = %+v; want cause budget twice", f)
	}
	if len(r.Errors) != 1 || r.Errors[0].Cause != guard.CauseJudgeFailed || !errors.Is(r.Err(), guard.ErrJudge) {
		t.Errorf("errors = %+v; want the primary's failure with its cause", r.Errors)
	}
	var got []guard.Cause
	for _, a := range r.Abstentions {
		if a.Decision == guard.Contradiction {
			got = append(got, a.Cause)
		}
	}
	if len(got) != 1 || got[0] != guard.CauseBudget {
		t.Errorf("contradiction abstention causes %v (abstentions %+v); want [budget]", got, r.Abstentions)
	}
}
