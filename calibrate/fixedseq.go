package calibrate

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// FixedSequenceConfig controls [SelectFixedSequence].
type FixedSequenceConfig struct {
	// Alpha is the largest error rate allowed in an automatically decided
	// region, in (0, 1).
	Alpha float64
	// Confidence is 1−δ, the probability with which the guarantee holds, in
	// (0, 1).
	Confidence float64
	// MinGroupRows: within a region, a group (labelled source) with fewer
	// rows than this is not tested on its own; its rows still count in the
	// pooled test and in a test of all such small groups pooled together,
	// once that pool reaches MinGroupRows rows. 0 means
	// MinRowsForBound(Alpha, Confidence), the smallest n for which 0 errors
	// in n rows give a Clopper–Pearson upper bound ≤ Alpha (59 for
	// α = δ = 0.05). Must be ≥ 0.
	MinGroupRows int
	// StartRows, when larger than the default start, is the number of rows
	// the first tested region must hold: a region of a few hundred rows can
	// be certified with a few errors in it, where the smallest certifiable
	// region (MinRowsForBound rows) must hold none. It is read against p
	// alone, so the guarantee is unaffected. 0 means the default. Must be ≥ 0.
	StartRows int
	// Starts, when set, runs one fixed sequence per entry, each starting at
	// the first region holding at least that fraction of the rows (and the
	// rows the other settings ask for), and keeps, per side, the widest
	// region any of them certifies. Each sequence is tested at confidence
	// 1 − (1 − Confidence)/J, J = len(Starts) (plus one with
	// PredictedStart), so the union bound keeps the overall guarantee at
	// Confidence. Several starts make the selection robust to an unlucky
	// first region: a single sequence stops for good at its first failure.
	// The fractions are read against p alone. Each must be in [0, 1).
	Starts []float64
	// PredictedStart adds one sequence per side (J counts it) that starts
	// at the region p itself predicts to certify the most rows: taking p
	// as each row's probability of "true", a region of n rows is expected
	// to hold E = Σ(1−p) errors on the pass side (Σp on the fail side),
	// with variance V = Σp(1−p), and it passes the exact test when its
	// errors are at most k(n), the critical count; the start is the region
	// (of at least the rows the other settings ask for) that maximizes
	// n·Φ((k(n) + ½ − E)/√V), its rows times its predicted chance to pass.
	// It is read against p alone, like the order of the candidates, so the
	// guarantee is unaffected; with calibrated p it lands where the labels'
	// own noise lets a region certify. It helps when every region carries
	// a floor of errors (labels from a judge that is itself wrong on a
	// share of rows): a region must then hold a few hundred rows to
	// certify, and a sequence started at a smaller one stops there for
	// good.
	PredictedStart bool
	// SidesOfHalf keeps each side on its own side of p = ½: the pass
	// side's candidates are above ½ and the fail side's below, so no
	// region decides against what p itself says is more likely (p = ½
	// escalates). It is read against p alone. Without it a sequence may
	// extend past ½ while the region's errors stay within the bound.
	SidesOfHalf bool
}

// GroupRegion describes the rows of one group inside an automatically
// decided region of a [FixedSelection].
type GroupRegion struct {
	Group      int     // the group id, as given in SelectFixedSequence's group argument (0 when it was nil)
	Count      int     // rows of the group in the region
	Errors     int     // wrong decisions among them
	ErrorRate  float64 // Errors/Count, or 0 when Count is 0
	UpperBound float64 // ClopperPearsonUpper(Errors, Count, Confidence); 1 when Count is 0
	Tested     bool    // Count ≥ MinGroupRows: the group was tested on its own in this region
}

