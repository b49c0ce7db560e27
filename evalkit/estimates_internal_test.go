package evalkit

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/ragtriage/ragtriage/cascade"
	"github.com/ragtriage/ragtriage/guard"
)

// TestEstimateCoverage runs the real share admission (cascade.Limits.Share)
// over seeded synthetic traffic whose ungrounded answers are more frequent
// at high risk, and checks that the 95% interval covers the true share of
// ungrounded answers in about 95% of the runs. 400 runs of 1,000 answers at
// share 0.2 (window 500, uniform part 0.1) measured 0.9725 coverage (389 of
// 400 runs; mean width 0.279) when written.
func TestEstimateCoverage(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	const runs, rows = 400, 1000
	fb := guard.JudgeFunc(func(_ context.Context, req guard.Request) ([]guard.Estimate, error) {
		return []guard.Estimate{{Decision: guard.Groundedness, P: 0.5}}, nil
	})
	covered, width := 0, 0.0
	for run := range runs {
		c, err := cascade.New(fb, cascade.WithCacheSize(cascade.CacheOff),
			cascade.WithLimits(cascade.Limits{Share: 0.2, ShareWindow: 500, ShareSeed: uint64(run)}))
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(run), 99))
		s := strata{}
		fails := 0
		for range rows {
			risk := rng.Float64()
			y := rng.Float64() < 0.1+0.6*risk*risk
			if y {
				fails++
			}
			esc := guard.Escalation{Request: guard.Request{Sample: &guard.Sample{Question: "q", Answer: "a", Contexts: []guard.Context{{ID: "c", Text: "t"}}},
				Decisions: []guard.Decision{guard.Groundedness}}, Primary: []guard.Estimate{{Decision: guard.Groundedness, P: 1 - risk}}}
			out, err := c.Escalate(context.Background(), esc)
			if err != nil {
				t.Fatal(err)
			}
			s.add(out[0].Inclusion, out[0].Cause != guard.CauseShare, y)
		}
		c.Close(context.Background())
		truth := float64(fails) / rows
		_, lo, hi, _, _, _ := shareEstimate(s)
		if lo <= truth && truth <= hi {
			covered++
		}
		width += hi - lo
	}
	cov := float64(covered) / runs
	t.Logf("coverage %.4f (%d of %d runs), mean width %.3f", cov, covered, runs, width/runs)
	if cov < 0.92 || cov > 0.985 {
		t.Errorf("95%% interval covered the true share in %d of %d runs (%.3f); want about 0.95", covered, runs, cov)
	}
}

// An unobserved stratum leaves the interval open over it; a fully observed
// population gives the exact share.
func TestShareEstimateEdges(t *testing.T) {
	s := strata{1: {n: 10, m: 10, k: 3}}
	if p, lo, hi, n, sampled, rows := shareEstimate(s); p != 0.3 || lo != 0.3 || hi != 0.3 || n != 10 || sampled != 0 || rows != 10 {
		t.Errorf("all observed: %v [%v, %v] n %d sampled %d rows %d; want exactly 0.3", p, lo, hi, n, sampled, rows)
	}
	s[0.1] = &stratum{n: 10}
	if _, lo, hi, _, _, _ := shareEstimate(s); lo > 0.15 || hi < 0.65 {
		t.Errorf("an unseen half: [%v, %v]; want it to span most of [0.15, 0.65]", lo, hi)
	}
	s = strata{1: {n: 100, m: 100, k: 0}, 0.05: {n: 900, m: 45, k: 0}}
	if _, lo, hi, _, _, _ := shareEstimate(s); lo > 1e-12 || hi <= 0.02 {
		t.Errorf("no fails seen: [%v, %v]; want a positive upper bound (Wilson, not a zero-width interval)", lo, hi)
	}
}
