package cascade_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/guard"
)

func TestShareConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		l    cascade.Limits
		want string
	}{
		{cascade.Limits{Share: 1.5, ShareWindow: 100}, "want a fraction in (0, 1]"},
		{cascade.Limits{Share: -0.1, ShareWindow: 100}, "want a fraction in (0, 1]"},
		{cascade.Limits{Share: math.NaN(), ShareWindow: 100}, "want a fraction in (0, 1]"},
		{cascade.Limits{Share: 0.2}, "set ShareWindow"},
		{cascade.Limits{Share: 0.2, ShareWindow: -3}, "set ShareWindow"},
		{cascade.Limits{ShareWindow: 100}, "set Share"},
		{cascade.Limits{Share: 0.2, ShareWindow: 100, ShareUniform: 1}, "ShareUniform 1"},
	} {
		_, err := cascade.New(&fake{P: 0.9}, cascade.WithLimits(tc.l))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New with %+v: %v; want an error saying %q", tc.l, err, tc.want)
		}
		if _, err := (cascade.Config{Limits: tc.l}).Effective(); err == nil {
			t.Errorf("Config.Effective with %+v: no error", tc.l)
		}
	}
}

func TestRisk(t *testing.T) {
	est := func(d guard.Decision, p float64) guard.Estimate { return guard.Estimate{Decision: d, P: p} }
	esc := guard.Escalation{Request: guard.Request{Decisions: []guard.Decision{guard.Groundedness, guard.Contradiction, guard.ContextSufficiency}},
		Primary: []guard.Estimate{est(guard.Groundedness, 0.8), est(guard.Contradiction, 0.1), est(guard.ContextSufficiency, 0.5)}}
	if got, want := cascade.Risk(&esc), 1-0.8; math.Abs(got-want) > 1e-12 {
		t.Errorf("Risk with groundedness escalated = %v; want %v (groundedness alone)", got, want)
	}
	esc.Primary[0].Abstained = true
	if got := cascade.Risk(&esc); got != 0.5 {
		t.Errorf("Risk with an abstained groundedness = %v; want 0.5", got)
	}
	esc.Decisions = esc.Decisions[1:]
	if got, want := cascade.Risk(&esc), 1-0.9*0.5; math.Abs(got-want) > 1e-12 {
		t.Errorf("Risk without groundedness under PassAll = %v; want %v", got, want)
	}
	esc.PassRule = guard.PassWaiveSufficiency
	if got, want := cascade.Risk(&esc), 1-0.9; math.Abs(got-want) > 1e-12 {
		t.Errorf("Risk without groundedness, sufficiency waived = %v; want %v", got, want)
	}
}

// shareRun escalates n answers whose groundedness P is drawn from rng and
// returns, per answer, the primary P, whether the fallback was asked and the
// inclusion probability on its estimates.
func shareRun(t *testing.T, l cascade.Limits, n int, seed uint64) (ps []float64, admitted []bool, pis []float64) {
	t.Helper()
	fb := &fake{P: 0.9}
	c, err := cascade.New(fb, cascade.WithLimits(l), cascade.WithCacheSize(cascade.CacheOff))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	rng := rand.New(rand.NewPCG(seed, 1))
	for i := range n {
		p := rng.Float64()
		esc := escalation(sample(i))
		esc.Primary = []guard.Estimate{{Decision: guard.Groundedness, P: p}}
		before := fb.Calls()
		out := mustEscalate(t, c, context.Background(), esc)
		asked := fb.Calls() > before
		if out[0].Inclusion <= 0 || out[0].Inclusion > 1 {
			t.Fatalf("answer %d: inclusion %v; want a probability in (0, 1]", i, out[0].Inclusion)
		}
		if !asked {
			if out[0].Cause != guard.CauseShare || !errors.Is(out[0].Err(), guard.ErrFallbackShare) || !out[0].Abstained {
				t.Fatalf("answer %d refused: %+v; want an abstention with cause share", i, out[0])
			}
		}
		ps, admitted, pis = append(ps, p), append(admitted, asked), append(pis, out[0].Inclusion)
	}
	st := c.Stats()
	ss := c.ShareStats()
	if int(ss.Top+ss.Drawn+ss.Refused) != n || st.RefusedShare != ss.Refused || st.Abstained != st.RefusedShare {
		t.Errorf("share stats %+v, stats %+v: do not add up to %d escalations", ss, st, n)
	}
	if st.Requested != st.CacheHits+st.CacheMisses || st.CacheMisses != st.Settled+st.Abstained {
		t.Errorf("stats do not add up: %+v", st)
	}
	return ps, admitted, pis
}