// FixedSelection is a two-sided routing policy chosen by
// [SelectFixedSequence]: P ≥ Pass auto-passes when HasPass, P ≤ Fail
// auto-fails when HasFail, and everything else is escalated. When both sides
// decide, Fail < Pass.
//
// A side with Has… false decides nothing ("undecided by policy"): its
// threshold is then the inert default of [Selection] (Pass = 1, Fail = 0),
// its Region has Count 0 and UpperBound 1, and its groups have Count 0.
// Compare through [FixedSelection.Band] rather than with the thresholds.
//
// A FixedSelection is a plain value; Band may be called concurrently. The
// zero FixedSelection escalates everything.
type FixedSelection struct {
	Fail, Pass         float64 // meaningful only when HasFail / HasPass
	HasFail, HasPass   bool    // false: that side decides nothing
	AutoFail, AutoPass Region  // the chosen regions, as in Selection

	// FailGroups and PassGroups hold one entry per group id present in the
	// data, sorted by id: the group's rows, errors and upper bound in the
	// chosen region, and whether it was tested on its own there.
	FailGroups, PassGroups []GroupRegion

	// Tested counts the candidates tested on each side, {fail, pass},
	// including the first one not rejected, which ended the sequence.
	Tested [2]int

	Coverage          float64 // (AutoPass.Count + AutoFail.Count)/N
	N                 int     // rows the thresholds were selected on
	Alpha, Confidence float64 // Alpha from the config; Confidence is the level each test ran at: the config's, or with Starts the config's adjusted by the union bound
	MinGroupRows      int     // as used: the config's value, or its default
}

// Band returns BandPass when s.HasPass and p ≥ s.Pass, BandFail when
// s.HasFail and p ≤ s.Fail, and BandEscalate otherwise (including NaN p).
// It does not allocate.
func (s FixedSelection) Band(p float64) Band {
	switch {
	case s.HasPass && p >= s.Pass:
		return BandPass
	case s.HasFail && p <= s.Fail:
		return BandFail
	}
	return BandEscalate
}

// MinRowsForBound returns the smallest n for which 0 errors in n rows give a
// Clopper–Pearson upper bound of at most alpha at the given confidence:
//
//	n = min{n : (1−alpha)^n ≤ 1−confidence} = ⌈ln(1−confidence)/ln(1−alpha)⌉,
//
// since ClopperPearsonUpper(0, n, c) = 1 − (1−c)^(1/n). No region with fewer
// rows can be certified at error rate alpha, whatever its labels. For
// alpha = 0.05 and confidence = 0.95 it is 59: 0.95^59 ≈ 0.0485 ≤ 0.05 <
// 0.95^58 ≈ 0.0510. The comparison is made in the log domain,
// n·ln(1−alpha) ≤ ln(1−confidence), so that exact cases such as
// (alpha, confidence) = (0.5, 0.75), n = 2, come out exactly. The result
// saturates at math.MaxInt for absurdly small alpha.
//
// MinRowsForBound panics if alpha or confidence is not in (0, 1).
func MinRowsForBound(alpha, confidence float64) int {
	if !(alpha > 0 && alpha < 1) || !(confidence > 0 && confidence < 1) {
		panic("calibrate: MinRowsForBound: alpha or confidence not in (0, 1)")
	}
	la, lc := math.Log1p(-alpha), math.Log1p(-confidence)
	nf := math.Ceil(lc / la)
	if !(nf < 1<<62) {
		return math.MaxInt
	}
	n := max(int(nf), 1)
	ok := func(n int) bool { return float64(n)*la <= lc }
	for n > 1 && ok(n-1) {
		n--
	}
	for !ok(n) {
		n++
	}
	return n
}

