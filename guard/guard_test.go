package guard_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/guardtest"
)

// inlineSlow is a Slow judge that claims to be Inline, so the guard calls it
// on the caller's goroutine.
type inlineSlow struct{ guardtest.Slow }

func (inlineSlow) Inline() bool { return true }

// estimatesFunc returns a judge answering each requested decision with
// healthy probabilities, then letting edit change the answer.
func estimatesFunc(edit func(guard.Request, []guard.Estimate) []guard.Estimate) guard.Judge {
	return guard.JudgeFunc(func(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
		out, err := healthyJudge().Judge(ctx, req)
		if err != nil {
			return nil, err
		}
		return edit(req, out), nil
	})
}

func setP(d guard.Decision, p float64) func(guard.Request, []guard.Estimate) []guard.Estimate {
	return func(_ guard.Request, es []guard.Estimate) []guard.Estimate {
		for i := range es {
			if es[i].Decision == d {
				es[i].P = p
			}
		}
		return es
	}
}

var errBoom = errors.New("boom")

// judgeErrors lists the *JudgeErrors joined in err.
func judgeErrors(err error) []*guard.JudgeError {
	var out []*guard.JudgeError
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		var je *guard.JudgeError
		if errors.As(e, &je) {
			out = append(out, je)
		}
	}
	return out
}

