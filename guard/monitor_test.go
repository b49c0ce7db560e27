package guard_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/guardtest"
)

// trip feeds side s of g's promise disagreements until m trips it.
func trip(t *testing.T, m *guard.PromiseMonitor, g *guard.Guard, s guard.Side) {
	t.Helper()
	_, p := g.Monitor()
	for range 100 {
		id := ""
		if s.Decision == guard.ChunkRelevance {
			id = "c1"
		}
		if err := m.Observe(context.Background(), p, []guard.AuditOutcome{outcome(s.Decision, id, s.Verdict, true)}); err != nil {
			t.Fatal(err)
		}
		if m.Broken(p).Has(s.Decision, s.Verdict) {
			return
		}
	}
	t.Fatalf("%v did not trip", s)
}

// TestEvaluateBrokenSideEscalates: once the groundedness pass side trips,
// an answer the judges pass is no longer passed automatically: its
// groundedness verdict is withheld (cause promise_broken), it is
// JUDGE_UNCERTAIN, and groundedness goes to the fallback. Before the trip,
// and after Reset, the same answer passes.
func TestEvaluateBrokenSideEscalates(t *testing.T) {
	ctx := context.Background()
	m := newMonitor(t, guard.PromiseConfig{Alpha: 0.1})
	fb := &recording{judge: guardtest.Fixed{Name: "fb", P: healthy()}, name: "fb"}
	g := mustNew(t, guard.WithJudge(healthyJudge()), guard.WithPolicy(testPolicy), guard.WithMonitor(m),
		guard.WithEscalator(guard.EscalatorFunc(func(ctx context.Context, e guard.Escalation) ([]guard.Estimate, error) {
			return fb.Judge(ctx, e.Request)
		}), testPolicy, guard.FailClosed))
	s := newSample(false, "c1", "c2")

	res, err := g.Evaluate(ctx, s)
	if err != nil || res.Diagnosis != guard.PassDiagnosis || res.Route != guard.Auto || res.Withheld != nil {
		t.Fatalf("before the trip: %v/%v withheld %v, err %v; want PASS/auto", res.Diagnosis, res.Route, res.Withheld, err)
	}

	trip(t, m, g, groundedPass)
	res, err = g.Evaluate(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Diagnosis != guard.PassDiagnosis || res.Route != guard.Fallback || res.Fallback == nil ||
		!slices.Equal(res.Fallback.Decisions, []guard.Decision{guard.Groundedness}) || res.Fallback.Settled != 1 {
		t.Errorf("after the trip: %v/%v fallback %+v; want groundedness settled by the fallback, PASS", res.Diagnosis, res.Route, res.Fallback)
	}
	if c := fb.calls(); len(c) != 1 || !slices.Equal(c[0], []guard.Decision{guard.Groundedness}) {
		t.Errorf("fallback asked %v; want [groundedness] once", c)
	}
	want := []guard.Withheld{{Decision: guard.Groundedness, Verdict: guard.Pass, Cause: guard.CausePromiseBroken,
		Reason: "the promise monitor found the groundedness pass side broken"}}
	if !slices.Equal(res.Withheld, want) {
		t.Errorf("Withheld = %+v; want %+v", res.Withheld, want)
	}
	if !strings.Contains(res.Reason, "promise broken, verdicts withheld: groundedness pass") {
		t.Errorf("Reason = %q; want it to name the withheld side", res.Reason)
	}
	if !errors.Is(res.Withheld[0].Err(), guard.ErrPromiseBroken) || guard.CauseOf(res.Withheld[0].Err()) != guard.CausePromiseBroken {
		t.Errorf("Withheld.Err() = %v; want it to wrap ErrPromiseBroken", res.Withheld[0].Err())
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"withheld":[{"decision":"groundedness","verdict":"pass","cause":"promise_broken","reason":`) {
		t.Errorf("JSON lacks the withheld verdict: %s", b)
	}
	var back guard.Result
	if err := json.Unmarshal(b, &back); err != nil || !slices.Equal(back.Withheld, res.Withheld) {
		t.Errorf("JSON round trip: %+v, %v", back.Withheld, err)
	}

	// Reset: the side decides again.
	if err := m.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if res, _ := g.Evaluate(ctx, s); res.Route != guard.Auto || res.Withheld != nil {
		t.Errorf("after Reset: route %v, withheld %v; want auto, none", res.Route, res.Withheld)
	}
}

// TestEvaluateBrokenSideWithoutFallback: with no fallback the answer goes to
// review; a confident failure on a side that keeps its promise still
// blocks; a broken fail side withholds failures only.
func TestEvaluateBrokenSideWithoutFallback(t *testing.T) {
	ctx := context.Background()
	m := newMonitor(t, guard.PromiseConfig{Alpha: 0.1})
	g := mustNew(t, guard.WithJudge(healthyJudge()), guard.WithPolicy(testPolicy), guard.WithMonitor(m))
	trip(t, m, g, groundedPass)
	res, _ := g.Evaluate(ctx, newSample(false, "c1"))
	if res.Diagnosis != guard.JudgeUncertain || res.Route != guard.RouteReview || res.Action != guard.Review ||
		res.Verdicts.Generation.Groundedness != guard.Uncertain || res.Generation.Groundedness != guard.KnownProb(0.9) {
		t.Errorf("%v/%v/%v groundedness %v (P %v); want JUDGE_UNCERTAIN/review/review, uncertain with P kept",
			res.Diagnosis, res.Route, res.Action, res.Verdicts.Generation.Groundedness, res.Generation.Groundedness)
	}

	// An ungrounded answer's fail verdict is on the side that keeps its
	// promise: it still blocks, withholding nothing.
	bad := healthy()
	bad[guard.Groundedness] = 0.05
	gb := mustNew(t, guard.WithJudge(guardtest.Fixed{Name: "healthy", P: bad}), guard.WithPolicy(testPolicy), guard.WithMonitor(m))
	trip(t, m, gb, groundedPass)
	res, _ = gb.Evaluate(ctx, newSample(false, "c1"))
	if res.Diagnosis != guard.GeneratorUngrounded || res.Action != guard.Block || res.Withheld != nil {
		t.Errorf("ungrounded, pass side broken: %v/%v withheld %v; want GENERATOR_UNGROUNDED/block, none", res.Diagnosis, res.Action, res.Withheld)
	}
	trip(t, m, gb, guard.Side{Decision: guard.Groundedness, Verdict: guard.Fail})
	res, _ = gb.Evaluate(ctx, newSample(false, "c1"))
	if res.Diagnosis != guard.JudgeUncertain || len(res.Withheld) != 1 || res.Withheld[0].Verdict != guard.Fail {
		t.Errorf("ungrounded, fail side broken: %v withheld %+v; want JUDGE_UNCERTAIN, the fail verdict withheld", res.Diagnosis, res.Withheld)
	}
}

// TestEvaluateBrokenChunkSide: chunk relevance is one side for every
// context; each withheld chunk is listed.
func TestEvaluateBrokenChunkSide(t *testing.T) {
	m := newMonitor(t, guard.PromiseConfig{Alpha: 0.1})
	g := mustNew(t, guard.WithJudge(healthyJudge()), guard.WithPolicy(testPolicy), guard.WithMonitor(m))
	trip(t, m, g, guard.Side{Decision: guard.ChunkRelevance, Verdict: guard.Pass})
	res, _ := g.Evaluate(context.Background(), newSample(false, "c1", "c2"))
	var ids []string
	for _, w := range res.Withheld {
		if w.Decision != guard.ChunkRelevance || w.Cause != guard.CausePromiseBroken {
			t.Errorf("withheld %+v", w)
		}
		ids = append(ids, w.ContextID)
	}
	if !slices.Equal(ids, []string{"c1", "c2"}) || res.Diagnosis != guard.JudgeUncertain {
		t.Errorf("withheld chunks %v, %v; want c1, c2 and JUDGE_UNCERTAIN", ids, res.Diagnosis)
	}
}

// TestPromiseIsPerProfile: a guard on another profile (another judge
// version) or another policy has its own promise: a trip of the old one
// does not reach it, while a replica with the same judges and policy
// shares it.
func TestPromiseIsPerProfile(t *testing.T) {
	m := newMonitor(t, guard.PromiseConfig{Alpha: 0.1})
	old := mustNew(t, guard.WithJudge(healthyJudge()), guard.WithPolicy(testPolicy), guard.WithMonitor(m))
	trip(t, m, old, groundedPass)

	same := mustNew(t, guard.WithJudge(healthyJudge()), guard.WithPolicy(testPolicy), guard.WithMonitor(m))
	_, p0 := old.Monitor()
	_, p1 := same.Monitor()
	if p0.Key != p1.Key || len(p0.Judges) != 1 || !strings.HasPrefix(p0.Judges[0], "healthy@") {
		t.Errorf("same judges and policy: keys %q, %q (judges %v); want equal", p0.Key, p1.Key, p0.Judges)
	}
	if res, _ := same.Evaluate(context.Background(), newSample(false, "c1")); res.Withheld == nil {
		t.Error("a guard with the same promise does not see the trip")
	}

	newProfile := &recording{judge: healthyJudge(), name: "healthy"} // version "test"
	other := policyAll(guard.Thresholds{Fail: 0.25, Pass: 0.8})
	for name, g := range map[string]*guard.Guard{
		"new judge version": mustNew(t, guard.WithJudge(newProfile), guard.WithPolicy(testPolicy), guard.WithMonitor(m)),
		"new policy":        mustNew(t, guard.WithJudge(healthyJudge()), guard.WithPolicy(other), guard.WithMonitor(m)),
	} {
		_, p := g.Monitor()
		res, _ := g.Evaluate(context.Background(), newSample(false, "c1"))
		if p.Key == p0.Key || res.Withheld != nil || res.Diagnosis != guard.PassDiagnosis {
			t.Errorf("%s: key %q (old %q), withheld %v, %v; want a new promise, PASS", name, p.Key, p0.Key, res.Withheld, res.Diagnosis)
		}
	}
	if mon, p := mustNew(t).Monitor(); mon != nil || p != nil {
		t.Errorf("a guard without a monitor: %v, %v", mon, p)
	}
}

// TestEvaluateBrokenClaims: in claims mode a broken groundedness side
// withholds each claim's verdict on it, and the claims escalate.
func TestEvaluateBrokenClaims(t *testing.T) {
	m := newMonitor(t, guard.PromiseConfig{Alpha: 0.1})
	g := mustNew(t, guard.WithJudge(healthyJudge()), guard.WithPolicy(testPolicy), guard.WithMonitor(m), guard.WithClaims(splitClaims))
	trip(t, m, g, groundedPass)
	s := newSample(false, "c1")
	s.Answer = "Five business days. No fee applies."
	res, _ := g.Evaluate(context.Background(), s)
	if len(res.Claims) != 2 || res.Diagnosis != guard.JudgeUncertain || len(res.Withheld) != 1 ||
		res.Withheld[0] != (guard.Withheld{Decision: guard.Groundedness, Verdict: guard.Pass, Cause: guard.CausePromiseBroken,
			Reason: "the promise monitor found the groundedness pass side broken"}) {
		t.Fatalf("claims %d, %v, withheld %+v; want 2 claims, JUDGE_UNCERTAIN, groundedness pass withheld", len(res.Claims), res.Diagnosis, res.Withheld)
	}
	for _, c := range res.Claims {
		if c.Verdict != guard.Uncertain {
			t.Errorf("claim %q: %v; want uncertain", c.Text, c.Verdict)
		}
	}
}

// TestTeachFeedsMonitor: the whole loop inside the guard. Audit draws of
// answers the embedded judges pass go to a teacher that finds them
// ungrounded; Teach reports the outcomes, the groundedness pass side
// trips, and from then on Evaluate escalates such answers instead of
// passing them. The other sides, on which the teacher agrees, keep
// deciding.
func TestTeachFeedsMonitor(t *testing.T) {
	ctx := context.Background()
	m := newMonitor(t, guard.PromiseConfig{Alpha: 0.1})
	disagree := healthy()
	disagree[guard.Groundedness] = 0.05
	teacher := guardtest.Fixed{Name: "teacher", P: disagree}
	g := mustNew(t, guard.WithJudge(healthyJudge()), guard.WithPolicy(testPolicy), guard.WithMonitor(m),
		guard.WithDraws(guard.Draws{Audit: 1, Seed: 1}),
		guard.WithEscalator(guard.EscalatorFunc(func(ctx context.Context, e guard.Escalation) ([]guard.Estimate, error) {
			return teacher.Judge(ctx, e.Request)
		}), testPolicy, guard.FailClosed))
	tripped := 0
	for i := range 10 {
		s := newSample(false, "c1")
		s.ID = fmt.Sprint("row", i)
		res, err := g.Evaluate(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		if res.Withheld != nil {
			tripped = i
			// The withheld side escalates; the other sides, decided alone,
			// are still audited, never the escalated one.
			if res.Route != guard.Fallback || res.Draw == nil || !res.Draw.Drawn {
				t.Errorf("row %d: route %v, draw %+v; want the fallback and an audit of the other sides", i, res.Route, res.Draw)
			}
			if err := g.Teach(ctx, &s, &res); err != nil {
				t.Fatal(err)
			}
			for _, o := range guard.AuditOutcomes(&res) {
				if o.Decision == guard.Groundedness {
					t.Errorf("row %d: audit outcome %+v of the withheld, escalated side", i, o)
				}
			}
			break
		}
		if res.Route != guard.Auto || res.Draw == nil || !res.Draw.Drawn || res.Draw.Kind != guard.DrawAudit {
			t.Fatalf("row %d: route %v, draw %+v; want an audit draw of an auto pass", i, res.Route, res.Draw)
		}
		if err := g.Teach(ctx, &s, &res); err != nil {
			t.Fatal(err)
		}
	}
	trips := m.Trips()
	if tripped == 0 || len(trips) != 1 || trips[0].Side != groundedPass || trips[0].Audits != int64(tripped) {
		t.Fatalf("tripped at row %d, trips %+v; want groundedness/pass after as many audits as rows before it", tripped, trips)
	}
	_, p := g.Monitor()
	for _, st := range m.State(p) {
		if st.Side != groundedPass && (st.Tripped || st.Disagreements != 0) {
			t.Errorf("side %v: %+v; want it untouched (the teacher agrees)", st.Side, st)
		}
	}
}

// A result's log line names the withheld sides and the cause, without text.
func TestWithheldLogValue(t *testing.T) {
	m := newMonitor(t, guard.PromiseConfig{Alpha: 0.1})
	g := mustNew(t, guard.WithJudge(healthyJudge()), guard.WithPolicy(testPolicy), guard.WithMonitor(m))
	trip(t, m, g, groundedPass)
	res, _ := g.Evaluate(context.Background(), newSample(false, "c1"))
	var buf strings.Builder
	slog.New(slog.NewTextHandler(&buf, nil)).Info("judged", "result", res)
	if s := buf.String(); !strings.Contains(s, "result.withheld=groundedness/pass") || !strings.Contains(s, "result.cause=promise_broken") {
		t.Errorf("log = %s; want the withheld side and the cause", s)
	}
}

// Explore draws teach but do not feed the monitor: they are not audits of
// the automatic verdicts (the contract reports audit draws only).
func TestExploreDrawsDoNotFeedMonitor(t *testing.T) {
	ctx := context.Background()
	m := newMonitor(t, guard.PromiseConfig{Alpha: 0.1})
	disagree := healthy()
	disagree[guard.Groundedness] = 0.05
	teacher := guardtest.Fixed{Name: "teacher", P: disagree}
	g := mustNew(t, guard.WithJudge(healthyJudge()), guard.WithPolicy(testPolicy), guard.WithMonitor(m),
		guard.WithDraws(guard.Draws{Explore: 1, Seed: 1}),
		guard.WithEscalator(guard.EscalatorFunc(func(ctx context.Context, e guard.Escalation) ([]guard.Estimate, error) {
			return teacher.Judge(ctx, e.Request)
		}), testPolicy, guard.FailClosed))
	for i := range 10 {
		s := newSample(false, "c1")
		s.ID = fmt.Sprint("row", i)
		res, _ := g.Evaluate(ctx, s)
		if res.Draw == nil || res.Draw.Kind != guard.DrawExplore || !res.Draw.Drawn {
			t.Fatalf("row %d: draw %+v; want an explore draw", i, res.Draw)
		}
		if err := g.Teach(ctx, &s, &res); err != nil {
			t.Fatal(err)
		}
	}
	_, p := g.Monitor()
	if len(m.Trips()) != 0 || len(m.State(p)) != 0 {
		t.Errorf("trips %v, state %v; want the monitor untouched by explore draws", m.Trips(), m.State(p))
	}
}

// TestFleetReplicaStartsTripped: a replica built after another tripped a
// side learns of it from the store with Sync before its first Evaluate,
// and a fresh replica's Reset reaches the store: New registers the
// guard's promise with its monitor. (Before, a monitor knew a promise only
// from its first Evaluate: Sync and Reset at start did nothing, and the
// first answers were decided on the tripped side.)
func TestFleetReplicaStartsTripped(t *testing.T) {
	ctx := context.Background()
	s := &flakyStore{}
	opts := func(m *guard.PromiseMonitor) []guard.Option {
		return []guard.Option{guard.WithJudge(healthyJudge()), guard.WithPolicy(testPolicy), guard.WithMonitor(m)}
	}
	ma := newMonitor(t, guard.PromiseConfig{Alpha: 0.1, Store: s})
	ga := mustNew(t, opts(ma)...)
	trip(t, ma, ga, groundedPass)

	mb := newMonitor(t, guard.PromiseConfig{Alpha: 0.1, Store: s})
	gb := mustNew(t, opts(mb)...)
	if err := mb.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	res, _ := gb.Evaluate(ctx, newSample(false, "c1"))
	if len(res.Withheld) != 1 || res.Withheld[0].Verdict != guard.Pass || res.Route == guard.Auto {
		t.Errorf("new replica after Sync: route %v withheld %+v; want the groundedness pass verdict withheld", res.Route, res.Withheld)
	}

	mc := newMonitor(t, guard.PromiseConfig{Alpha: 0.1, Store: s})
	mustNew(t, opts(mc)...)
	if err := mc.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if err := ma.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if _, p := ga.Monitor(); ma.Broken(p) != 0 {
		t.Errorf("after a fresh replica's Reset, the first replica still has %v broken", ma.Broken(p))
	}
}