// The share admits about Share of the escalations, the riskiest by rank
// (inclusion 1) and a uniform draw of the rest (its known probability).
func TestShareAdmitsTheRiskiest(t *testing.T) {
	l := cascade.Limits{Share: 0.2, ShareWindow: 500, ShareSeed: 7}
	const n = 5000
	ps, admitted, pis := shareRun(t, l, n, 1)
	calls, lowRiskAsked, lowRisk, highRiskAsked, highRisk := 0, 0, 0, 0, 0
	top := 0.2 * (1 - cascade.DefaultShareUniform)
	u := (0.2 - top) / (1 - top)
	for i := range n {
		if admitted[i] {
			calls++
		}
		if i < 32 {
			if pis[i] != 0.2 {
				t.Errorf("warm-up answer %d: inclusion %v; want the share 0.2", i, pis[i])
			}
			continue
		}
		if pis[i] != 1 && math.Abs(pis[i]-u) > 1e-12 {
			t.Errorf("answer %d: inclusion %v; want 1 or %v", i, pis[i], u)
		}
		if pis[i] == 1 && !admitted[i] {
			t.Errorf("answer %d: inclusion 1 but refused", i)
		}
		switch {
		case ps[i] < top*0.8: // risk 1 − p well inside the top part
			highRisk++
			if admitted[i] {
				highRiskAsked++
			}
		case ps[i] > 0.5:
			lowRisk++
			if admitted[i] {
				lowRiskAsked++
			}
		}
	}
	if share := float64(calls) / n; share < 0.18 || share > 0.22 {
		t.Errorf("%d of %d escalations admitted (%.3f); want about 0.2", calls, n, share)
	}
	if r := float64(highRiskAsked) / float64(highRisk); r < 0.9 {
		t.Errorf("only %d of %d of the riskiest answers admitted", highRiskAsked, highRisk)
	}
	if r := float64(lowRiskAsked) / float64(lowRisk); math.Abs(r-u) > 0.02 {
		t.Errorf("%d of %d low-risk answers admitted (%.4f); want the uniform draw's %.4f", lowRiskAsked, lowRisk, r, u)
	}
}

// A window of rising risks would put every answer above the quantile; the
// part admitted by rank stays within ⌈Top × ShareWindow⌉ per window.
func TestShareTopPartIsBounded(t *testing.T) {
	l := cascade.Limits{Share: 0.2, ShareWindow: 100, ShareSeed: 3}
	c, err := cascade.New(&fake{P: 0.9}, cascade.WithLimits(l), cascade.WithCacheSize(cascade.CacheOff))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	for i := range 1000 {
		esc := escalation(sample(i))
		esc.Primary = []guard.Estimate{{Decision: guard.Groundedness, P: 1 - float64(i)/1000}}
		mustEscalate(t, c, context.Background(), esc)
	}
	if ss := c.ShareStats(); ss.Top > 18*10 {
		t.Errorf("%d admitted by rank over 1000 rising risks; want at most 18 per window of 100", ss.Top)
	}
}

// The same seed and order admit the same escalations; another seed draws
// others.
func TestShareDeterministic(t *testing.T) {
	l := cascade.Limits{Share: 0.2, ShareWindow: 200, ShareSeed: 42}
	_, a, _ := shareRun(t, l, 600, 5)
	_, b, _ := shareRun(t, l, 600, 5)
	l.ShareSeed = 43
	_, c, _ := shareRun(t, l, 600, 5)
	same, diff := true, false
	for i := range a {
		same = same && a[i] == b[i]
		diff = diff || a[i] != c[i]
	}
	if !same || !diff {
		t.Errorf("same seed same admissions: %v; another seed other admissions: %v", same, diff)
	}
}

// Share 1 admits everything with inclusion 1.
func TestShareOne(t *testing.T) {
	_, admitted, pis := shareRun(t, cascade.Limits{Share: 1, ShareWindow: 10}, 50, 2)
	for i := range admitted {
		if !admitted[i] || pis[i] != 1 {
			t.Fatalf("answer %d: admitted %v inclusion %v under share 1", i, admitted[i], pis[i])
		}
	}
}

