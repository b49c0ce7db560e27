package evalkit

import (
	"fmt"
	"math"
	"slices"

	"github.com/ragtriage/ragtriage/evalkit/dataset"
	"github.com/ragtriage/ragtriage/evalkit/report"
	"github.com/ragtriage/ragtriage/guard"
	"github.com/ragtriage/ragtriage/record"
)

// z95 is the normal quantile of a two-sided 95% interval.
const z95 = 1.959963984540054

// stratum counts the rows of one inclusion probability: N in the
// population, M observed, K of them with the value counted.
type stratum struct{ n, m, k int }

// strata maps an inclusion probability to its stratum.
type strata map[float64]*stratum

func (s strata) add(pi float64, observed, yes bool) {
	st := s[pi]
	if st == nil {
		st = &stratum{}
		s[pi] = st
	}
	st.n++
	if observed {
		st.m++
		if yes {
			st.k++
		}
	}
}

// shareEstimate estimates the population share of the value from strata:
// within each stratum (rows of one inclusion probability, whose observed
// rows are a Bernoulli sample of it) the observed proportion, weighted by
// the stratum's size (the Horvitz–Thompson estimator post-stratified by
// inclusion probability). The 95% interval combines a Wilson score
// interval per stratum, with the finite-population correction (an exact
// count where every row was observed), by the normal approximation on the
// sum, and is clipped to what the observed rows make certain. It returns
// the share, the interval, the rows observed and those observed with an
// inclusion probability below 1.
func shareEstimate(s strata) (point, low, high float64, n, sampled, rows int) {
	var center, variance, known, knownNo float64
	keys := mapKeys(s)
	slices.Sort(keys)
	for _, pi := range keys {
		st := s[pi]
		rows += st.n
		n += st.m
		if pi < 1 {
			sampled += st.m
		}
		known += float64(st.k)
		knownNo += float64(st.m - st.k)
		N := float64(st.n)
		if st.m == 0 {
			// Nothing seen of this stratum: any share of it is possible.
			point += 0.5 * N
			center += 0.5 * N
			variance += (0.5 * N) * (0.5 * N)
			continue
		}
		p := float64(st.k) / float64(st.m)
		point += p * N
		if st.m >= st.n {
			center += p * N // every row seen: exact
			continue
		}
		c, half := wilsonFPC(st.k, st.m, st.n)
		center += c * N
		sd := half / z95 * N
		variance += sd * sd
	}
	if rows == 0 {
		return 0, 0, 0, 0, 0, 0
	}
	R := float64(rows)
	sd := math.Sqrt(variance)
	low = max(center-z95*sd, known) / R
	high = min(center+z95*sd, R-knownNo) / R
	return point / R, low, high, n, sampled, rows
}

// wilsonFPC is the Wilson score interval (center, half-width) of k in m
// drawn without replacement from n, with the effective sample size
// m·(n−1)/(n−m) (the finite-population correction).
func wilsonFPC(k, m, n int) (center, half float64) {
	p := float64(k) / float64(m)
	ne := float64(m)
	if n > 1 {
		ne = float64(m) * float64(n-1) / float64(n-m)
	}
	z2 := z95 * z95
	d := 1 + z2/ne
	center = (p + z2/(2*ne)) / d
	half = z95 * math.Sqrt(p*(1-p)/ne+z2/(4*ne*ne)) / d
	return center, half
}