// TestEvaluateFailedJudge checks that a judge that fails in any way makes its
// decisions uncertain, is listed in the result and the error, and never lets
// the answer pass.
func TestEvaluateFailedJudge(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	background := func() (context.Context, context.CancelFunc) { return context.Background(), func() {} }
	cancellable := func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }
	cancelled := func() (context.Context, context.CancelFunc) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		return ctx, cancel
	}
	deadline20ms := func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.Background(), 20*time.Millisecond)
	}
	notAsked := func(req guard.Request, es []guard.Estimate) []guard.Estimate {
		for _, d := range guard.Decisions {
			if !req.Wants(d) && d != guard.ChunkRelevance {
				return append(es, guard.Estimate{Decision: d, P: 1})
			}
		}
		return append(es, guard.Estimate{Decision: guard.Decision(0), P: 1}) // everything was asked
	}
	tests := []struct {
		name   string
		judge  guard.Judge
		ctx    func() (context.Context, context.CancelFunc)
		wantIs error  // the failure the error must wrap, besides ErrJudge
		wantIn string // a substring of the error message
		// cause is the JudgeError's and the abstentions' (CauseJudgeFailed
		// when empty): a judge that did not answer before the request's
		// deadline is a deadline (issue 18 item 2).
		cause guard.Cause
	}{
		{"error", guardtest.Failing{Err: errBoom}, background, errBoom, "boom", ""},
		{"error, cancellable context", guardtest.Failing{Err: errBoom}, cancellable, errBoom, "boom", ""},
		{"panic", guardtest.Panicking{Value: "kaboom"}, background, nil, "panicked: kaboom", ""},
		{"panic on the judge's goroutine", guardtest.Panicking{Value: "kaboom"}, cancellable, nil, "panicked: kaboom", ""},
		{"NaN", guardtest.NaN{}, background, nil, "NaN", ""},
		{"P=1.7", estimatesFunc(setP(guard.Groundedness, 1.7)), background, nil, "outside [0, 1]", ""},
		{"P=-0.1", estimatesFunc(setP(guard.Groundedness, -0.1)), background, nil, "outside [0, 1]", ""},
		{"P=+Inf", estimatesFunc(setP(guard.Groundedness, math.Inf(1))), background, nil, "outside [0, 1]", ""},
		{"decision not asked", estimatesFunc(notAsked), background, nil, "not asked", ""},
		{"unknown context", estimatesFunc(func(_ guard.Request, es []guard.Estimate) []guard.Estimate {
			return append(es, guard.Estimate{Decision: guard.ChunkRelevance, ContextID: "nope", P: 1})
		}), background, nil, "chunk_relevance", ""}, // unknown context, or not asked
		{"context ID on a set-level decision", estimatesFunc(func(_ guard.Request, es []guard.Estimate) []guard.Estimate {
			return append(es[:0:0], guard.Estimate{Decision: guard.Groundedness, ContextID: "c1", P: 1})
		}), background, nil, "names context", ""},
		{"duplicate estimate", estimatesFunc(func(_ guard.Request, es []guard.Estimate) []guard.Estimate {
			return append(es, es[len(es)-1])
		}), background, nil, "one estimate per decision", ""},
		{"negative usage", estimatesFunc(func(_ guard.Request, es []guard.Estimate) []guard.Estimate {
			es[0].Usage.OutputTokens = -5
			return es
		}), background, nil, "-5 output tokens", ""},
		{"cancelled before the call", healthyJudge(), cancelled, context.Canceled, "canceled", guard.CauseCancelled},
		{"honours a 20ms deadline", guardtest.Slow{Release: release}, deadline20ms, context.DeadlineExceeded, "deadline", guard.CauseDeadline},
		{"ignores a 20ms deadline", guardtest.Slow{IgnoreContext: true, Release: release}, deadline20ms, context.DeadlineExceeded, "did not return before cancellation", guard.CauseDeadline},
		{"inline, answers after the deadline", inlineSlow{guardtest.Slow{IgnoreContext: true, Delay: 40 * time.Millisecond, Then: healthyJudge()}}, deadline20ms, context.DeadlineExceeded, "returned after cancellation", guard.CauseDeadline},
	}
	for _, tt := range tests {
		for _, scope := range []struct {
			name string
			ds   []guard.Decision // nil: all decisions
		}{{"all decisions", nil}, {"groundedness", []guard.Decision{guard.Groundedness}}} {
			t.Run(tt.name+"/"+scope.name, func(t *testing.T) {
				// The failing judge is named "bad", the other "healthy".
				bad := &recording{name: "bad", judge: tt.judge}
				g := mustNew(t, guard.WithJudge(healthyJudge()), guard.WithJudge(bad, scope.ds...), guard.WithPolicy(testPolicy))
				ctx, cancel := tt.ctx()
				defer cancel()
				// The slow judges are released only when the test ends: an
				// Evaluate that waited for them would not return.
				r, everr := g.Evaluate(ctx, newSample(true, "c1", "c2"))
				if everr != nil {
					t.Fatalf("Evaluate error = %v; want nil (a failed judge is part of the result)", everr)
				}
				if r.Action == guard.Allow {
					t.Errorf("Evaluate with a judge that fails (%s): action allow; want anything else", tt.name)
				}
				err := r.Err()
				if r.Diagnosis == guard.PassDiagnosis {
					t.Errorf("Evaluate with a judge that fails (%s) = PASS; want anything else", tt.name)
				}
				if r.Diagnosis != guard.JudgeUncertain || r.Route != guard.RouteReview {
					t.Errorf("Evaluate with a judge that fails (%s) = %v/%v; want %v/%v", tt.name, r.Diagnosis, r.Route, guard.JudgeUncertain, guard.RouteReview)
				}
				if !errors.Is(err, guard.ErrJudge) {
					t.Errorf("Evaluate error = %v; want it to wrap ErrJudge", err)
				}
				if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
					t.Errorf("Evaluate error = %v; want it to wrap %v", err, tt.wantIs)
				}
				if err == nil || !strings.Contains(err.Error(), tt.wantIn) {
					t.Errorf("Evaluate error = %v; want it to mention %q", err, tt.wantIn)
				}
				if strings.HasPrefix(tt.name, "panic") {
					var pe *guard.PanicError
					if !errors.As(err, &pe) || pe.Value != "kaboom" {
						t.Errorf("Evaluate error = %v; want a *PanicError with value kaboom", err)
					}
				}
				// One JudgeError for the bad judge; the healthy one may only
				// fail because the context is done.
				jes := judgeErrors(err)
				var je *guard.JudgeError
				for _, e := range jes {
					switch {
					case e.Judge == "bad":
						je = e
					case ctx.Err() == nil:
						t.Errorf("unexpected failure of judge %s: %v", e.Judge, e)
					}
				}
				if je == nil {
					t.Fatalf("Evaluate error = %v; want a *JudgeError for judge bad", err)
				}
				wantDs := scope.ds
				if wantDs == nil {
					wantDs = guard.Decisions
				}
				if !reflect.DeepEqual(je.Decisions, wantDs) {
					t.Errorf("JudgeError.Decisions = %v; want %v", je.Decisions, wantDs)
				}
				if len(r.Errors) != len(jes) {
					t.Errorf("Result.Errors = %+v; want the %d failures of the error", r.Errors, len(jes))
				}
				wantCause := tt.cause
				if wantCause == "" {
					wantCause = guard.CauseJudgeFailed
				}
				if je.Cause != wantCause {
					t.Errorf("JudgeError.Cause = %q; want %q", je.Cause, wantCause)
				}
				// Each of its decisions is an abstention with the failure's cause.
				for _, a := range r.Abstentions {
					if slices.Contains(wantDs, a.Decision) && (a.Cause != wantCause || !errors.Is(a.Err(), wantCause.Err())) {
						t.Errorf("abstention %+v: want cause %q, its Err wrapping %v", a, wantCause, wantCause.Err())
					}
				}
				for i := range r.Errors {
					if i < len(jes) && (r.Errors[i].Judge != jes[i].Judge || r.Errors[i].Message != jes[i].Err.Error()) {
						t.Errorf("Result.Errors[%d] = %+v; want judge %s, message %q", i, r.Errors[i], jes[i].Judge, jes[i].Err)
					}
				}
				// Every decision the judge was asked is unknown and uncertain.
				for _, d := range wantDs {
					if d == guard.ChunkRelevance {
						for i, e := range r.Verdicts.Retrieval.ChunkRelevance {
							if e.Value != guard.Uncertain || r.Retrieval.ChunkRelevance[i].Value.Known {
								t.Errorf("chunk %s after a failure: %+v, %v; want unknown and uncertain", e.Key, r.Retrieval.ChunkRelevance[i].Value, e.Value)
							}
						}
						continue
					}
					if v, _ := r.Verdict(d); v != guard.Uncertain || r.Prob(d).Known {
						t.Errorf("%v after a failure: %+v, %v; want unknown and uncertain", d, r.Prob(d), v)
					}
				}
				if _, err := json.Marshal(r); err != nil {
					t.Errorf("Marshal(result): %v", err)
				}
			})
		}
	}
}

