package guard_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/guard/guardtest"
)

// featureJudge is a Fixed judge that puts a feature vector on each estimate.
type featureJudge struct {
	guardtest.Fixed
	version string
}

func (f featureJudge) Judge(ctx context.Context, req guard.Request) ([]guard.Estimate, error) {
	out, err := f.Fixed.Judge(ctx, req)
	for i := range out {
		out[i].Features = []float64{float64(out[i].Decision), 0.5}
	}
	return out, err
}

func (f featureJudge) FeaturesVersion() string { return f.version }

func (f featureJudge) Inline() bool { return true }

func TestResultFeatures(t *testing.T) {
	j := featureJudge{Fixed: healthyJudge(), version: "test-features/1"}
	g := mustNew(t, guard.WithJudge(j), guard.WithPolicy(testPolicy))
	res, err := g.Evaluate(context.Background(), newSample(false, "c1", "c2"))
	if err != nil {
		t.Fatal(err)
	}
	f := res.Features
	if f == nil || f.Version != "test-features/1" {
		t.Fatalf("Features = %+v; want version test-features/1", f)
	}
	// Two chunks and five other decisions (no reference).
	if len(f.Vectors) != 7 {
		t.Fatalf("%d vectors; want 7: %+v", len(f.Vectors), f.Vectors)
	}
	if x := f.Vector(guard.ChunkRelevance, "c2"); !slices.Equal(x, []float64{float64(guard.ChunkRelevance), 0.5}) {
		t.Errorf("chunk c2 vector %v", x)
	}
	if x := f.Vector(guard.Groundedness, ""); !slices.Equal(x, []float64{float64(guard.Groundedness), 0.5}) {
		t.Errorf("groundedness vector %v", x)
	}
	b, _ := json.Marshal(res)
	var back guard.Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Features == nil || len(back.Features.Vectors) != 7 || back.Features.Vectors[0].Decision != guard.ChunkRelevance || back.Features.Vectors[0].ContextID != "c1" {
		t.Errorf("features after a JSON round trip: %+v", back.Features)
	}

	// A judge that gives no features: no Features.
	g = mustNew(t, guard.WithJudge(healthyJudge()), guard.WithPolicy(testPolicy))
	res, _ = g.Evaluate(context.Background(), newSample(false, "c1"))
	if res.Features != nil {
		t.Errorf("Features = %+v from a judge that gives none", res.Features)
	}
}

func TestWithDrawsValidates(t *testing.T) {
	for _, d := range []guard.Draws{{Explore: -0.1}, {Audit: 1.5}, {Explore: math.NaN()}} {
		if _, err := guard.New(guard.WithDraws(d)); err == nil || !strings.Contains(err.Error(), "not in [0, 1]") {
			t.Errorf("WithDraws(%+v) accepted", d)
		}
	}
	// Zero rates configure nothing (and need no escalator).
	g := mustNew(t, guard.WithJudge(healthyJudge()), guard.WithPolicy(testPolicy), guard.WithDraws(guard.Draws{Seed: 3}))
	res, _ := g.Evaluate(context.Background(), newSample(false, "c1"))
	if res.Draw != nil {
		t.Errorf("Draw = %+v with zero rates", res.Draw)
	}
}

