package calibrate

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// rows returns n copies of (p, y).
func rows(n int, p float64, y bool) ([]float64, []bool) {
	ps := make([]float64, n)
	ys := make([]bool, n)
	for i := range ps {
		ps[i], ys[i] = p, y
	}
	return ps, ys
}

// build concatenates groups of rows.
func build(groups ...struct {
	n int
	p float64
	y bool
}) ([]float64, []bool) {
	var p []float64
	var y []bool
	for _, g := range groups {
		ps, ys := rows(g.n, g.p, g.y)
		p, y = append(p, ps...), append(y, ys...)
	}
	return p, y
}

type group = struct {
	n int
	p float64
	y bool
}

func TestSelectThresholdsHand(t *testing.T) {
	// 71 rows, alpha 0.1, confidence 0.95. Bounds from
	// TestClopperPearsonUpperKnown (exact rational bisection):
	//   pass ≥ 0.9: 30 rows, 0 errors, bound 1 − 0.05^(1/30) = 0.0950 ≤ 0.1 ✓
	//   pass ≥ 0.8: 31 rows, 1 error, bound 0.1441 ✗; lower candidates have
	//     more errors (6/41, 36/71) ✗
	//   fail ≤ 0.1: 30 rows, 0 errors ✓; fail ≤ 0.5: 5/40, bound 0.245 ✗;
	//     ≤ 0.8: 5/41 ✗; ≤ 0.9: 35/71 ✗.
	const tol = 1e-9
	p, y := build(group{30, 0.9, true}, group{1, 0.8, false}, group{5, 0.5, true}, group{5, 0.5, false}, group{30, 0.1, false})
	s, err := SelectThresholds(p, y, 0.1, 0.95)
	if err != nil {
		t.Fatalf("SelectThresholds: %v", err)
	}
	bound30 := 1 - math.Pow(0.05, 1.0/30)
	want := Selection{
		Fail: 0.1, Pass: 0.9, HasFail: true, HasPass: true,
		AutoPass: Region{Threshold: 0.9, Count: 30, Errors: 0, ErrorRate: 0, UpperBound: bound30, Coverage: 30.0 / 71},
		AutoFail: Region{Threshold: 0.1, Count: 30, Errors: 0, ErrorRate: 0, UpperBound: bound30, Coverage: 30.0 / 71},
		Coverage: 60.0 / 71, N: 71, Alpha: 0.1, Confidence: 0.95,
	}
	if !selectionClose(s, want, tol) {
		t.Errorf("SelectThresholds =\n%+v\nwant\n%+v", s, want)
	}
	for _, tt := range []struct {
		p    float64
		want Band
	}{{0.95, BandPass}, {0.9, BandPass}, {0.85, BandEscalate}, {0.1, BandFail}, {0, BandFail}, {math.NaN(), BandEscalate}} {
		if got := s.Band(tt.p); got != tt.want {
			t.Errorf("Band(%v) = %v; want %v", tt.p, got, tt.want)
		}
	}
}

func TestSelectThresholdsOverlap(t *testing.T) {
	// alpha 0.4, confidence 0.6, 10 rows each at 0.2 (false), 0.5 (5 true,
	// 5 false), 0.8 (true). Independently, pass ≥ 0.5 (5 errors in 20,
	// bound 0.3043) and fail ≤ 0.5 (likewise) are the largest feasible
	// regions, and they overlap. Disjoint options: pass ≥ 0.5 with fail ≤ 0.2
	// (20 + 10) or pass ≥ 0.8 with fail ≤ 0.5 (10 + 20); 30 rows either way,
	// and ties go to the smaller auto-pass region. (Pass ≥ 0.2 or fail ≤ 0.8
	// have 15 errors in 30, bound 0.539 ✗.)
	const tol = 1e-9
	p, y := build(group{10, 0.2, false}, group{5, 0.5, true}, group{5, 0.5, false}, group{10, 0.8, true})
	s, err := SelectThresholds(p, y, 0.4, 0.6)
	if err != nil {
		t.Fatalf("SelectThresholds: %v", err)
	}
	want := Selection{
		Fail: 0.5, Pass: 0.8, HasFail: true, HasPass: true,
		AutoPass: Region{Threshold: 0.8, Count: 10, UpperBound: 1 - math.Pow(0.4, 0.1), Coverage: 1.0 / 3},
		AutoFail: Region{Threshold: 0.5, Count: 20, Errors: 5, ErrorRate: 0.25, UpperBound: 0.3043030828845501, Coverage: 2.0 / 3},
		Coverage: 1, N: 30, Alpha: 0.4, Confidence: 0.6,
	}
	if !selectionClose(s, want, tol) {
		t.Errorf("SelectThresholds =\n%+v\nwant\n%+v", s, want)
	}
}