// A failed judge yields an escalation, never a pass, even with every threshold
// at its most permissive.
func TestEvaluateFailedJudgeNeverPasses(t *testing.T) {
	lax := policyAll(guard.Thresholds{Fail: 0, Pass: 0.000001})
	for _, j := range []guard.Judge{guardtest.Failing{}, guardtest.Panicking{}, guardtest.NaN{}, guardtest.Abstaining{}} {
		for _, d := range guard.Decisions {
			g := mustNew(t, guard.WithJudge(guardtest.Fixed{Default: 1, P: p{guard.ContextConflict: 0, guard.Contradiction: 0}}),
				guard.WithJudge(j, d), guard.WithPolicy(lax))
			r, _ := g.Evaluate(context.Background(), newSample(true, "c1"))
			if r.Diagnosis == guard.PassDiagnosis || r.Route != guard.RouteReview {
				t.Errorf("Evaluate with %T on %v = %v/%v; want review (no fallback configured)", j, d, r.Diagnosis, r.Route)
			}
		}
	}
}

func TestEvaluateJudgeRouting(t *testing.T) {
	a := &recording{name: "A", judge: guardtest.Fixed{P: healthy()}}
	b := &recording{name: "B", judge: guardtest.Fixed{Default: 0.95, P: p{guard.Contradiction: 0.05}}}
	g := mustNew(t, guard.WithJudge(a), guard.WithJudge(b, guard.Groundedness, guard.Contradiction), guard.WithPolicy(testPolicy))
	r, err := g.Evaluate(context.Background(), newSample(false, "c1"))
	if err != nil {
		t.Fatal(err)
	}
	wantA := []guard.Decision{guard.ChunkRelevance, guard.ContextSufficiency, guard.ContextConflict, guard.AnswerRelevance}
	if got := a.calls(); len(got) != 1 || !reflect.DeepEqual(got[0], wantA) {
		t.Errorf("judge A was asked %v; want [%v]", got, wantA)
	}
	wantB := []guard.Decision{guard.Groundedness, guard.Contradiction}
	if got := b.calls(); len(got) != 1 || !reflect.DeepEqual(got[0], wantB) {
		t.Errorf("judge B was asked %v; want [%v]", got, wantB)
	}
	if got := r.Generation.Groundedness; got != guard.KnownProb(0.95) {
		t.Errorf("groundedness = %+v; want judge B's 0.95", got)
	}
	if got := r.Generation.AnswerRelevance; got != guard.KnownProb(0.9) {
		t.Errorf("relevance = %+v; want judge A's 0.9", got)
	}
	if want := map[string]string{"A": "test", "B": "test"}; !reflect.DeepEqual(r.Judges, want) {
		t.Errorf("Judges = %v; want %v", r.Judges, want)
	}
	for _, e := range r.Estimates {
		want := "A"
		if e.Decision == guard.Groundedness || e.Decision == guard.Contradiction {
			want = "B"
		}
		if e.Judge != want || e.JudgeVersion != "test" {
			t.Errorf("estimate of %v: judge %q %q; want %q %q", e.Decision, e.Judge, e.JudgeVersion, want, "test")
		}
	}

	// With a reference, correctness goes to the judge that has it.
	a, b = &recording{name: "A", judge: a.judge}, &recording{name: "B", judge: b.judge}
	g = mustNew(t, guard.WithJudge(a), guard.WithJudge(b, guard.Correctness))
	if _, err := g.Evaluate(context.Background(), newSample(true, "c1")); err != nil {
		t.Fatal(err)
	}
	if got := b.calls(); len(got) != 1 || !reflect.DeepEqual(got[0], []guard.Decision{guard.Correctness}) {
		t.Errorf("correctness judge was asked %v; want [[correctness]]", got)
	}
	// Without one, a judge of correctness alone is not called at all.
	r, err = g.Evaluate(context.Background(), newSample(false, "c1"))
	if err != nil {
		t.Fatal(err)
	}
	if got := b.calls(); len(got) != 1 {
		t.Errorf("correctness judge was called %d times; want once (not without a reference)", len(got))
	}
	if _, ok := r.Judges["B"]; ok {
		t.Errorf("Judges = %v; want no B without a reference", r.Judges)
	}
}