// TestDrawsUniformAndDeterministic checks by seeded simulation that an
// explore draw at rate r draws about r of the samples, and the same ones
// again for the same seed and IDs.
func TestDrawsUniformAndDeterministic(t *testing.T) {
	const n, rate = 4000, 0.2
	newG := func(seed uint64) *guard.Guard {
		return mustNew(t, guard.WithJudge(healthyJudge()), guard.WithPolicy(testPolicy),
			guard.WithEscalator(&escalator{judge: healthyJudge()}, testPolicy, guard.FailClosed),
			guard.WithDraws(guard.Draws{Explore: rate, Seed: seed}))
	}
	run := func(g *guard.Guard) []bool {
		out := make([]bool, n)
		for i := range n {
			s := newSample(false, "c1")
			s.ID = fmt.Sprintf("row-%d", i)
			res, err := g.Evaluate(context.Background(), s)
			if err != nil {
				t.Fatal(err)
			}
			d := res.Draw
			if d == nil || d.Kind != guard.DrawExplore || d.Rate != rate || d.Inclusion != rate || d.Seed != 7 && d.Seed != 8 {
				t.Fatalf("Draw = %+v", d)
			}
			out[i] = d.Drawn
		}
		return out
	}
	a, b, c := run(newG(7)), run(newG(7)), run(newG(8))
	if !slices.Equal(a, b) {
		t.Error("the same seed and IDs drew other samples")
	}
	if slices.Equal(a, c) {
		t.Error("another seed drew the same samples")
	}
	k := 0
	for _, x := range a {
		if x {
			k++
		}
	}
	// Binomial(4000, 0.2): sd ≈ 25.3; allow 4 sd.
	if sd := math.Sqrt(n * rate * (1 - rate)); math.Abs(float64(k)-n*rate) > 4*sd {
		t.Errorf("%d of %d drawn at rate %v", k, n, rate)
	}
	if st := newG(7).TeachStats(); st.Drawn != 0 {
		t.Errorf("fresh guard TeachStats = %+v", st)
	}
	// Without an ID the draw reads the texts.
	s1, s2 := newSample(false, "c1"), newSample(false, "c1")
	s1.ID, s2.ID = "", ""
	if guard.DrawUniform(1, &s1) != guard.DrawUniform(1, &s2) {
		t.Error("the same texts gave different draws")
	}
	s2.Answer += "!"
	if guard.DrawUniform(1, &s1) == guard.DrawUniform(1, &s2) {
		t.Error("other texts gave the same draw")
	}
}

func TestAuditDrawsOnlyDecidedAlone(t *testing.T) {
	fb := &escalator{judge: guardtest.Fixed{Name: "llm", Default: 0.95}}
	alone := mustNew(t, guard.WithJudge(healthyJudge()), guard.WithPolicy(testPolicy),
		guard.WithEscalator(fb, testPolicy, guard.FailClosed), guard.WithDraws(guard.Draws{Audit: 1}))
	res, _ := alone.Evaluate(context.Background(), newSample(false, "c1"))
	if d := res.Draw; res.Route != guard.Auto || d == nil || d.Kind != guard.DrawAudit || !d.Drawn || d.Inclusion != 1 {
		t.Errorf("decided alone: route %v, Draw %+v; want an audit draw", res.Route, d)
	}
	// Groundedness escalated, the other decisions decided alone: audited
	// (those decisions are what the audit checks).
	escalated := mustNew(t, guard.WithJudge(uncertainGroundedness()), guard.WithPolicy(testPolicy),
		guard.WithEscalator(fb, testPolicy, guard.FailClosed), guard.WithDraws(guard.Draws{Audit: 1}))
	es := newSample(false, "c1")
	res, _ = escalated.Evaluate(context.Background(), es)
	if d := res.Draw; res.Route != guard.Fallback || d == nil || !d.Drawn || d.Inclusion != 1 || d.Kind != guard.DrawAudit {
		t.Errorf("partly escalated: route %v, Draw %+v; want an audit draw, inclusion 1", res.Route, d)
	}
	if err := escalated.Teach(context.Background(), &es, &res); err != nil {
		t.Fatal(err)
	}
	outs := guard.AuditOutcomes(&res)
	if len(outs) == 0 {
		t.Error("no audit outcome for the decisions decided alone")
	}
	for _, o := range outs {
		if o.Decision == guard.Groundedness {
			t.Errorf("audit outcome %+v of the escalated decision", o)
		}
	}
	// Nothing decided alone: not eligible.
	unsure := mustNew(t, guard.WithJudge(guardtest.Fixed{Name: "unsure", Default: 0.5}), guard.WithPolicy(testPolicy),
		guard.WithEscalator(fb, testPolicy, guard.FailClosed), guard.WithDraws(guard.Draws{Audit: 1}))
	res, _ = unsure.Evaluate(context.Background(), newSample(false, "c1"))
	if d := res.Draw; d == nil || d.Drawn || d.Inclusion != 0 || d.Kind != guard.DrawAudit {
		t.Errorf("nothing decided alone: route %v, Draw %+v; want an audit draw not drawn, inclusion 0", res.Route, d)
	}
	// Both rates: an answer with nothing decided alone is explored; one
	// with a side decided alone is an audit even when Explore is the larger
	// rate (the monitor must see it), drawn with the larger rate.
	both := mustNew(t, guard.WithJudge(guardtest.Fixed{Name: "unsure", Default: 0.5}), guard.WithPolicy(testPolicy),
		guard.WithEscalator(fb, testPolicy, guard.FailClosed), guard.WithDraws(guard.Draws{Audit: 1, Explore: 1}))
	res, _ = both.Evaluate(context.Background(), newSample(false, "c1"))
	if d := res.Draw; d == nil || d.Kind != guard.DrawExplore || !d.Drawn {
		t.Errorf("nothing decided alone, explore 1: Draw %+v", d)
	}
	larger := mustNew(t, guard.WithJudge(uncertainGroundedness()), guard.WithPolicy(testPolicy),
		guard.WithEscalator(fb, testPolicy, guard.FailClosed), guard.WithDraws(guard.Draws{Audit: 0.2, Explore: 0.7}))
	res, _ = larger.Evaluate(context.Background(), newSample(false, "c1"))
	if d := res.Draw; d == nil || d.Kind != guard.DrawAudit || d.Rate != 0.2 || d.Inclusion != 0.7 {
		t.Errorf("partly decided alone, audit 0.2, explore 0.7: Draw %+v; want an audit at inclusion 0.7", d)
	}
}