func TestSelectThresholdsNoneFeasible(t *testing.T) {
	// Five clean rows cannot certify 10% at 95%: 0 errors need ≥ 29 rows
	// (1 − 0.05^(1/28) = 0.1015 > 0.1).
	p := []float64{0.1, 0.2, 0.8, 0.9, 1}
	y := []bool{false, false, true, true, true}
	s, err := SelectThresholds(p, y, 0.1, 0.95)
	if err != nil {
		t.Fatalf("SelectThresholds: %v", err)
	}
	want := Selection{
		Fail: 0, Pass: 1,
		AutoPass: Region{Threshold: 1, UpperBound: 1},
		AutoFail: Region{Threshold: 0, UpperBound: 1},
		N:        5, Alpha: 0.1, Confidence: 0.95,
	}
	if !selectionClose(s, want, 0) {
		t.Errorf("SelectThresholds =\n%+v\nwant\n%+v", s, want)
	}
	if got := s.Band(1); got != BandEscalate {
		t.Errorf("Band(1) with HasPass false = %v; want escalate", got)
	}
	if got := (Selection{}).Band(0.5); got != BandEscalate {
		t.Errorf("zero Selection.Band = %v; want escalate", got)
	}
}

func TestSelectThresholdsExtremes(t *testing.T) {
	// 40 false rows at p = 0 and 40 true rows at p = 1: both regions are
	// error-free with 40 rows (bound 1 − 0.05^(1/40) = 0.072 ≤ 0.1), so
	// Fail = 0 and Pass = 1 with HasFail and HasPass set.
	p, y := build(group{40, 0, false}, group{40, 1, true})
	s, err := SelectThresholds(p, y, 0.1, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if !s.HasPass || !s.HasFail || s.Pass != 1 || s.Fail != 0 || s.Coverage != 1 {
		t.Errorf("SelectThresholds(40×(0,F), 40×(1,T)) = %+v; want Fail 0, Pass 1, coverage 1", s)
	}
	// Only true rows, all at p = 1: auto-pass all; the fail region could
	// only be ≤ 1, which is excluded.
	p, y = rows(50, 1, true)
	s, err = SelectThresholds(p, y, 0.1, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if !s.HasPass || s.HasFail || s.AutoPass.Count != 50 || !(s.Fail < s.Pass) {
		t.Errorf("SelectThresholds(50×(1,T)) = %+v; want everything auto-passed, no fail region", s)
	}
	// Only false rows at p = 0.5: everything auto-fails at Fail = 0.5.
	p, y = rows(50, 0.5, false)
	s, err = SelectThresholds(p, y, 0.1, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	if s.HasPass || !s.HasFail || s.Fail != 0.5 || s.AutoFail.Count != 50 || s.Pass != 1 {
		t.Errorf("SelectThresholds(50×(0.5,F)) = %+v; want Fail 0.5 covering all, no pass region", s)
	}
}

// bruteSelect is an O(m²) reference for SelectThresholds that checks every
// pair of candidates with ClopperPearsonUpper directly. It returns the pass
// and fail thresholds (NaN for none) and the counts.
func bruteSelect(p []float64, y []bool, alpha, conf float64) (pass, fail float64, nPass, nFail int) {
	vals := slices.Clone(p)
	slices.Sort(vals)
	vals = slices.Compact(vals)
	passOK := func(v float64) (int, bool) {
		var c, e int
		for i := range p {
			if p[i] >= v {
				c++
				if !y[i] {
					e++
				}
			}
		}
		return c, v > 0 && c > 0 && ClopperPearsonUpper(e, c, conf) <= alpha
	}
	failOK := func(v float64) (int, bool) {
		var c, e int
		for i := range p {
			if p[i] <= v {
				c++
				if y[i] {
					e++
				}
			}
		}
		return c, v < 1 && c > 0 && ClopperPearsonUpper(e, c, conf) <= alpha
	}
	type cand struct {
		v  float64 // NaN for "no region"
		n  int
		ok bool
	}
	// Candidates include "none". Pass regions are listed from small to
	// large, so that keeping strict improvements breaks ties towards the
	// smaller auto-pass region.
	passes := []cand{{math.NaN(), 0, true}}
	fails := []cand{{math.NaN(), 0, true}}
	for i := len(vals) - 1; i >= 0; i-- {
		c, ok := passOK(vals[i])
		passes = append(passes, cand{vals[i], c, ok})
	}
	for _, v := range vals {
		c, ok := failOK(v)
		fails = append(fails, cand{v, c, ok})
	}
	pass, fail = math.NaN(), math.NaN()
	best := -1
	for _, pc := range passes {
		if !pc.ok {
			continue
		}
		for _, fc := range fails {
			disjoint := math.IsNaN(pc.v) || math.IsNaN(fc.v) || fc.v < pc.v
			if fc.ok && disjoint && pc.n+fc.n > best {
				best, pass, fail, nPass, nFail = pc.n+fc.n, pc.v, fc.v, pc.n, fc.n
			}
		}
	}
	return pass, fail, nPass, nFail
}

func TestSelectThresholdsMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 300 {
		n := 1 + r.IntN(120)
		p := make([]float64, n)
		y := make([]bool, n)
		for i := range p {
			p[i] = float64(r.IntN(21)) / 20
			y[i] = r.Float64() < p[i]*p[i] || (trial%3 == 0 && r.IntN(4) == 0)
		}
		alpha := []float64{0.05, 0.1, 0.2, 0.3, 0.45}[trial%5]
		conf := []float64{0.5, 0.8, 0.95}[trial%3]
		s, err := SelectThresholds(p, y, alpha, conf)
		if err != nil {
			t.Fatalf("SelectThresholds: %v", err)
		}
		pass, fail, nPass, nFail := bruteSelect(p, y, alpha, conf)
		if s.HasPass != !math.IsNaN(pass) || s.HasFail != !math.IsNaN(fail) ||
			(s.HasPass && s.Pass != pass) || (s.HasFail && s.Fail != fail) ||
			s.AutoPass.Count != nPass || s.AutoFail.Count != nFail {
			t.Fatalf("trial %d (alpha %v, conf %v): SelectThresholds = %+v; brute force gives pass %v (%d rows), fail %v (%d rows)\np = %v\ny = %v",
				trial, alpha, conf, s, pass, nPass, fail, nFail, p, y)
		}
		if !(s.Fail < s.Pass) {
			t.Fatalf("trial %d: Fail %v ≥ Pass %v", trial, s.Fail, s.Pass)
		}
		for _, rg := range []Region{s.AutoPass, s.AutoFail} {
			if rg.Count > 0 && rg.UpperBound > alpha+1e-12 {
				t.Fatalf("trial %d: region %+v exceeds alpha %v", trial, rg, alpha)
			}
		}
	}
}

func TestSelectThresholdsErrors(t *testing.T) {
	tests := []struct {
		name        string
		p           []float64
		y           []bool
		alpha, conf float64
		want        error
	}{
		{"empty", nil, nil, 0.1, 0.95, ErrEmpty},
		{"alpha 0", []float64{0.5}, []bool{true}, 0, 0.95, ErrRange},
		{"alpha 1", []float64{0.5}, []bool{true}, 1, 0.95, ErrRange},
		{"alpha NaN", []float64{0.5}, []bool{true}, math.NaN(), 0.95, ErrRange},
		{"confidence 0", []float64{0.5}, []bool{true}, 0.1, 0, ErrRange},
		{"confidence 1", []float64{0.5}, []bool{true}, 0.1, 1, ErrRange},
		{"NaN p", []float64{0.5, math.NaN()}, []bool{true, false}, 0.1, 0.95, ErrNaN},
		{"p > 1", []float64{1.5}, []bool{true}, 0.1, 0.95, ErrRange},
		{"p < 0", []float64{-0.1}, []bool{true}, 0.1, 0.95, ErrRange},
	}
	for _, tt := range tests {
		if _, err := SelectThresholds(tt.p, tt.y, tt.alpha, tt.conf); !errors.Is(err, tt.want) {
			t.Errorf("%s: SelectThresholds error = %v; want %v", tt.name, err, tt.want)
		}
	}
	mustPanic(t, "SelectThresholds(length mismatch)", func() { SelectThresholds([]float64{0.5}, nil, 0.1, 0.9) })
}

func TestSelectThresholdsDoesNotMutate(t *testing.T) {
	p := []float64{0.9, 0.1, 0.5, 0.7}
	y := []bool{true, false, true, false}
	p0, y0 := slices.Clone(p), slices.Clone(y)
	if _, err := SelectThresholds(p, y, 0.3, 0.5); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p, p0) || !slices.Equal(y, y0) {
		t.Error("SelectThresholds modified its inputs")
	}
}

func selectionClose(a, b Selection, tol float64) bool {
	regionClose := func(a, b Region) bool {
		return a.Threshold == b.Threshold && a.Count == b.Count && a.Errors == b.Errors &&
			close(a.ErrorRate, b.ErrorRate, tol) && close(a.UpperBound, b.UpperBound, tol) && close(a.Coverage, b.Coverage, tol)
	}
	return a.Fail == b.Fail && a.Pass == b.Pass && a.HasFail == b.HasFail && a.HasPass == b.HasPass &&
		regionClose(a.AutoFail, b.AutoFail) && regionClose(a.AutoPass, b.AutoPass) &&
		close(a.Coverage, b.Coverage, tol) && a.N == b.N && a.Alpha == b.Alpha && a.Confidence == b.Confidence
}

func TestBandString(t *testing.T) {
	for r, want := range map[Band]string{BandEscalate: "escalate", BandPass: "pass", BandFail: "fail", Band(9): "Band(9)"} {
		if got := r.String(); got != want {
			t.Errorf("Band(%d).String() = %q; want %q", int(r), got, want)
		}
	}
}

func TestSweepTwoSided(t *testing.T) {
	// By hand: N = 6 (the NaN row is always escalated).
	//   (0.2, 0.8): pass {0.8 T, 0.9 F} → 2 rows, 1 error; fail {0.1 F, 0.2 T}
	//     → 2 rows, 1 error; escalated {0.5, NaN}.
	//   (0.2, 0.95): pass none; fail as above; escalated 4.
	//   (0.05, 0.8): fail none; escalated 4.
	//   Pairs with fail ≥ pass (0.2, 0.1) and (0.05, 0.05) are skipped.
	const tol = 1e-15
	p := []float64{0.1, 0.2, 0.5, 0.8, 0.9, math.NaN()}
	y := []bool{false, true, false, true, false, true}
	got := SweepTwoSided(p, y, []float64{0.2, 0.05}, []float64{0.8, 0.1, 0.95, 0.05})
	want := []SweepPoint{
		{Fail: 0.2, Pass: 0.8, AutoPassCoverage: 2.0 / 6, AutoFailCoverage: 2.0 / 6, EscalatedCoverage: 2.0 / 6,
			AutoPassErrors: 1, AutoFailErrors: 1, AutoPassErrorRate: 0.5, AutoFailErrorRate: 0.5},
		{Fail: 0.2, Pass: 0.95, AutoFailCoverage: 2.0 / 6, EscalatedCoverage: 4.0 / 6,
			AutoFailErrors: 1, AutoFailErrorRate: 0.5},
		{Fail: 0.05, Pass: 0.8, AutoPassCoverage: 2.0 / 6, EscalatedCoverage: 4.0 / 6,
			AutoPassErrors: 1, AutoPassErrorRate: 0.5},
		{Fail: 0.05, Pass: 0.1, AutoPassCoverage: 5.0 / 6, EscalatedCoverage: 1.0 / 6,
			AutoPassErrors: 3, AutoPassErrorRate: 0.6},
		{Fail: 0.05, Pass: 0.95, EscalatedCoverage: 1},
	}
	if len(got) != len(want) {
		t.Fatalf("SweepTwoSided returned %d points; want %d:\n%+v", len(got), len(want), got)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Fail != w.Fail || g.Pass != w.Pass || g.AutoPassErrors != w.AutoPassErrors || g.AutoFailErrors != w.AutoFailErrors ||
			!close(g.AutoPassCoverage, w.AutoPassCoverage, tol) || !close(g.AutoFailCoverage, w.AutoFailCoverage, tol) ||
			!close(g.EscalatedCoverage, w.EscalatedCoverage, tol) || !close(g.AutoPassErrorRate, w.AutoPassErrorRate, tol) ||
			!close(g.AutoFailErrorRate, w.AutoFailErrorRate, tol) {
			t.Errorf("point %d = %+v; want %+v", i, g, w)
		}
	}
	if got := SweepTwoSided(nil, nil, []float64{0.1}, []float64{0.9}); len(got) != 1 || got[0].EscalatedCoverage != 0 {
		t.Errorf("SweepTwoSided(empty) = %+v; want one all-zero point", got)
	}
	mustPanic(t, "SweepTwoSided(length mismatch)", func() { SweepTwoSided([]float64{1}, nil, nil, nil) })
}

func ExampleSelectThresholds() {
	// Calibrated P(true) on a labelled set: 30 confident passes, 30
	// confident fails, and an uncertain middle.
	var p []float64
	var y []bool
	add := func(n int, pv float64, yv bool) {
		for range n {
			p, y = append(p, pv), append(y, yv)
		}
	}
	add(30, 0.95, true)
	add(1, 0.8, false)
	add(5, 0.5, true)
	add(5, 0.5, false)
	add(30, 0.05, false)

	s, err := SelectThresholds(p, y, 0.1, 0.95)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("pass if P ≥ %.2f (%d rows, error bound %.3f)\n", s.Pass, s.AutoPass.Count, s.AutoPass.UpperBound)
	fmt.Printf("fail if P ≤ %.2f (%d rows, error bound %.3f)\n", s.Fail, s.AutoFail.Count, s.AutoFail.UpperBound)
	fmt.Printf("coverage %.3f\n", s.Coverage)
	fmt.Println(s.Band(0.97), s.Band(0.6), s.Band(0.01))
	// Output:
	// pass if P ≥ 0.95 (30 rows, error bound 0.095)
	// fail if P ≤ 0.05 (30 rows, error bound 0.095)
	// coverage 0.845
	// pass escalate fail
}

func ExampleSweepTwoSided() {
	p := []float64{0.1, 0.2, 0.5, 0.8, 0.9}
	y := []bool{false, true, false, true, true}
	for _, pt := range SweepTwoSided(p, y, []float64{0.1, 0.2}, []float64{0.8}) {
		fmt.Printf("fail ≤ %.1f, pass ≥ %.1f: auto-pass %.0f%% (%d errors), auto-fail %.0f%% (%d errors), escalated %.0f%%\n",
			pt.Fail, pt.Pass, 100*pt.AutoPassCoverage, pt.AutoPassErrors, 100*pt.AutoFailCoverage, pt.AutoFailErrors, 100*pt.EscalatedCoverage)
	}
	// Output:
	// fail ≤ 0.1, pass ≥ 0.8: auto-pass 40% (0 errors), auto-fail 20% (0 errors), escalated 40%
	// fail ≤ 0.2, pass ≥ 0.8: auto-pass 40% (0 errors), auto-fail 40% (1 errors), escalated 20%
}
