package lexical

import (
	"math"
	"slices"

	"github.com/ragtriage/ragtriage/calibrate"
	"github.com/ragtriage/ragtriage/guard"
)

// Selection is the policy chosen for one decision by SelectPolicy.
type Selection struct {
	// Thresholds go into the profile's policy; a side that no region keeps
	// the promise on is undecided by policy (NoFail, NoPass).
	Thresholds guard.Thresholds
	// SoftFloor and SoftCeiling go into the decision's model (see
	// DecisionModel).
	SoftFloor, SoftCeiling float64
	// Fail and Pass are the fixed-sequence selections behind each side.
	Fail, Pass calibrate.FixedSelection
}

// SelectPolicy chooses decision d's thresholds from out-of-fold
// probabilities p, labels y, the labelled source of each row (group) and
// whether each row holds hard evidence (HardEvidence of its features), by
// fixed-sequence testing (calibrate.SelectFixedSequence), so that each
// auto-decided region keeps an error rate ≤ cfg.Alpha at confidence
// cfg.Confidence on every source.
//
// Confidence follows evidence. For groundedness the fail side ("confidently
// ungrounded") is chosen among the rows with hard evidence alone, and every
// other row's P is floored just above that threshold (SoftFloor), so a soft
// mismatch is never a confident failure; the pass side is then chosen on the
// floored P. Contradiction mirrors it: its pass side ("confidently
// contradicts") needs hard evidence and the rest is capped just below it
// (SoftCeiling). Other decisions are selected on p as it is. A decision whose
// two sides would overlap is undecided by policy.
func SelectPolicy(d guard.Decision, p []float64, y []bool, group []int, hard []bool, cfg calibrate.FixedSequenceConfig) (Selection, error) {
	return SelectPolicyWithSamples(d, p, y, group, hard, nil, cfg)
}

// SelectPolicyWithSamples is SelectPolicy where the rows with failOnly set
// are sample-level checks of chunk relevance (nil: none). They enter the
// fail side's selection alone: a sample whose highest chunk P is at or below
// the fail threshold has every chunk blocked, which is an error when its
// label is true. The pass side, which speaks for one chunk at a time, is
// chosen on the other rows.
func SelectPolicyWithSamples(d guard.Decision, p []float64, y []bool, group []int, hard, failOnly []bool, cfg calibrate.FixedSequenceConfig) (Selection, error) {
	var out Selection
	var err error
	switch d {
	case guard.Groundedness:
		out, err = selectGrounded(p, y, group, hard, cfg)
	case guard.Contradiction:
		out, err = selectContradicted(p, y, group, hard, cfg)
	default:
		out, err = selectSides(p, y, group, failOnly, cfg)
	}
	if err != nil {
		return out, err
	}
	th := guard.Thresholds{Fail: 0, Pass: 1, NoFail: !out.Fail.HasFail, NoPass: !out.Pass.HasPass}
	if out.Fail.HasFail {
		th.Fail = out.Fail.Fail
	}
	if out.Pass.HasPass {
		th.Pass = out.Pass.Pass
	}
	if !(th.Fail < th.Pass) {
		th = guard.Undecided()
		out.SoftFloor, out.SoftCeiling = 0, 0
	}
	out.Thresholds = th
	return out, nil
}

// selectSides chooses both sides on every row, or, with fail-only rows,
// the fail side on every row and the pass side on the others.
func selectSides(p []float64, y []bool, group []int, failOnly []bool, cfg calibrate.FixedSequenceConfig) (Selection, error) {
	var out Selection
	s, err := calibrate.SelectFixedSequence(p, y, group, cfg)
	if err != nil {
		return out, err
	}
	out.Fail, out.Pass = s, s
	if !slices.Contains(failOnly, true) {
		return out, nil
	}
	var pp []float64
	var yy []bool
	var gg []int
	for i := range p {
		if !failOnly[i] {
			pp, yy, gg = append(pp, p[i]), append(yy, y[i]), append(gg, group[i])
		}
	}
	out.Pass, err = calibrate.SelectFixedSequence(pp, yy, gg, cfg)
	return out, err
}

// selectGrounded chooses groundedness's fail side among the rows with hard
// evidence, floors every other row's P just above it (SoftFloor), and then
// chooses the pass side on the floored P.
func selectGrounded(p []float64, y []bool, group []int, hard []bool, cfg calibrate.FixedSequenceConfig) (Selection, error) {
	var out Selection
	q := make([]float64, len(p))
	for t := range p {
		q[t] = p[t]
		if !hard[t] {
			q[t] = 1 // never in the fail region
		}
	}
	fs, err := calibrate.SelectFixedSequence(q, y, group, cfg)
	if err != nil {
		return out, err
	}
	out.Fail = fs
	if fs.HasFail {
		out.SoftFloor = math.Nextafter(fs.Fail, 1)
	}
	softGate(q, p, hard, out.SoftFloor, out.SoftCeiling)
	ps, err := calibrate.SelectFixedSequence(q, y, group, cfg)
	if err != nil {
		return out, err
	}
	out.Pass = ps
	return out, nil
}