// withoutTeacher is res's JSON form without its teacher.
func withoutTeacher(t *testing.T, res guard.Result) string {
	t.Helper()
	res.Teacher = nil
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestTeachExplore(t *testing.T) {
	// The teacher says groundedness is false and everything else healthy;
	// the embedded judges passed everything.
	p := healthy()
	p[guard.Groundedness] = 0.05
	fb := &escalator{judge: guardtest.Fixed{Name: "llm", P: p}}
	g := mustNew(t, guard.WithJudge(healthyJudge()), guard.WithPolicy(testPolicy),
		guard.WithEscalator(fb, testPolicy, guard.FailClosed), guard.WithDraws(guard.Draws{Explore: 1, Seed: 1}))
	s := newSample(true, "c1", "c2")
	res, err := g.Evaluate(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if len(fb.asked) != 0 {
		t.Fatalf("Evaluate asked the teacher: %+v", fb.asked)
	}
	before := withoutTeacher(t, res)
	if err := g.Teach(context.Background(), &s, &res); err != nil {
		t.Fatal(err)
	}
	if after := withoutTeacher(t, res); after != before {
		t.Errorf("Teach changed the result:\nbefore %s\nafter  %s", before, after)
	}
	if res.Diagnosis != guard.PassDiagnosis || res.Action != guard.Allow || res.Fallback != nil {
		t.Errorf("result %v %v fallback %+v; want PASS allow, no fallback", res.Diagnosis, res.Action, res.Fallback)
	}
	tc := res.Teacher
	if tc == nil {
		t.Fatal("no teacher")
	}
	if len(fb.asked) != 1 {
		t.Fatalf("teacher asked %d times; want 1", len(fb.asked))
	}
	esc := fb.asked[0]
	if want := guard.Decisions; !slices.Equal(esc.Decisions, want) || !slices.Equal(esc.ContextIDs, []string{"c1", "c2"}) {
		t.Errorf("teacher asked %v on %v; want every decision on c1, c2", esc.Decisions, esc.ContextIDs)
	}
	if tc.Judge != "fallback" || tc.Cause != "" || tc.FromPrimary || len(tc.Estimates) != 8 {
		t.Errorf("teacher %+v", tc)
	}
	if tc.Verdicts.Generation.Groundedness != guard.Fail || tc.Verdicts.Generation.AnswerRelevance != guard.Pass ||
		tc.Verdicts.Generation.Correctness == nil || *tc.Verdicts.Generation.Correctness != guard.Pass {
		t.Errorf("teacher verdicts %+v", tc.Verdicts)
	}
	if v, _ := tc.Verdicts.Retrieval.ChunkRelevance.Get("c2"); v != guard.Pass {
		t.Errorf("teacher chunk c2 verdict %v", v)
	}
	if res.Verdicts.Generation.Groundedness != guard.Pass {
		t.Error("the result's own groundedness verdict changed")
	}
	// Teaching again asks nothing.
	if err := g.Teach(context.Background(), &s, &res); err != nil || len(fb.asked) != 1 {
		t.Errorf("second Teach: %v, %d calls", err, len(fb.asked))
	}
	st := g.TeachStats()
	if st.Drawn != 1 || st.Taught != 1 || st.Answered != 1 || st.AuditSides != 0 {
		t.Errorf("TeachStats = %+v", st)
	}
	// JSON round trip keeps the teacher.
	b, _ := json.Marshal(res)
	var back guard.Result
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Teacher == nil || back.Teacher.Verdicts.Generation.Groundedness != guard.Fail || back.Draw == nil || !back.Draw.Drawn {
		t.Errorf("after a JSON round trip: teacher %+v draw %+v", back.Teacher, back.Draw)
	}
}

func TestTeachAuditOutcomes(t *testing.T) {
	p := healthy()
	p[guard.Groundedness] = 0.05 // disagrees with the embedded pass
	p[guard.Contradiction] = 0.5 // uncertain under the fallback policy: not compared
	fb := &escalator{judge: guardtest.Fixed{Name: "llm", P: p}}
	g := mustNew(t, guard.WithJudge(healthyJudge()), guard.WithPolicy(testPolicy),
		guard.WithEscalator(fb, testPolicy, guard.FailClosed), guard.WithDraws(guard.Draws{Audit: 1}))
	s := newSample(false, "c1")
	res, _ := g.Evaluate(context.Background(), s)
	if err := g.Teach(context.Background(), &s, &res); err != nil {
		t.Fatal(err)
	}
	outs := guard.AuditOutcomes(&res)
	// c1, sufficiency, conflict, answer relevance, groundedness.
	if len(outs) != 5 {
		t.Fatalf("AuditOutcomes = %+v; want 5 sides", outs)
	}
	var dis []guard.Decision
	for _, o := range outs {
		if o.Disagree {
			dis = append(dis, o.Decision)
		}
		if o.Decision == guard.Contradiction {
			t.Errorf("an uncertain teacher verdict was compared: %+v", o)
		}
	}
	if !slices.Equal(dis, []guard.Decision{guard.Groundedness}) {
		t.Errorf("disagreements on %v; want groundedness", dis)
	}
	if st := g.TeachStats(); st.AuditSides != 5 || st.Disagreements != 1 {
		t.Errorf("TeachStats = %+v", st)
	}
}

func TestTeachRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		esc  guard.EscalatorFunc
		want guard.Cause
	}{
		{"budget abstention", func(_ context.Context, esc guard.Escalation) ([]guard.Estimate, error) {
			var out []guard.Estimate
			for _, d := range esc.Decisions {
				if d == guard.ChunkRelevance {
					for _, id := range esc.ContextIDs {
						out = append(out, guard.Estimate{Decision: d, ContextID: id, Abstained: true, Cause: guard.CauseBudget, Reason: "budget spent"})
					}
					continue
				}
				out = append(out, guard.Estimate{Decision: d, Abstained: true, Cause: guard.CauseBudget, Reason: "budget spent"})
			}
			return out, nil
		}, guard.CauseBudget},
		{"breaker error", func(context.Context, guard.Escalation) ([]guard.Estimate, error) {
			return nil, fmt.Errorf("open: %w", guard.ErrFallbackBreakerOpen)
		}, guard.CauseBreakerOpen},
	} {
		t.Run(tc.name, func(t *testing.T) {
			calls := 0
			esc := guard.EscalatorFunc(func(ctx context.Context, e guard.Escalation) ([]guard.Estimate, error) {
				calls++
				return tc.esc(ctx, e)
			})
			g := mustNew(t, guard.WithJudge(healthyJudge()), guard.WithPolicy(testPolicy),
				guard.WithEscalator(esc, testPolicy, guard.FailClosed), guard.WithDraws(guard.Draws{Explore: 1}))
			s := newSample(false, "c1")
			res, _ := g.Evaluate(context.Background(), s)
			before := withoutTeacher(t, res)
			if err := g.Teach(context.Background(), &s, &res); err != nil {
				t.Fatal(err)
			}
			if withoutTeacher(t, res) != before {
				t.Error("a refused Teach changed the result")
			}
			tr := res.Teacher
			if tr == nil || tr.Cause != tc.want || !tr.Refused() {
				t.Fatalf("teacher %+v; want cause %v, refused", tr, tc.want)
			}
			if tr.Verdicts.Generation.Groundedness != guard.Uncertain {
				t.Errorf("refused teacher verdict %v", tr.Verdicts.Generation.Groundedness)
			}
			st := g.TeachStats()
			if st.Taught != 1 || st.Answered != 0 || st.ByCause[tc.want] != 1 || st.Refused() != 1 {
				t.Errorf("TeachStats = %+v", st)
			}
			// Never retried.
			g.Teach(context.Background(), &s, &res)
			if calls != 1 {
				t.Errorf("escalator called %d times; want 1", calls)
			}
		})
	}
}