// SelectFixedSequence chooses the thresholds of a [FixedSelection] from
// calibration data — probabilities p of "true", true labels y and optional
// group ids (the labelled source of each row; nil means one group) — so that,
// with probability at least cfg.Confidence = 1−δ on each side, every
// automatically decided region has an error rate of at most α = cfg.Alpha,
// pooled and in every group large enough to be tested on its own.
//
// Candidates and regions are those of [SelectThresholds]: a candidate
// threshold is a distinct value of p; the auto-pass region of t is
// {i : p_i ≥ t}, whose errors are its y = false rows, and the auto-fail
// region is {i : p_i ≤ t}, whose errors are its y = true rows. Pass is never
// 0 and Fail never 1.
//
// Each side is a fixed-sequence test. Its candidates are ordered from the
// most conservative (pass: the largest p first; fail: the smallest first).
// The sequence starts at the first candidate whose region holds at least
// max(M, MinRowsForBound(α, 1−δ), cfg.StartRows) rows, M = cfg.MinGroupRows (or its
// default): a smaller region cannot be certified whatever its labels, and
// the starting point depends on p alone. At candidate k the null hypothesis
//
//	H_k: the error rate of region k exceeds α — pooled, or in some group with
//	     ≥ M rows in the region, or in the pool of the groups with < M rows
//	     there (when that pool holds ≥ M rows)
//
// is rejected when the exact test of each part rejects at level δ — and, a
// conservative rule on top of the test, when the pool of small groups, while
// it holds fewer than M rows, holds no error at all (such a pool cannot be
// tested, and a small source must not ride on the large ones: without the
// rule, 25 errors in a 50-row source can hide under a large clean source's
// pooled bound). For e errors in n rows the test is, as in SelectThresholds,
//
//	P(X ≤ e | X ~ Binomial(n, α)) ≤ δ  ⇔  ClopperPearsonUpper(e, n, 1−δ) ≤ α.
//
// The sequence stops at the first candidate not rejected; the chosen
// threshold is the last rejected one, the widest region certified. If the
// first candidate tested is not rejected (or none is tested), that side is
// undecided (HasPass or HasFail false).
//
// Power. The first test decides whether a side decides anything at all, and
// it is the hardest: with distinct p values its region has about
// MinRowsForBound rows, which must hold (almost) no errors — 0 errors in 59
// rows for α = δ = 0.05, which a true error rate of 2 % passes only with
// probability 0.98^59 ≈ 0.30. Ties in p (coarse judge scores) make the first
// region larger and the test less brittle.
//
// Validity. H_k is a union of nulls (pooled, one per tested group, the small
// pool), and it is rejected only when every one of them is rejected at level
// δ: by the intersection–union principle (Berger, Technometrics 24, 1982)
// this is a level-δ test of H_k, with no correction for the number of
// groups. Which groups are tested depends on p and the group ids only. The
// order of the candidates and the starting point are fixed by p alone, and
// testing H_1, H_2, … in that order, each at the full level δ, stopping at
// the first non-rejection, controls the familywise error rate at δ (the
// fixed-sequence procedure; Maurer, Hothorn & Lehmacher 1995): with
// probability ≥ 1−δ no true H_k is rejected, so every certified region of a
// side — the chosen one included — meets the bound, pooled and per tested
// group, simultaneously. The guarantee is per side (both sides together:
// ≥ 1−2δ). [SelectThresholds], by contrast, tests every candidate at δ and
// keeps the widest feasible one, a data-driven choice its per-region bound
// does not cover; a wide region can pass pooled while hiding a bad pocket
// near its edge, which stops the sequence here.
//
// Conflict. If the chosen regions overlap (Fail ≥ Pass, possible for a large
// α), the pass side steps back to its more conservative certified
// candidates until Fail < Pass, and becomes undecided if none is left. Every
// candidate before the chosen one was rejected too, so the guarantee is
// unchanged.
//
// Errors (wrapped in [*Error]): [ErrEmpty]; [ErrRange] when Alpha or
// Confidence is not in (0, 1), MinGroupRows < 0 or a p is outside [0, 1];
// [ErrNaN] for a NaN p. SelectFixedSequence panics if len(y) != len(p) or
// group != nil and len(group) != len(p). The inputs are not modified. Cost:
// O(n log n + n·G) for n rows and G groups, with at most about 2n
// incomplete-beta evaluations for the tests and 2(G+1) Clopper–Pearson
// bounds for the report.
func SelectFixedSequence(p []float64, y []bool, group []int, cfg FixedSequenceConfig) (FixedSelection, error) {
	const fn = "SelectFixedSequence"
	checkLen(fn, len(p), y, nil)
	if group != nil && len(group) != len(p) {
		panic("calibrate: " + fn + ": slice length mismatch")
	}
	if err := cfg.check(fn); err != nil {
		return FixedSelection{}, err
	}
	if err := checkProbs(fn, p); err != nil {
		return FixedSelection{}, err
	}
	alpha, confidence := cfg.Alpha, cfg.testConfidence()
	n := len(p)
	minRows := MinRowsForBound(alpha, confidence)
	minGroup := cfg.MinGroupRows
	if minGroup == 0 {
		minGroup = minRows
	}
	d := fsData{p: p, y: y, minGroup: minGroup, confidence: confidence,
		starts: cfg.startRows(n, max(minGroup, minRows, cfg.StartRows)),
		crit:   &critTable{alpha: alpha, delta: 1 - confidence}}
	d.ids, d.dense = denseGroups(group, n)
	d.predicted, d.half = cfg.PredictedStart, cfg.SidesOfHalf
	d.minStart = max(minGroup, minRows, cfg.StartRows)
	asc := ascending(p)
	desc := slices.Clone(asc)
	slices.Reverse(desc)
	failCands, failTested := d.side(asc, false)
	passCands, passTested := d.side(desc, true)

	s := FixedSelection{
		Pass: 1, Fail: 0,
		N: n, Alpha: alpha, Confidence: confidence, MinGroupRows: minGroup,
		Tested: [2]int{failTested, passTested},
	}
	if len(failCands) > 0 {
		c := failCands[len(failCands)-1]
		s.Fail, s.HasFail = c.value, true
		s.AutoFail, s.FailGroups = d.report(asc, c, false)
	} else {
		s.AutoFail, s.FailGroups = d.report(asc, fsCandidate{value: 0}, false)
	}
	if c, ok := passBelowConflict(passCands, s.HasFail, s.Fail); ok {
		s.Pass, s.HasPass = c.value, true
		s.AutoPass, s.PassGroups = d.report(desc, c, true)
	} else {
		s.AutoPass, s.PassGroups = d.report(desc, fsCandidate{value: 1}, true)
	}
	s.Coverage = float64(s.AutoPass.Count+s.AutoFail.Count) / float64(n)
	return s, nil
}