func TestWithJudgeLaterTakesOver(t *testing.T) {
	tests := []struct {
		name       string
		opts       func(a, b guard.Judge) []guard.Option
		wantACalls int
		wantG      float64 // groundedness
	}{
		{"same decision", func(a, b guard.Judge) []guard.Option {
			return []guard.Option{guard.WithJudge(a, guard.Groundedness), guard.WithJudge(b, guard.Groundedness)}
		}, 0, 0.95},
		{"all decisions", func(a, b guard.Judge) []guard.Option {
			return []guard.Option{guard.WithJudge(a), guard.WithJudge(b)}
		}, 0, 0.95},
		{"part of them", func(a, b guard.Judge) []guard.Option {
			return []guard.Option{guard.WithJudge(a), guard.WithJudge(b, guard.Groundedness)}
		}, 1, 0.95},
		{"earlier does not take over", func(a, b guard.Judge) []guard.Option {
			return []guard.Option{guard.WithJudge(b, guard.Groundedness), guard.WithJudge(a)}
		}, 1, 0.9},
	}
	for _, tt := range tests {
		a := &recording{name: "A", judge: healthyJudge()}
		b := &recording{name: "B", judge: guardtest.Fixed{Default: 0.95}}
		g := mustNew(t, tt.opts(a, b)...)
		r, err := g.Evaluate(context.Background(), newSample(false, "c1"))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := len(a.calls()); got != tt.wantACalls {
			t.Errorf("%s: judge A called %d times; want %d", tt.name, got, tt.wantACalls)
		}
		if _, ok := r.Judges["A"]; ok != (tt.wantACalls > 0) {
			t.Errorf("%s: Judges = %v; want A listed=%v", tt.name, r.Judges, tt.wantACalls > 0)
		}
		if got := r.Generation.Groundedness; got != guard.KnownProb(tt.wantG) {
			t.Errorf("%s: groundedness = %+v; want %v", tt.name, got, tt.wantG)
		}
	}
}