func TestTeachFromPrimary(t *testing.T) {
	// A teacher that reads the primary judge for some decisions names it on
	// those estimates: they are no labels.
	primary := healthyJudge()
	esc := guard.EscalatorFunc(func(ctx context.Context, e guard.Escalation) ([]guard.Estimate, error) {
		out, err := primary.Judge(ctx, e.Request)
		for i := range out {
			if out[i].Decision == guard.Groundedness {
				out[i].Judge = "healthy"
			}
		}
		return out, err
	})
	g := mustNew(t, guard.WithJudge(primary), guard.WithPolicy(testPolicy),
		guard.WithEscalator(esc, testPolicy, guard.FailClosed), guard.WithDraws(guard.Draws{Explore: 1}))
	s := newSample(false, "c1")
	res, _ := g.Evaluate(context.Background(), s)
	if err := g.Teach(context.Background(), &s, &res); err != nil {
		t.Fatal(err)
	}
	tr := res.Teacher
	if !tr.FromPrimary || tr.Verdicts.Generation.Groundedness != guard.Uncertain || tr.Verdicts.Generation.AnswerRelevance != guard.Pass {
		t.Errorf("teacher %+v; want fromPrimary, groundedness uncertain, relevance pass", tr)
	}
}

func TestTeachWithoutEscalatorOrDraw(t *testing.T) {
	if _, err := guard.New(guard.WithJudge(healthyJudge()), guard.WithDraws(guard.Draws{Explore: 1})); err == nil || !strings.Contains(err.Error(), "WithEscalator") {
		t.Errorf("WithDraws without an escalator: %v", err)
	}
	fb := &escalator{judge: healthyJudge()}
	drawer := mustNew(t, guard.WithJudge(healthyJudge()), guard.WithPolicy(testPolicy),
		guard.WithEscalator(fb, testPolicy, guard.FailClosed), guard.WithDraws(guard.Draws{Explore: 1}))
	s := newSample(false, "c1")
	res, _ := drawer.Evaluate(context.Background(), s)
	// A result drawn by one guard, taught by a guard without escalator.
	g := mustNew(t, guard.WithJudge(healthyJudge()), guard.WithPolicy(testPolicy))
	if err := g.Teach(context.Background(), &s, &res); !errors.Is(err, guard.ErrNoTeacher) {
		t.Errorf("Teach without escalator: %v; want ErrNoTeacher", err)
	}
	// Not drawn: nothing to do.
	res.Draw.Drawn = false
	if err := g.Teach(context.Background(), &s, &res); err != nil || res.Teacher != nil {
		t.Errorf("Teach of an undrawn result: %v, %+v", err, res.Teacher)
	}
	if err := g.Teach(context.Background(), nil, &res); err == nil {
		t.Error("nil sample accepted")
	}
}