func mapKeys[K comparable, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// estimateDecisions are the decisions traffic estimates are made for: every
// answer-level decision (chunk relevance is per context).
var estimateDecisions = guard.Decisions[1:]

// estimatesAcc gathers the traffic estimates' observations, in input
// order.
type estimatesAcc struct {
	dec     [8]strata
	unknown [8]map[string]int
	labeled [8]struct{ n, neg int }
	diag    strata // by inclusion: counts rows observed
	diagBy  map[guard.Diagnosis]strata
	diagUnk map[string]int
	diagIdx []guard.Diagnosis // diagnoses seen, in first-seen order

	// Catch (groundedness).
	escalated, admitted, failCaught    int
	labFail, labFailCaught, labFailEsc int
}

func newEstimatesAcc() *estimatesAcc {
	e := &estimatesAcc{diag: strata{}, diagBy: map[guard.Diagnosis]strata{}, diagUnk: map[string]int{}}
	for _, d := range estimateDecisions {
		e.dec[d], e.unknown[d] = strata{}, map[string]int{}
	}
	return e
}

// add ingests one result (exp: its labels, when any).
func (e *estimatesAcc) add(r *guard.Result, exp *dataset.Expected) {
	for _, d := range estimateDecisions {
		o := record.Observe(r, d)
		if !o.Counted {
			continue
		}
		if y, ok := exp.Label(d); ok {
			e.labeled[d].n++
			if y == d.Adverse() { // the unhealthy side
				e.labeled[d].neg++
			}
		}
		if o.Unknown != "" {
			e.unknown[d][o.Unknown]++
			if o.Unknown == record.UnknownInclusion {
				continue
			}
		}
		e.dec[d].add(o.Inclusion, o.Observed, o.Fail)
	}
	od := record.ObserveDiagnosis(r)
	if od.Unknown != "" {
		e.diagUnk[od.Unknown]++
	} else {
		if od.Observed && e.diagBy[od.Value] == nil {
			e.diagBy[od.Value] = strata{}
			e.diagIdx = append(e.diagIdx, od.Value)
		}
		e.diag.add(od.Inclusion, od.Observed, false)
		if od.Observed {
			st := e.diagBy[od.Value]
			st.add(od.Inclusion, true, true)
		}
	}
	e.addCatch(r, exp)
}

// addCatch counts the groundedness catch of one result.
func (e *estimatesAcc) addCatch(r *guard.Result, exp *dataset.Expected) {
	f := r.Fallback
	esc := f != nil && slices.Contains(f.Decisions, guard.Groundedness)
	adm := esc && f.Causes[guard.CauseShare] == 0
	y, labeled := exp.Label(guard.Groundedness)
	neg := labeled && !y
	if esc {
		e.escalated++
	}
	if neg {
		e.labFail++
		if esc {
			e.labFailEsc++
		}
	}
	if adm {
		e.admitted++
		if v, _ := r.Verdict(guard.Groundedness); v == guard.Fail {
			e.failCaught++
		}
		if neg {
			e.labFailCaught++
		}
	}
}

// unavailable says why a decision's estimate cannot be given, "" when it
// can.
func unavailable(unk map[string]int, s strata) string {
	if n := unk[record.UnknownInclusion]; n > 0 {
		return fmt.Sprintf("%d escalated rows carry no inclusion probability (records written before it was recorded, or a cascade without -fallback-share / cascade.Limits.Share): an estimate would be biased", n)
	}
	if n := unk[record.UnknownUnsettled]; n > 0 {
		return fmt.Sprintf("%d rows in the fallback's sample (or decided by no judge) have no settled verdict: a non-response that would bias the estimate", n)
	}
	if len(s) == 0 {
		return "no rows"
	}
	return ""
}

// interval fills an Interval from strata, or marks it unavailable.
func interval(s strata, why string) (iv report.Interval, point *float64) {
	p, lo, hi, n, sampled, rows := shareEstimate(s)
	iv = report.Interval{N: n, Rows: rows, Sampled: sampled, Reason: why}
	if why != "" {
		return iv, nil
	}
	iv.Available, iv.Low, iv.High = true, &lo, &hi
	return iv, &p
}

// report returns the estimates per decision and per diagnosis.
func (e *estimatesAcc) report() (map[string]*report.FailShareEstimate, map[string]*report.DiagnosisShareEstimate) {
	dec := map[string]*report.FailShareEstimate{}
	for _, d := range estimateDecisions {
		s := e.dec[d]
		if len(s) == 0 && len(e.unknown[d]) == 0 {
			continue
		}
		iv, p := interval(s, unavailable(e.unknown[d], s))
		fe := &report.FailShareEstimate{FailShare: p, Interval: iv}
		if l := e.labeled[d]; l.n > 0 {
			fe.Labeled = l.n
			fe.LabeledFailShare = ratioOrNull(l.neg, l.n)
		}
		dec[d.JSONKey()] = fe
	}
	diag := map[string]*report.DiagnosisShareEstimate{}
	why := ""
	if n := e.diagUnk[record.UnknownInclusion]; n > 0 {
		why = fmt.Sprintf("%d escalated rows carry no inclusion probability: an estimate would be biased", n)
	}
	for _, dg := range e.diagIdx {
		// Each diagnosis's strata: the population's, with the rows
		// observed to have it counted.
		s := strata{}
		for pi, st := range e.diag {
			c := *st
			c.k = 0
			if x := e.diagBy[dg][pi]; x != nil {
				c.k = x.k
			}
			s[pi] = &c
		}
		iv, p := interval(s, why)
		diag[string(dg)] = &report.DiagnosisShareEstimate{Share: p, Interval: iv}
	}
	if why != "" && len(diag) == 0 {
		diag["*"] = &report.DiagnosisShareEstimate{Interval: report.Interval{Reason: why}}
	}
	return dec, diag
}

// catch returns the cascade report's catch block; calls is the fallback
// calls made (-1 when the escalator keeps no count) and est the
// groundedness estimate.
func (e *estimatesAcc) catch(rows, calls int, est *report.FailShareEstimate) *report.Catch {
	if calls < 0 {
		calls = e.admitted
	}
	c := &report.Catch{FallbackCalls: calls, Rows: rows, CallShare: ratio(calls, rows), Escalated: e.escalated, Admitted: e.admitted,
		FailCaught: e.failCaught, LabeledFail: e.labFail, LabeledFailCaught: e.labFailCaught}
	if e.labFail > 0 {
		c.CaughtShare = ratioOrNull(e.labFailCaught, e.labFail)
		if e.escalated > 0 {
			r := float64(e.admitted) / float64(e.escalated) * float64(e.labFailEsc) / float64(e.labFail)
			c.RandomCaughtShare = &r
		}
	}
	if est != nil && est.FailShare != nil && *est.FailShare > 0 {
		r := float64(e.failCaught) / (*est.FailShare * float64(rows))
		c.EstimatedCaughtShare = &r
	}
	return c
}