// check validates the settings of cfg (errors wrapped in *Error for fn).
func (cfg FixedSequenceConfig) check(fn string) error {
	if !(cfg.Alpha > 0 && cfg.Alpha < 1) {
		return newErr(fn, -1, fmt.Errorf("Alpha = %v not in (0, 1): %w", cfg.Alpha, ErrRange))
	}
	if !(cfg.Confidence > 0 && cfg.Confidence < 1) {
		return newErr(fn, -1, fmt.Errorf("Confidence = %v not in (0, 1): %w", cfg.Confidence, ErrRange))
	}
	if cfg.MinGroupRows < 0 {
		return newErr(fn, -1, fmt.Errorf("MinGroupRows = %d: %w", cfg.MinGroupRows, ErrRange))
	}
	if cfg.StartRows < 0 {
		return newErr(fn, -1, fmt.Errorf("StartRows = %d: %w", cfg.StartRows, ErrRange))
	}
	for _, f := range cfg.Starts {
		if !(f >= 0 && f < 1) {
			return newErr(fn, -1, fmt.Errorf("Starts holds %v, not in [0, 1): %w", f, ErrRange))
		}
	}
	return nil
}

// testConfidence is the level each sequence is tested at: Confidence, or
// with J Starts 1 − (1 − Confidence)/J, each sequence at δ/J (the union
// bound).
func (cfg FixedSequenceConfig) testConfidence() float64 {
	j := len(cfg.Starts)
	if cfg.PredictedStart {
		j++
	}
	if j <= 1 {
		return cfg.Confidence
	}
	return 1 - (1-cfg.Confidence)/float64(j)
}

// startRows returns how many rows the first tested region of each sequence
// must hold: start alone, or one entry per Starts fraction of n rows (never
// fewer than start).
func (cfg FixedSequenceConfig) startRows(n, start int) []int {
	if len(cfg.Starts) == 0 {
		if cfg.PredictedStart {
			return nil // the predicted start alone
		}
		return []int{start}
	}
	starts := make([]int, 0, len(cfg.Starts))
	for _, f := range cfg.Starts {
		starts = append(starts, max(start, int(math.Ceil(f*float64(n)))))
	}
	return starts
}

// denseGroups returns the sorted distinct group ids ({0} when group is nil)
// and each row's index among them.
func denseGroups(group []int, n int) (ids, dense []int) {
	ids = []int{0}
	dense = make([]int, n)
	if group != nil {
		ids = slices.Clone(group)
		slices.Sort(ids)
		ids = slices.Compact(ids)
		for i, g := range group {
			dense[i], _ = slices.BinarySearch(ids, g)
		}
	}
	return ids, dense
}

// ascending returns the row indices in increasing order of p.
func ascending(p []float64) []int {
	asc := make([]int, len(p))
	for i := range asc {
		asc[i] = i
	}
	slices.SortFunc(asc, func(a, b int) int { return cmp.Compare(p[a], p[b]) })
	return asc
}

// passBelowConflict returns the widest certified pass candidate that does
// not overlap the fail region (value > fail when hasFail): the pass side
// steps back to its more conservative candidates. ok is false when none is
// left.
func passBelowConflict(cands []fsCandidate, hasFail bool, fail float64) (fsCandidate, bool) {
	k := len(cands) - 1
	for k >= 0 && hasFail && cands[k].value <= fail {
		k--
	}
	if k < 0 {
		return fsCandidate{}, false
	}
	return cands[k], true
}