// selectContradicted mirrors selectGrounded: contradiction's pass side
// ("confidently contradicts") is chosen among the rows with hard evidence,
// every other row's P is capped just below it (SoftCeiling), and the fail
// side is chosen on the capped P.
func selectContradicted(p []float64, y []bool, group []int, hard []bool, cfg calibrate.FixedSequenceConfig) (Selection, error) {
	var out Selection
	q := make([]float64, len(p))
	for t := range p {
		q[t] = p[t]
		if !hard[t] {
			q[t] = 0 // never in the pass region
		}
	}
	ps, err := calibrate.SelectFixedSequence(q, y, group, cfg)
	if err != nil {
		return out, err
	}
	out.Pass = ps
	if ps.HasPass {
		out.SoftCeiling = math.Nextafter(ps.Pass, 0)
	}
	softGate(q, p, hard, out.SoftFloor, out.SoftCeiling)
	fs, err := calibrate.SelectFixedSequence(q, y, group, cfg)
	if err != nil {
		return out, err
	}
	out.Fail = fs
	return out, nil
}

// softGate writes into q each P of p, with the rows without hard evidence
// kept within [floor, ceiling] (a zero bound is no bound), as the judge
// gates them (see Judge.predict).
func softGate(q, p []float64, hard []bool, floor, ceiling float64) {
	for t := range p {
		q[t] = p[t]
		if !hard[t] {
			if floor > 0 && q[t] < floor {
				q[t] = floor
			}
			if ceiling > 0 && q[t] > ceiling {
				q[t] = ceiling
			}
		}
	}
}

// RuleCheck records how one pass rule fared in SelectPassRule.
type RuleCheck struct {
	Rule guard.PassRule
	// Tested: the rule auto-passed enough rows to be tested and the
	// sequence had not stopped before it; Holds: it kept the promise.
	Tested, Holds bool
	// Errors and Passed count the rule's auto-passed rows that should not
	// have passed, and all it auto-passed, per group and pooled.
	Errors, Passed map[int]int
	PooledErrors   int
	PooledPassed   int
}

// SelectPassRule picks the most lenient pass rule that keeps the promise, by
// fixed-sequence testing over guard.PassRules from the strictest. For each
// rule r, passed[r][i] says whether row i would be auto-passed (diagnosis
// PASS) under it; good[i] whether row i should pass; group[i] its labelled
// source. A rule holds when the auto-passed rows' error keeps the
// Clopper–Pearson bound ≤ alpha at confidence, pooled and in every group with
// at least MinRowsForBound rows among them, and the smaller groups hold no
// error at all until they are that many together (then they are tested
// pooled). A rule that auto-passes fewer rows than that is skipped (a
// label-free fact); the first rule that is tested and fails ends the
// sequence. PassAll is returned when no rule holds.
func SelectPassRule(passed [][]bool, good []bool, group []int, alpha, confidence float64) (guard.PassRule, []RuleCheck) {
	minRows := calibrate.MinRowsForBound(alpha, confidence)
	ok := func(e, n int) bool { return calibrate.ClopperPearsonUpper(e, n, confidence) <= alpha }
	rule := guard.PassAll
	var checks []RuleCheck
	stopped := false
	for ri, r := range guard.PassRules {
		rc := RuleCheck{Rule: r, Errors: map[int]int{}, Passed: map[int]int{}}
		if ri < len(passed) {
			for i, p := range passed[ri] {
				if !p {
					continue
				}
				rc.Passed[group[i]]++
				rc.PooledPassed++
				if !good[i] {
					rc.Errors[group[i]]++
					rc.PooledErrors++
				}
			}
		}
		if rc.PooledPassed < minRows {
			checks = append(checks, rc)
			continue
		}
		holds := ok(rc.PooledErrors, rc.PooledPassed)
		smallN, smallE := 0, 0
		for g, n := range rc.Passed {
			if n >= minRows {
				holds = holds && ok(rc.Errors[g], n)
			} else {
				smallN += n
				smallE += rc.Errors[g]
			}
		}
		if smallN >= minRows {
			holds = holds && ok(smallE, smallN)
		} else {
			holds = holds && smallE == 0
		}
		if !stopped {
			rc.Tested, rc.Holds = true, holds
			if holds {
				rule = r
			} else {
				stopped = true
			}
		}
		checks = append(checks, rc)
	}
	return rule, checks
}