// A guard records the inclusion probability of its escalation in the
// result, admitted or refused.
func TestShareInclusionInResult(t *testing.T) {
	c, err := cascade.New(&fake{P: 0.9}, cascade.WithLimits(cascade.Limits{Share: 0.5, ShareWindow: 100}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	var p guard.Policy
	for _, d := range guard.Decisions {
		p.Set(d, guard.Thresholds{Fail: 0.2, Pass: 0.8})
	}
	half := guard.JudgeFunc(func(_ context.Context, req guard.Request) ([]guard.Estimate, error) {
		return []guard.Estimate{{Decision: guard.Groundedness, P: 0.5}}, nil
	})
	g, err := guard.New(guard.WithPolicy(p), guard.WithJudge(half, guard.Groundedness), guard.WithEscalator(c, p, guard.FailOpen))
	if err != nil {
		t.Fatal(err)
	}
	refused, asked := 0, 0
	for i := range 30 {
		res, err := g.Evaluate(context.Background(), *sample(i))
		if err != nil {
			t.Fatal(err)
		}
		f := res.Fallback
		if f == nil || f.Inclusion != 0.5 {
			t.Fatalf("row %d: fallback %+v; want inclusion 0.5 (warm-up draw at the share)", i, f)
		}
		if f.Causes[guard.CauseShare] > 0 {
			refused++
			if !errors.Is(f.Err(), guard.ErrFallbackShare) {
				t.Errorf("row %d: Err() %v does not wrap ErrFallbackShare", i, f.Err())
			}
		} else {
			asked++
		}
	}
	if refused == 0 || asked == 0 {
		t.Errorf("%d refused, %d asked; want both", refused, asked)
	}
}

// Under a call budget, the escalations admitted by the draw (here the
// warm-up's) may not spend the budget's last BudgetRiskReserve: those
// calls are kept for the riskiest, admitted by rank.
func TestShareKeepsBudgetForTheRiskiest(t *testing.T) {
	fb := &fake{P: 0.9}
	c, err := cascade.New(fb, cascade.WithCacheSize(cascade.CacheOff), cascade.WithLimits(cascade.Limits{Share: 0.9, ShareWindow: 40, ShareSeed: 1}),
		cascade.WithBudget(cascade.Budget{Window: time.Hour, MaxCalls: 10}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	kept := 0
	for i := range 32 { // the warm-up: every admission is a draw
		esc := escalation(sample(i))
		esc.Primary = []guard.Estimate{{Decision: guard.Groundedness, P: 0.9}}
		out := mustEscalate(t, c, context.Background(), esc)
		if out[0].Cause == guard.CauseBudget && strings.Contains(out[0].Reason, "kept for the riskiest") {
			kept++
		}
	}
	if n := fb.Calls(); n != 8 || kept == 0 {
		t.Fatalf("%d calls by drawn escalations, %d refused to keep budget; want 8 (10 less the reserve of 2) and some refused", n, kept)
	}
	esc := escalation(sample(99))
	esc.Primary = []guard.Estimate{{Decision: guard.Groundedness, P: 0}} // risk 1: admitted by rank
	if out := mustEscalate(t, c, context.Background(), esc); out[0].Abstained || out[0].Inclusion != 1 || fb.Calls() != 9 {
		t.Errorf("the riskiest escalation: %+v after %d calls; want it answered from the kept budget", out[0], fb.Calls())
	}
}

// A teacher draw (guard.Teach) is its own uniform sample of the answers,
// recorded with its own inclusion probability (Result.Draw): the share
// neither ranks nor refuses it, and it takes no place in the risk window.
// Were it ranked (it carries no primary estimates: risk 0.5), most explore
// and audit draws would be refused with cause share, and the traffic
// estimates and the promise monitor would lose them.
func TestShareLeavesTeacherDrawsAlone(t *testing.T) {
	fb := &fake{P: 0.9}
	c, err := cascade.New(fb, cascade.WithCacheSize(cascade.CacheOff), cascade.WithLimits(cascade.Limits{Share: 0.2, ShareWindow: 100, ShareSeed: 1}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	var p guard.Policy
	for _, d := range guard.Decisions {
		p.Set(d, guard.Thresholds{Fail: 0.2, Pass: 0.8})
	}
	half := guard.JudgeFunc(func(_ context.Context, req guard.Request) ([]guard.Estimate, error) {
		return []guard.Estimate{{Decision: guard.Groundedness, P: 0.5}}, nil
	})
	g, err := guard.New(guard.WithPolicy(p), guard.WithJudge(half, guard.Groundedness), guard.WithEscalator(c, p, guard.FailOpen),
		guard.WithDraws(guard.Draws{Explore: 1, Seed: 3}))
	if err != nil {
		t.Fatal(err)
	}
	const n = 200
	refused := 0
	for i := range n {
		s := sample(i)
		res, err := g.Evaluate(context.Background(), *s)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Teach(context.Background(), s, &res); err != nil {
			t.Fatal(err)
		}
		if res.Teacher == nil {
			t.Fatalf("row %d: drawn at explore 1 but not taught", i)
		}
		if res.Teacher.Cause == guard.CauseShare {
			refused++
		}
	}
	if refused > 0 {
		t.Errorf("%d of %d teacher draws refused by the share; want none", refused, n)
	}
	if ss := c.ShareStats(); ss.Top+ss.Drawn+ss.Refused != n {
		t.Errorf("share stats %+v: want the %d escalations only, not the teacher draws", ss, n)
	}
}