// fsData is what both sides of SelectFixedSequence read: the rows, their
// dense group indices, the test settings and the sequences' starts.
type fsData struct {
	p          []float64
	y          []bool
	ids        []int // the sorted distinct group ids
	dense      []int // each row's index in ids
	minGroup   int
	confidence float64
	starts     []int
	crit       *critTable
	// predicted: one more sequence per side, started at predictedStart;
	// minStart is the fewest rows a first region may hold.
	predicted bool
	minStart  int
	// half: no candidate on the other side of ½ (SidesOfHalf).
	half bool
}

// beyond reports whether candidate value v ends one side's sequence: 0 on
// the pass side, 1 on the fail side, and with half anything on the other
// side of ½.
func beyond(v float64, pass, half bool) bool {
	if pass {
		return v == 0 || (half && v <= 0.5)
	}
	return v == 1 || (half && v >= 0.5)
}

// side runs one sequence per start on one side (order lists the rows from
// the most conservative p) and returns the certified candidates of the
// sequence that reached the widest region, and the candidates tested by all
// of them.
func (d *fsData) side(order []int, pass bool) (best []fsCandidate, tested int) {
	starts := d.starts
	if d.predicted {
		if ps, ok := d.predictedStart(order, pass); ok {
			starts = append(slices.Clone(starts), ps)
		}
	}
	for _, start := range starts {
		st := fsState{min: d.minGroup, crit: d.crit, count: make([]int, len(d.ids)), errs: make([]int, len(d.ids)), half: d.half}
		c, t := st.run(order, d.p, d.y, d.dense, pass, start)
		tested += t
		if len(c) > 0 && (len(best) == 0 || c[len(c)-1].rows > best[len(best)-1].rows) {
			best = c
		}
	}
	return best, tested
}

// predictedStart returns the rows of the region that p predicts to
// certify the most rows (see FixedSequenceConfig.PredictedStart), among
// the candidate regions of one side holding at least minStart rows; ok is
// false when there is none. The predicted chance that a region passes is
// the product of its parts' chances, as if independent: pooled, each group
// tested on its own (≥ minGroup rows in the region), and the pool of the
// smaller groups (tested once it holds minGroup rows, else it must hold no
// error: chance e^(−E)). It reads p alone.
func (d *fsData) predictedStart(order []int, pass bool) (rows int, ok bool) {
	type moments struct {
		n    int
		e, v float64
	}
	chance := func(m moments) float64 {
		margin := float64(d.crit.max(m.n)) + 0.5 - m.e
		switch {
		case m.v > 0:
			return 0.5 * math.Erfc(-margin/math.Sqrt(2*m.v))
		case margin >= 0:
			return 1
		}
		return 0
	}
	var pooled moments
	groups := make([]moments, len(d.ids))
	var best float64
	for a := 0; a < len(order); {
		val := d.p[order[a]]
		if beyond(val, pass, d.half) {
			break
		}
		b := a
		for ; b < len(order) && d.p[order[b]] == val; b++ {
			q := d.p[order[b]]
			e := q // the chance that a fail decision is wrong
			if pass {
				e = 1 - q
			}
			g := &groups[d.dense[order[b]]]
			pooled.n, pooled.e, pooled.v = pooled.n+1, pooled.e+e, pooled.v+q*(1-q)
			g.n, g.e, g.v = g.n+1, g.e+e, g.v+q*(1-q)
		}
		a = b
		if b < d.minStart {
			continue
		}
		c := chance(pooled)
		if len(groups) > 1 {
			var small moments
			for _, g := range groups {
				switch {
				case g.n >= d.minGroup:
					c *= chance(g)
				case g.n > 0:
					small.n, small.e, small.v = small.n+g.n, small.e+g.e, small.v+g.v
				}
			}
			if small.n >= d.minGroup {
				c *= chance(small)
			} else {
				c *= math.Exp(-small.e)
			}
		}
		if score := float64(b) * c; score > best {
			best, rows, ok = score, b, true
		}
	}
	return rows, ok
}