func TestEvaluateUnjudgedDecisions(t *testing.T) {
	g := mustNew(t, guard.WithJudge(healthyJudge(), guard.Groundedness), guard.WithPolicy(testPolicy))
	r, err := g.Evaluate(context.Background(), newSample(false, "c1", "c2"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Diagnosis != guard.JudgeUncertain || r.Route != guard.RouteReview {
		t.Errorf("Evaluate with only groundedness judged = %v/%v; want %v/%v", r.Diagnosis, r.Route, guard.JudgeUncertain, guard.RouteReview)
	}
	// Two chunks, sufficiency, conflict, relevance, contradiction.
	if len(r.Abstentions) != 6 {
		t.Errorf("Abstentions = %+v; want 6", r.Abstentions)
	}
	for _, a := range r.Abstentions {
		if a.Reason == "" || a.Decision == guard.Groundedness {
			t.Errorf("abstention %+v: want a reason, and not for groundedness", a)
		}
	}
}

func TestWithJudgeErrors(t *testing.T) {
	for name, opt := range map[string]guard.Option{
		"nil judge":          guard.WithJudge(nil),
		"invalid decision":   guard.WithJudge(healthyJudge(), guard.Decision(0)),
		"decision too large": guard.WithJudge(healthyJudge(), guard.Decision(8)),
		"nil clock":          guard.WithClock(nil),
		"nil diagnoser":      guard.WithDiagnoser(nil),
	} {
		if g, err := guard.New(opt); err == nil || g != nil {
			t.Errorf("New(%s) = %v, %v; want nil and an error", name, g, err)
		}
	}
}

func TestJudgeDefaultName(t *testing.T) {
	j := guard.JudgeFunc(func(ctx context.Context, req guard.Request) ([]guard.Estimate, error) { return nil, nil })
	g := mustNew(t, guard.WithJudge(j))
	r, err := g.Evaluate(context.Background(), newSample(false))
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"guard.JudgeFunc": ""}; !reflect.DeepEqual(r.Judges, want) {
		t.Errorf("Judges = %v; want %v (the judge's type when it does not describe itself)", r.Judges, want)
	}
}

// A judge's request carries the sample and the decisions; the definitions
// are those of the sample's variant, which the result names.
func TestEvaluateRequest(t *testing.T) {
	for _, ref := range []bool{false, true} {
		var got guard.Request
		j := guard.JudgeFunc(func(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
			got = req
			return nil, nil
		})
		s := newSample(ref, "c1")
		r, err := mustNew(t, guard.WithJudge(j)).Evaluate(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		variant := guard.WithoutReference
		if ref {
			variant = guard.WithReference
		}
		if got.Sample == nil || !reflect.DeepEqual(*got.Sample, s) {
			t.Errorf("reference=%v: request sample = %+v; want %+v", ref, got.Sample, s)
		}
		if got.Wants(guard.Correctness) != ref {
			t.Errorf("reference=%v: request wants correctness = %v", ref, !ref)
		}
		defs := guard.Definitions(got.Sample.Variant())
		if defs.Variant != variant {
			t.Fatalf("reference=%v: the request's sample is of variant %s; want %s", ref, defs.Variant, variant)
		}
		for _, d := range got.Decisions {
			if _, ok := defs.Lookup(d); !ok {
				t.Errorf("reference=%v: decision %v has no definition in the sample's set", ref, d)
			}
		}
		if r.DecisionID != defs.ID || r.DecisionVersion != guard.DefinitionsVersion || r.DecisionVariant != variant {
			t.Errorf("reference=%v: result names %s %s %s; want %s %s %s", ref, r.DecisionID, r.DecisionVersion, r.DecisionVariant,
				defs.ID, guard.DefinitionsVersion, variant)
		}
	}
}

// jsonObject decodes b into nested maps.
func jsonObject(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("Unmarshal(%s): %v", b, err)
	}
	return m
}

func object(m map[string]any, path ...string) map[string]any {
	for _, k := range path {
		m, _ = m[k].(map[string]any)
	}
	return m
}

func TestCorrectnessOnlyWithReference(t *testing.T) {
	for _, tt := range []struct {
		name string
		ref  *string
		want bool
	}{
		{"no reference", nil, false},
		{"reference", guard.Ref("Five business days."), true},
		{"empty reference", guard.Ref(""), true}, // absent ≠ empty
	} {
		s := newSample(false, "c1")
		s.Reference = tt.ref
		g := mustNew(t, guard.WithJudge(healthyJudge()), guard.WithPolicy(testPolicy))
		r, err := g.Evaluate(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		m := jsonObject(t, b)
		_, inScores := object(m, "generation")["correctness"]
		_, inVerdicts := object(m, "verdicts", "generation")["correctness"]
		if inScores != tt.want || inVerdicts != tt.want {
			t.Errorf("%s: correctness in generation=%v, in verdicts.generation=%v; want %v in both\n%s", tt.name, inScores, inVerdicts, tt.want, b)
		}
		if _, ok := r.Verdict(guard.Correctness); ok != tt.want {
			t.Errorf("%s: Result.Verdict(correctness) present = %v; want %v", tt.name, ok, tt.want)
		}
		if got := r.Prob(guard.Correctness).Asked; got != tt.want {
			t.Errorf("%s: Result.Prob(correctness).Asked = %v; want %v", tt.name, got, tt.want)
		}
		if !tt.want && strings.Contains(string(b), "correctness") {
			t.Errorf("%s: JSON mentions correctness:\n%s", tt.name, b)
		}
		wantVariant := map[bool]guard.Variant{true: guard.WithReference, false: guard.WithoutReference}[tt.want]
		if r.DecisionVariant != wantVariant {
			t.Errorf("%s: decisionVariant = %v; want %v", tt.name, r.DecisionVariant, wantVariant)
		}
	}
}

func TestAbstentionIsNull(t *testing.T) {
	g := mustNew(t, guard.WithJudge(healthyJudge()), guard.WithJudge(guardtest.Abstaining{Reason: "quote not found"}, guard.Groundedness),
		guard.WithPolicy(testPolicy))
	r, err := g.Evaluate(context.Background(), newSample(false, "c1"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	m := jsonObject(t, b)
	if v, ok := object(m, "generation")["groundedness"]; !ok || v != nil {
		t.Errorf("generation.groundedness = %v (present %v); want null\n%s", v, ok, b)
	}
	if v := object(m, "verdicts", "generation")["groundedness"]; v != "uncertain" {
		t.Errorf("verdicts.generation.groundedness = %v; want \"uncertain\"", v)
	}
	want := []guard.Abstention{{Decision: guard.Groundedness, Judge: "guardtest.Abstaining", Reason: "quote not found", Cause: guard.CauseAbstained}}
	if !reflect.DeepEqual(r.Abstentions, want) {
		t.Errorf("Abstentions = %+v; want %+v", r.Abstentions, want)
	}
	if p := r.Generation.Groundedness; p.Known || !p.Asked {
		t.Errorf("groundedness = %+v; want asked and unknown", p)
	}
	if r.Diagnosis != guard.JudgeUncertain {
		t.Errorf("Diagnosis = %v; want %v", r.Diagnosis, guard.JudgeUncertain)
	}
}

func TestChunkRelevanceInContextOrder(t *testing.T) {
	ids := []string{"z", "a", "m", "b"}
	// The judge answers in another order, and abstains on "b".
	j := guard.JudgeFunc(func(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
		return []guard.Estimate{
			{Decision: guard.ChunkRelevance, ContextID: "m", P: 0.5},
			guard.Abstain(guard.ChunkRelevance, "b", "unsure"),
			{Decision: guard.ChunkRelevance, ContextID: "z", P: 0.9},
			{Decision: guard.ChunkRelevance, ContextID: "a", P: 0.1},
		}, nil
	})
	g := mustNew(t, guard.WithJudge(j, guard.ChunkRelevance), guard.WithPolicy(testPolicy))
	r, err := g.Evaluate(context.Background(), newSample(false, ids...))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, e := range r.Retrieval.ChunkRelevance {
		keys = append(keys, e.Key)
	}
	if !reflect.DeepEqual(keys, ids) {
		t.Errorf("chunkRelevance keys = %v; want %v", keys, ids)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"chunkRelevance":{"z":0.9,"a":0.1,"m":0.5,"b":null}`,
		`"chunkRelevance":{"z":"pass","a":"fail","m":"uncertain","b":"uncertain"}`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s:\n%s", want, b)
		}
	}
}

func TestEvaluateNoContexts(t *testing.T) {
	g := mustNew(t, guard.WithJudge(healthyJudge()), guard.WithPolicy(testPolicy))
	r, err := g.Evaluate(context.Background(), newSample(false))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"retrieval":{"chunkRelevance":{},`, `"verdicts":{"retrieval":{"chunkRelevance":{},`, `"evidence":[]`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s:\n%s", want, b)
		}
	}
	if r.Diagnosis != guard.RetrievalMiss || r.Route != guard.Auto || r.Confidence != 1 {
		t.Errorf("Diagnose(no contexts) = %v/%v/%v; want %v/%v/1", r.Diagnosis, r.Route, r.Confidence, guard.RetrievalMiss, guard.Auto)
	}
}

func TestEvaluateCollectsEvidenceAndUsage(t *testing.T) {
	ev := func(d guard.Decision, k guard.EvidenceKind) guard.Evidence {
		return guard.Evidence{Decision: d, Kind: k, Detail: string(k)}
	}
	cite := []guard.Citation{{Sentence: guard.Quote{Source: guard.SourceAnswer, Start: 0, End: 4, Text: "Five"}, Support: 1, Supported: true}}
	a := guard.JudgeFunc(func(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
		return []guard.Estimate{
			{Decision: guard.Groundedness, P: 0.9, Evidence: []guard.Evidence{ev(guard.Groundedness, guard.EvidenceSupport)}, Citations: cite,
				Usage: guard.Usage{InputTokens: 10, OutputTokens: 1, Calls: 1}},
			{Decision: guard.Contradiction, P: 0.1, Evidence: []guard.Evidence{ev(guard.Contradiction, guard.EvidenceNegationFlip), ev(guard.Contradiction, guard.EvidenceAntonymFlip)},
				Usage: guard.Usage{InputTokens: 5, Calls: 1, Retries: 2}},
		}, nil
	})
	g := mustNew(t, guard.WithJudge(a, guard.Groundedness, guard.Contradiction))
	r, err := g.Evaluate(context.Background(), newSample(false, "c1"))
	if err != nil {
		t.Fatal(err)
	}
	kinds := []guard.EvidenceKind{}
	for _, e := range r.Evidence {
		kinds = append(kinds, e.Kind)
	}
	if want := []guard.EvidenceKind{guard.EvidenceSupport, guard.EvidenceNegationFlip, guard.EvidenceAntonymFlip}; !reflect.DeepEqual(kinds, want) {
		t.Errorf("Evidence kinds = %v; want %v", kinds, want)
	}
	if !reflect.DeepEqual(r.Citations, cite) {
		t.Errorf("Citations = %+v; want %+v", r.Citations, cite)
	}
	if want := (guard.Usage{InputTokens: 15, OutputTokens: 1, Calls: 2, Retries: 2}); r.Usage != want {
		t.Errorf("Usage = %+v; want %+v", r.Usage, want)
	}
}

func TestEvaluateLatencyUsesClock(t *testing.T) {
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	n := 0
	clock := func() time.Time {
		n++
		return base.Add(time.Duration(n) * 1500 * time.Microsecond)
	}
	g := mustNew(t, guard.WithJudge(healthyJudge()), guard.WithClock(clock))
	r, err := g.Evaluate(context.Background(), newSample(false, "c1"))
	if err != nil {
		t.Fatal(err)
	}
	if r.LatencyMs != 1.5 {
		t.Errorf("LatencyMs = %v; want 1.5 (one tick of the injected clock)", r.LatencyMs)
	}
}

func TestEvaluateInvalidSample(t *testing.T) {
	called := false
	j := guard.JudgeFunc(func(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
		called = true
		return nil, nil
	})
	g := mustNew(t, guard.WithJudge(j), guard.WithLimits(guard.Limits{MaxContexts: 1}))
	r, err := g.Evaluate(context.Background(), newSample(false, "c1", "c2"))
	var se *guard.SampleError
	if !errors.Is(err, guard.ErrInvalidSample) || !errors.As(err, &se) || se.Field != "contexts" {
		t.Errorf("Evaluate(2 contexts, limit 1) error = %v; want a *SampleError for field contexts wrapping ErrInvalidSample", err)
	}
	if errors.Is(err, guard.ErrJudge) {
		t.Errorf("Evaluate(invalid sample) error = %v; want no ErrJudge", err)
	}
	if !reflect.DeepEqual(r, guard.Result{}) {
		t.Errorf("Evaluate(invalid sample) result = %+v; want the zero Result", r)
	}
	if called {
		t.Errorf("Evaluate(invalid sample) called the judge")
	}
}

// Concurrent evaluations share a guard; run with -race.
func TestEvaluateConcurrent(t *testing.T) {
	g := mustNew(t, guard.WithJudge(healthyJudge()), guard.WithJudge(guardtest.Abstaining{}, guard.ContextConflict),
		guard.WithJudge(guardtest.Slow{Delay: time.Millisecond, Then: healthyJudge()}, guard.Groundedness), guard.WithPolicy(testPolicy))
	s := newSample(true, "c1", "c2", "c3")
	want, err := g.Evaluate(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 8 {
		t.Run("", func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			for range 20 {
				r, err := g.Evaluate(ctx, s)
				if err != nil {
					t.Errorf("goroutine %d: Evaluate: %v", i, err)
					return
				}
				r.LatencyMs = want.LatencyMs
				if !reflect.DeepEqual(r, want) {
					t.Errorf("goroutine %d: Evaluate = %+v; want %+v", i, r, want)
					return
				}
			}
		})
	}
}

func BenchmarkEvaluateFixed(b *testing.B) {
	g := mustNew(b, guard.WithJudge(healthyJudge()), guard.WithPolicy(testPolicy))
	s := newSample(false, "c1", "c2", "c3", "c4", "c5")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Evaluate(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEvaluateGoroutine measures a judge that is not Inline under a
// cancellable context: the guard runs it on a goroutine of its own.
func BenchmarkEvaluateGoroutine(b *testing.B) {
	j := healthyJudge()
	g := mustNew(b, guard.WithJudge(guard.JudgeFunc(j.Judge)), guard.WithPolicy(testPolicy))
	s := newSample(false, "c1", "c2", "c3", "c4", "c5")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Evaluate(ctx, s); err != nil {
			b.Fatal(err)
		}
	}
}