func TestTeachAbstentionIsNoCause(t *testing.T) {
	// A teacher that cannot tell on a decision is not refused: its
	// estimate says so, its verdict is uncertain, and the draw counts as
	// answered.
	esc := guard.EscalatorFunc(func(ctx context.Context, e guard.Escalation) ([]guard.Estimate, error) {
		out, err := healthyJudge().Judge(ctx, e.Request)
		for i := range out {
			if out[i].Decision == guard.Groundedness {
				out[i] = guard.Abstain(guard.Groundedness, "", "no label")
			}
		}
		return out, err
	})
	g := mustNew(t, guard.WithJudge(healthyJudge()), guard.WithPolicy(testPolicy),
		guard.WithEscalator(esc, testPolicy, guard.FailClosed), guard.WithDraws(guard.Draws{Explore: 1}))
	s := newSample(false, "c1")
	res, _ := g.Evaluate(context.Background(), s)
	if err := g.Teach(context.Background(), &s, &res); err != nil {
		t.Fatal(err)
	}
	tr := res.Teacher
	if tr.Cause != "" || tr.Verdicts.Generation.Groundedness != guard.Uncertain || tr.Verdicts.Generation.AnswerRelevance != guard.Pass {
		t.Errorf("teacher %+v", tr)
	}
	i := slices.IndexFunc(tr.Estimates, func(e guard.Estimate) bool { return e.Decision == guard.Groundedness })
	if i < 0 || !tr.Estimates[i].Abstained || tr.Estimates[i].Cause != guard.CauseFallbackAbstained {
		t.Errorf("groundedness estimate %+v", tr.Estimates)
	}
	if st := g.TeachStats(); st.Answered != 1 || len(st.ByCause) != 0 {
		t.Errorf("TeachStats = %+v", st)
	}
}