// report describes the region of candidate c on one side, pooled and per
// group.
func (d *fsData) report(order []int, c fsCandidate, pass bool) (Region, []GroupRegion) {
	groups := make([]GroupRegion, len(d.ids))
	for g, id := range d.ids {
		groups[g].Group = id
	}
	var errs int
	for _, i := range order[:c.rows] {
		gr := &groups[d.dense[i]]
		gr.Count++
		if d.y[i] != pass {
			gr.Errors++
			errs++
		}
	}
	for g := range groups {
		gr := &groups[g]
		gr.UpperBound = ClopperPearsonUpper(gr.Errors, gr.Count, d.confidence)
		if gr.Count > 0 {
			gr.ErrorRate = float64(gr.Errors) / float64(gr.Count)
		}
		gr.Tested = gr.Count >= d.minGroup
	}
	r := Region{Threshold: c.value, Count: c.rows, Errors: errs, UpperBound: 1}
	if c.rows > 0 {
		r.ErrorRate = float64(errs) / float64(c.rows)
		r.UpperBound = ClopperPearsonUpper(errs, c.rows, d.confidence)
		r.Coverage = float64(c.rows) / float64(len(d.p))
	}
	return r, groups
}

// fsCandidate is a certified candidate: its threshold and the number of rows
// of its region (a prefix of the side's order).
type fsCandidate struct {
	value float64
	rows  int
}

// critTable holds, for n = 0, 1, 2, …, the critical error count
//
//	k[n] = max{e < n : binomCDF(e, n, α) ≤ δ}  (−1 when there is none),
//
// so that e errors in n rows pass the exact test iff e ≤ k[n]. The CDF
// increases in e and decreases in n, so k[n] ≥ k[n−1] and the table grows
// with one or a few incomplete-beta evaluations per n.
type critTable struct {
	alpha, delta float64
	k            []int
}

// ok reports whether errs errors in n rows pass the test (false for n = 0).
func (c *critTable) ok(errs, n int) bool {
	if n <= 0 {
		return false
	}
	return errs <= c.max(n)
}

// max returns k[n], the most errors n ≥ 1 rows may hold and pass.
func (c *critTable) max(n int) int {
	for len(c.k) <= n {
		m := len(c.k)
		e := -1
		if m > 0 {
			e = c.k[m-1]
		}
		for e+1 < m && binomCDF(e+1, m, c.alpha) <= c.delta {
			e++
		}
		c.k = append(c.k, e)
	}
	return c.k[n]
}

// fsState is the running state of one side's sequence: pooled counts, counts
// per group, the pool of groups below min rows, and how many groups at or
// above min rows fail their test.
type fsState struct {
	min            int
	crit           *critTable
	count, errs    []int
	n, e           int
	smallN, smallE int
	bad            int
	half           bool // see fsData.half
}

// add puts one row of group g into the region.
func (s *fsState) add(g int, isErr bool) {
	c, e := s.count[g], s.errs[g]
	if c >= s.min {
		if !s.crit.ok(e, c) {
			s.bad--
		}
	} else {
		s.smallN -= c
		s.smallE -= e
	}
	c++
	s.n++
	if isErr {
		e++
		s.e++
	}
	s.count[g], s.errs[g] = c, e
	if c >= s.min {
		if !s.crit.ok(e, c) {
			s.bad++
		}
	} else {
		s.smallN += c
		s.smallE += e
	}
}

// rejected reports whether the current region is certified: pooled, every
// group with ≥ min rows, and the pool of smaller groups once it has ≥ min
// rows.
func (s *fsState) rejected() bool {
	return s.crit.ok(s.e, s.n) && s.bad == 0 && (s.smallN < s.min && s.smallE == 0 || s.smallN >= s.min && s.crit.ok(s.smallE, s.smallN))
}

// run walks the candidates of one side in order (order lists the rows from
// the most conservative p) and returns the certified candidates, in order,
// and the number tested. An error is y = false on the pass side, y = true on
// the fail side.
func (s *fsState) run(order []int, p []float64, y []bool, group []int, pass bool, start int) (cands []fsCandidate, tested int) {
	for a := 0; a < len(order); {
		v := p[order[a]]
		if beyond(v, pass, s.half) {
			break
		}
		b := a
		for ; b < len(order) && p[order[b]] == v; b++ {
			i := order[b]
			s.add(group[i], y[i] != pass)
		}
		a = b
		if s.n < start {
			continue
		}
		tested++
		if !s.rejected() {
			break
		}
		cands = append(cands, fsCandidate{value: v, rows: b})
	}
	return cands, tested
}
